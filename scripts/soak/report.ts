/**
 * The soak's verdict, from what the database and the platform hold once the last day is over:
 * per-day runs, published, rejected (with reasons), failed (each with the fault that explains it),
 * and the three counts that must be zero: duplicates (a topic or a render published more than
 * once, on mdame's side or the platform's), stuck (runs or units not terminal after the last
 * day's deadline) and lost (topics accepted but neither published, rejected nor failed with a reason).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sql } from "../../shared/db/client.ts";
import type { DriveResult } from "./driver.ts";
import type { Effects } from "./evidence.ts";
import { ENGINE_LOGS } from "./log-window.ts";
import { explanations, type Failure } from "./explain.ts";
import { FAULT_KINDS, type SoakPlan } from "./plan.ts";
import { platformVideos } from "./processes.ts";
import { type SoakSimilarity, soakSimilarity } from "./similarity.ts";

export interface SoakReport {
  seed: number;
  /** Days run (fewer than planned when the soak was interrupted). */
  days: number;
  planned_days: number;
  dimensions: SoakPlan["dimensions"];
  wall_s: number;
  load_average: number[];
  totals: { runs: number; published: number; rejected: number; failed: number; deferred: number; duplicates: number; stuck: number; lost: number };
  per_day: {
    day: number;
    run_date: string;
    wall_s: number;
    ended_by: string;
    runs: { id: string; status: string }[];
    published: number;
    rejected: number;
    failed: number;
    faults: string[];
  }[];
  rejected: { day: number; dimension_id: string; title: string; reason: string }[];
  failed: (Failure & { explained_by: string[] })[];
  unexplained: Failure[];
  /**
   * Every publication deferred at least once (YouTube's quota, a channel's cap, a refused grant),
   * with what became of it: published by the end, or still waiting with its reason and time.
   */
  deferred: { publication_id: string; dimension_id: string; day: number; reasons: string[]; status: string; waiting_for: string | null }[];
  /**
   * Failures of the publish stage that read as YouTube's quota, a channel's cap or a refused grant:
   * each of those must defer the publication, never fail the unit. Must be empty.
   */
  publish_refusal_failures: string[];
  /** Deferred publications still waiting at the end with no reason recorded. Must be empty. */
  deferred_unnamed: string[];
  /** Accounts the engine reported as needing a reconnect, and when the operator reconnected them. */
  reconnects: DriveResult["reconnects"];
  duplicates: string[];
  stuck: string[];
  lost: string[];
  topics_dropped_at_ingest: Record<string, number>;
  faults: DriveResult["faults"];
  fault_kinds_injected: Record<string, number>;
  /** Every sick-database window: when, how many sessions were ended, and the log lines the stack wrote meanwhile. */
  sick_database: DriveResult["sick_windows"];
  /** Sick-database windows in which the engine logged more than the ceiling allows, one line each. */
  log_floods: string[];
  effects: Effects;
  stage_policies: Record<string, unknown>[];
  /** The channel-standing guard's checks; `rejected` (too_similar) must be empty. */
  similarity: SoakSimilarity;
}

/**
 * Stages a unit may end the soak in. `deferred` waits for YouTube's quota reset, a channel's cap or
 * a reconnect (docs/reference/distribution.md): its run is closed and the drain publishes it once its time
 * comes on the engine's clock, so a deferral of the last day still waiting is not stuck.
 */
const TERMINAL = new Set(["published", "deferred", "rejected", "failed"]);

/** What a publish failure says when it was YouTube's quota, a channel's cap or a refused grant. */
const PUBLISH_REFUSAL =
  /quotaExceeded|exceeded your quota|quota_spent|MDQ0[23]|uploadLimitExceeded|upload cap|invalid_grant|needs_reconnect|refused a fresh access token|\b401\b/i;

export async function buildReport(
  sql: Sql,
  env: Record<string, string>,
  plan: SoakPlan,
  drive: DriveResult,
  extra: { wall_s: number; load_average: number[]; stage_policies: Record<string, unknown>[]; effects: Effects },
): Promise<SoakReport> {
  const dayOf = new Map(drive.days.map((d) => [d.run_date, d.day]));
  const runs = await sql`select id, run_date::text as run_date, status, error from mdame.pipeline_runs order by created_at`;
  const units = await sql`
    select u.id, u.run_id, r.run_date::text as run_date, u.dimension_id, u.stage, u.error, u.topic->>'title' as title,
           u.topic_fingerprint, u.created_at, u.updated_at,
           (select e.stage from mdame.events e where e.unit_id = u.id and e.kind = 'stage_entered'
               and e.stage not in ('published', 'rejected', 'failed') order by e.id desc limit 1) as last_stage
      from mdame.work_units u join mdame.pipeline_runs r on r.id = u.run_id
     order by u.created_at`;
  const publications = await sql`
    select p.unit_id, p.account_id, p.external_id, u.dimension_id, u.topic_fingerprint
      from mdame.publications p join mdame.work_units u on u.id = p.unit_id where p.status = 'published'`;
  const deferredRows = await sql`
    select p.id, u.dimension_id, r.run_date::text as run_date, p.status, p.deferred_reason, p.not_before,
           array(select distinct e.detail->>'reason' from mdame.events e
                  where e.kind = 'publication_deferred' and e.detail->>'publication_id' = p.id::text order by 1) as reasons
      from mdame.publications p join mdame.work_units u on u.id = p.unit_id join mdame.pipeline_runs r on r.id = u.run_id
     where exists (select 1 from mdame.events e where e.kind = 'publication_deferred' and e.detail->>'publication_id' = p.id::text)
     order by p.created_at`;
  const failedIngests = await sql`
    select rd.run_id, r.run_date::text as run_date, rd.dimension_id, rd.updated_at, r.created_at as run_created_at,
           (select d.last_error from mdame.dead_letters d
             where d.payload->>'run_id' = rd.run_id::text and d.payload->>'dimension_id' = rd.dimension_id and d.payload->>'stage' = 'ingest'
             order by d.id desc limit 1) as error
      from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id where rd.status = 'failed'`;
  const dropped = await sql`select reason, count(*)::int as n from mdame.rejected_topics group by reason order by reason`;
  const videos = await platformVideos(env);

  // Duplicates: a topic published twice, a render uploaded twice, an upload no publication records.
  const duplicates: string[] = [];
  const byTopic = Map.groupBy(publications, (p) => `${p.dimension_id}:${p.topic_fingerprint}:${p.account_id}`);
  for (const [key, list] of byTopic) if (list.length > 1) duplicates.push(`topic ${key} published ${list.length} times`);
  const bySha = Map.groupBy(videos, (v) => v.sha256);
  for (const [sha, list] of bySha) {
    if (list.length > 1) {
      duplicates.push(`the same video (sha256 ${sha.slice(0, 12)}) is on the platform ${list.length} times: ${list.map((v) => v.id).join(", ")}`);
    }
  }
  const recorded = new Set(publications.map((p) => p.external_id as string));
  const unrecorded = videos.filter((v) => !recorded.has(v.id));
  if (unrecorded.length > 0) {
    duplicates.push(`${unrecorded.length} upload(s) on the platform that no publication records: ${unrecorded.map((v) => v.id).join(", ")}`);
  }
  // A second upload of a render shows both as a repeated hash and as an unrecorded upload: counted once.
  const sameBytes = [...bySha.values()].reduce((n, l) => n + l.length - 1, 0);
  const duplicateCount = [...byTopic.values()].reduce((n, l) => n + l.length - 1, 0) + Math.max(sameBytes, unrecorded.length);

  const stuck = [
    ...runs.filter((r) => r.status === "running").map((r) => `run ${r.id} (${r.run_date}) still running`),
    ...units.filter((u) => !TERMINAL.has(u.stage)).map((u) => `unit ${u.id} (${u.dimension_id}, ${u.run_date}) still in ${u.stage}`),
  ];
  const published = new Set(publications.map((p) => p.unit_id as string));
  const lost = [
    ...units.filter((u) => (u.stage === "failed" || u.stage === "rejected") && !(u.error ?? "").trim()).map((u) => `unit ${u.id} ${u.stage} with no reason`),
    ...units.filter((u) => u.stage === "published" && !published.has(u.id)).map((u) => `unit ${u.id} published with no published publication`),
  ];

  const failures: Failure[] = [
    ...units.filter((u) => u.stage === "failed").map((u) => ({
      kind: "unit" as const,
      id: u.id as string,
      day: dayOf.get(u.run_date) ?? 0,
      dimension_id: u.dimension_id as string,
      stage: (u.last_stage as string | null) ?? "script",
      error: (u.error as string | null) ?? "",
      started_at: (u.created_at as Date).toISOString(),
      failed_at: (u.updated_at as Date).toISOString(),
    })),
    ...failedIngests.map((f) => ({
      kind: "ingest" as const,
      id: `${f.run_id}/${f.dimension_id}`,
      day: dayOf.get(f.run_date) ?? 0,
      dimension_id: f.dimension_id as string,
      stage: "ingest",
      error: (f.error as string | null) ?? "ingest failed (no dead letter)",
      started_at: (f.run_created_at as Date).toISOString(),
      failed_at: (f.updated_at as Date).toISOString(),
    })),
  ];
  const failed = failures.map((f) => ({ ...f, explained_by: explanations(drive.faults, f).map((x) => `${x.id} ${x.kind}: ${x.label}`) }));
  const unexplained = failures.filter((_, i) => failed[i]!.explained_by.length === 0);

  const deferred = deferredRows.map((p) => ({
    publication_id: p.id as string,
    dimension_id: p.dimension_id as string,
    day: dayOf.get(p.run_date) ?? 0,
    reasons: p.reasons as string[],
    status: p.status as string,
    waiting_for: p.status === "published"
      ? null
      : `${p.deferred_reason ?? "no reason recorded"}${p.not_before ? `, not before ${(p.not_before as Date).toISOString()}` : ""}`,
  }));

  const publish_refusal_failures = failures.filter((f) => f.stage === "publish" && PUBLISH_REFUSAL.test(f.error))
    .map((f) => `day ${f.day} ${f.kind} ${f.id} (${f.dimension_id}) failed at publish: ${f.error.slice(0, 200)}`);
  const deferred_unnamed = deferredRows.filter((p) => p.status === "deferred" && !p.deferred_reason)
    .map((p) => `publication ${p.id} (${p.dimension_id}) waits with no reason recorded`);

  const per_day = drive.days.map((d) => {
    const today = units.filter((u) => u.run_date === d.run_date);
    return {
      day: d.day,
      run_date: d.run_date,
      wall_s: d.wall_s,
      ended_by: d.ended_by,
      runs: runs.filter((r) => r.run_date === d.run_date).map((r) => ({ id: r.id as string, status: r.status as string })),
      published: today.filter((u) => u.stage === "published").length,
      rejected: today.filter((u) => u.stage === "rejected").length,
      failed: failures.filter((f) => f.day === d.day).length,
      faults: drive.faults.filter((f) => f.day === d.day - 1).map((f) => `${f.id} ${f.label}${f.injected_at ? "" : " (not done)"}`),
    };
  });
  const fault_kinds_injected = Object.fromEntries(FAULT_KINDS.map((k) => [k, drive.faults.filter((f) => f.kind === k && f.injected_at).length]));
  const log_floods = drive.sick_windows.filter((w) => !w.log_lines.within_ceiling).map(describeFlood);
  return {
    seed: plan.seed,
    days: drive.days.length,
    planned_days: plan.days,
    dimensions: plan.dimensions,
    wall_s: extra.wall_s,
    load_average: extra.load_average,
    totals: {
      runs: runs.length,
      published: units.filter((u) => u.stage === "published").length,
      rejected: units.filter((u) => u.stage === "rejected").length,
      failed: failures.length,
      deferred: deferred.length,
      duplicates: duplicateCount,
      stuck: stuck.length,
      lost: lost.length,
    },
    per_day,
    rejected: units.filter((u) => u.stage === "rejected").map((u) => ({
      day: dayOf.get(u.run_date) ?? 0,
      dimension_id: u.dimension_id,
      title: u.title,
      reason: u.error ?? "",
    })),
    failed,
    unexplained,
    deferred,
    publish_refusal_failures,
    deferred_unnamed,
    reconnects: drive.reconnects,
    duplicates,
    stuck,
    lost,
    topics_dropped_at_ingest: Object.fromEntries(dropped.map((r) => [r.reason, r.n])),
    faults: drive.faults,
    fault_kinds_injected,
    sick_database: drive.sick_windows,
    log_floods,
    effects: extra.effects,
    stage_policies: extra.stage_policies,
    similarity: await soakSimilarity(sql),
  };
}

const count = (n: number) => n.toLocaleString("en-US");

function engineLines(w: DriveResult["sick_windows"][number]): string {
  return ENGINE_LOGS.map((c) => `${c} ${count(w.log_lines.per_component[c] ?? 0)}`).join(", ");
}

function refusals(l: DriveResult["sick_windows"][number]["log_lines"]): string {
  const roles = Object.entries(l.refused_logins);
  if (roles.length === 0) return "no login";
  return roles.map(([role, n]) => `${count(n)} login(s) of ${role} (${Math.round((n / l.seconds) * 10) / 10}/s)`).join(", ");
}

function describeFlood(w: DriveResult["sick_windows"][number]): string {
  const l = w.log_lines;
  return `day ${w.day} ${w.fault_id} db_sick: in ${l.seconds} s the engine wrote ${
    count(l.engine_total)
  } log lines (${l.engine_per_s}/s, ceiling ${l.ceiling_per_s}/s: ${
    engineLines(w)
  }) and the server refused ${l.engine_logins_per_s} of its logins a second (ceiling ${l.login_ceiling_per_s}/s)`;
}

/** One line per sick-database window for the report's summary. */
export function sickDatabaseSummary(report: SoakReport): string[] {
  return report.sick_database.map((w) => {
    const l = w.log_lines;
    return `Sick database ${w.fault_id} (day ${w.day}, ${l.seconds} s): the engine logged ${
      count(l.engine_total)
    } lines, ${l.engine_per_s}/s (ceiling ${l.ceiling_per_s}/s${l.within_ceiling ? "" : ", **exceeded**"}): ${engineLines(w)}; the server refused ${
      refusals(l)
    }.`;
  });
}

export function summaryLine(report: SoakReport): string {
  const t = report.totals;
  return `days=${report.days} runs=${t.runs} published=${t.published} rejected=${t.rejected} failed=${t.failed} deferred=${t.deferred} duplicates=${t.duplicates} stuck=${t.stuck} lost=${t.lost}`;
}

function markdown(report: SoakReport): string {
  const t = report.totals;
  const lines = [
    `# Soak report: seed ${report.seed}, ${report.days} day(s)${
      report.days < report.planned_days ? ` (interrupted; ${report.planned_days} planned)` : ""
    }, ${report.dimensions.length} dimension(s)`,
    "",
    `Wall time ${(report.wall_s / 60).toFixed(1)} min; load average at the end ${report.load_average.map((l) => l.toFixed(2)).join(" ")}.`,
    "",
    "```",
    summaryLine(report),
    "```",
    "",
    `Unexplained failures: ${report.unexplained.length}.`,
    "",
    ...sickDatabaseSummary(report),
    ...(report.sick_database.length > 0 ? [""] : []),
    "## Days",
    "",
    "| day | run date | wall s | ended by | runs | published | rejected | failed | faults |",
    "|---|---|---|---|---|---|---|---|---|",
    ...report.per_day.map((d) =>
      `| ${d.day} | ${d.run_date} | ${d.wall_s} | ${d.ended_by} | ${d.runs.map((r) => r.status).join(", ")} | ${d.published} | ${d.rejected} | ${d.failed} | ${
        d.faults.join("; ")
      } |`
    ),
    "",
    "## Faults injected, by kind",
    "",
    ...Object.entries(report.fault_kinds_injected).map(([k, n]) => `- ${k}: ${n}`),
    "",
    `Restarts by the supervisor: ${Object.entries(report.effects.restarts).map(([c, n]) => `${c} ${n}`).join(", ")}.`,
    `Emulator answers the faults caused: ${Object.entries(report.effects.emulator).map(([k, n]) => `${k} x${n}`).join(", ") || "none"}.`,
    "",
    "## Sick database: what the stack logged while Postgres refused connections",
    "",
    ...(report.sick_database.length === 0 ? ["none"] : [
      `Lines written to \`.local/logs/<component>.log\` during each window; the ceiling applies to the engine's processes (${
        ENGINE_LOGS.join(", ")
      }), averaged over the window. db is the server's own log (a line per refused login), emulators the emulated services'.`,
      "",
      "| fault | day | from | seconds | ended by | sessions ended | engine lines | lines/s | " + ENGINE_LOGS.join(" | ") +
      " | db | emulators | logins refused |",
      "|---|---|---|---|---|---|---|---|" + ENGINE_LOGS.map(() => "---|").join("") + "---|---|---|",
      ...report.sick_database.map((w) => {
        const l = w.log_lines;
        return `| ${w.fault_id} | ${w.day} | ${w.from} | ${l.seconds} | ${w.ended_by} | ${w.sessions_ended.at_start} + ${w.sessions_ended.during} | ${
          count(l.engine_total)
        } | ${l.engine_per_s}${l.within_ceiling ? "" : " (over " + l.ceiling_per_s + ")"} | ${
          ENGINE_LOGS.map((c) => count(l.per_component[c] ?? 0)).join(" | ")
        } | ${count(l.per_component.db ?? 0)} | ${count(l.per_component.emulators ?? 0)} | ${refusals(l)} |`;
      }),
    ]),
    "",
    "## Failed, each with the fault that explains it",
    "",
    ...(report.failed.length === 0
      ? ["none"]
      : report.failed.map((f) =>
        `- day ${f.day} ${f.kind} ${f.dimension_id} (${f.stage}): ${f.error.slice(0, 200)} — ${f.explained_by[0] ?? "**UNEXPLAINED**"}`
      )),
    "",
    "## Deferred publications, and what became of them",
    "",
    ...(report.deferred.length === 0
      ? ["none"]
      : report.deferred.map((d) =>
        `- day ${d.day} ${d.dimension_id} publication ${d.publication_id} (${d.reasons.join(", ")}): ${
          d.waiting_for === null ? "published" : `still waiting: ${d.waiting_for}`
        }`
      )),
    "",
    `Publish failures that were YouTube's quota, a cap or a refused grant (must be none): ${report.publish_refusal_failures.length}.`,
    ...report.publish_refusal_failures.map((x) => `- ${x}`),
    ...report.deferred_unnamed.map((x) => `- ${x}`),
    "",
    "## Accounts reported as needing a reconnect, and the operator's answer",
    "",
    ...(report.reconnects.length === 0
      ? ["none"]
      : report.reconnects.map((r) =>
        `- day ${r.day} ${r.channel_handle} (${r.dimension_id}) reported ${r.reported_at}: ${r.reason ?? "no reason"}; ${
          r.reconnected_at ? `reconnected ${r.reconnected_at} (mdame account connect)` : `not reconnected${r.note ? ` (${r.note})` : ""}`
        }`
      )),
    "",
    "## Rejected, with reasons",
    "",
    ...(report.rejected.length === 0 ? ["none"] : report.rejected.map((r) => `- day ${r.day} ${r.dimension_id} "${r.title}": ${r.reason.slice(0, 200)}`)),
    "",
    "## Topics dropped at ingest",
    "",
    ...Object.entries(report.topics_dropped_at_ingest).map(([k, n]) => `- ${k}: ${n}`),
    "",
    `## Duplicates (${t.duplicates}), stuck (${t.stuck}), lost (${t.lost})`,
    "",
    ...[...report.duplicates, ...report.stuck, ...report.lost].map((x) => `- ${x}`),
    "",
    "## Dimensions",
    "",
    ...report.dimensions.map((d) => `- ${d.id}: ${d.subject}, ${d.tts_voice}, ${d.motion} ${d.palette.join(" ")}, daily_limit ${d.daily_limit}`),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

export function writeReport(dir: string, report: SoakReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, "report.md"), markdown(report));
}
