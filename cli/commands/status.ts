/** `mdame status [run] [--list] [--json]`: one run by dimension and unit, or the recent runs. */
import type { RunVideoAnalytics } from "../../shared/contracts/analytics.ts";
import type { RunStatus, RunSummary, UnitPublication, UnitStatus } from "../../shared/contracts/operator.ts";
import type { ApiClient } from "../api-client.ts";
import { CliError, EXIT } from "../errors.ts";
import { type CommandContext, formatAge, formatTable, printJson, printLines } from "../output.ts";

/** A unit's quality measures in one cell: loudness, true peak, duration, pass/fail. */
function formatQuality(quality: UnitStatus["quality"]): string {
  if (!quality) return "-";
  const lufs = quality.integrated_lufs === null ? "? LUFS" : `${quality.integrated_lufs.toFixed(1)} LUFS`;
  const peak = quality.true_peak_dbtp === null ? "? dBTP" : `${quality.true_peak_dbtp.toFixed(1)} dBTP`;
  // The reasons can be long; the table keeps to the verdict and `--json` has every check.
  const verdict = quality.passed ? "pass" : `fail (${quality.failures.length} of ${quality.checks.length} checks)`;
  return `${lufs} ${peak} ${quality.duration_s.toFixed(1)}s ${verdict}`;
}

/** A deferred publication in one cell: why it waits and until when. */
function formatDeferral(p: UnitPublication, nowMs: number): string {
  const until = p.not_before === null
    ? "until its account is reconnected"
    : Date.parse(p.not_before) > nowMs
    ? `until ${new Date(p.not_before).toISOString().slice(0, 16)}Z (in ${formatAge(new Date(nowMs).toISOString(), Date.parse(p.not_before))})`
    : "due now";
  return `${p.platform} deferred (${p.deferred_reason ?? "?"}) ${until}`;
}

/** The detail view of one run, as lines. Pure, for tests. */
export function formatRunStatus(status: RunStatus, nowMs: number, width?: number): string[] {
  const { run } = status;
  const started = run.created_at;
  const finished = run.finished_at;
  const lines = [
    `run ${run.id}  ${run.status}`,
    `  ${[run.trigger_kind, run.run_date].filter(Boolean).join(" run of ")}` +
    `${started ? `, started ${formatAge(started, nowMs)} ago` : ""}${finished ? `, ended ${formatAge(finished, nowMs)} ago` : ""}`,
  ];
  if (run.error) lines.push(`  error: ${run.error}`);

  lines.push("");
  if (status.dimensions.length === 0) {
    lines.push("no dimensions in this run");
  } else {
    lines.push(...formatTable(
      ["dimension", "ingest", "topics", "units"],
      status.dimensions.map((d) => [d.dimension_id, d.status, String(d.topics_seen), String(d.units_created)]),
      width,
    ));
  }

  lines.push("");
  if (status.units.length === 0) {
    lines.push("no work units yet");
  } else {
    lines.push(...formatTable(
      ["unit", "dimension", "stage", "detail", "quality", "updated", "title / error"],
      status.units.map((u) => {
        const published = u.publications.filter((p) => p.status === "published")
          .map((p) => `${p.platform} ${p.external_id ?? ""}${p.privacy_status && p.privacy_status !== "public" ? ` (${p.privacy_status})` : ""}`.trim());
        const deferred = u.publications.filter((p) => p.status === "deferred").map((p) => formatDeferral(p, nowMs));
        const skipped = u.publications.filter((p) => p.status === "skipped").map((p) => `${p.platform} skipped (${p.skip_reason ?? "no reason recorded"})`);
        const detail = u.stage === "media"
          ? `scenes ${u.scenes_ready}/${u.scenes_total}`
          : published.length + deferred.length + skipped.length > 0
          ? [...published, ...deferred, ...skipped].join(", ")
          : u.video
          ? `video ${u.video.duration_s.toFixed(1)}s`
          : "-";
        const text = ["failed", "rejected"].includes(u.stage) && u.error ? u.error : u.title ?? "";
        return [u.id.slice(0, 8), u.dimension_id, u.stage, detail, formatQuality(u.quality), formatAge(u.updated_at, nowMs), text];
      }),
      width,
    ));
  }
  return lines;
}

/**
 * The figures fetched for a run's published videos (YouTube Analytics', TikTok's), as lines (none
 * before the first fetch); a figure the platform does not report shows as "-". Pure, for tests.
 */
export function formatRunAnalytics(analytics: RunVideoAnalytics[], nowMs: number, width?: number): string[] {
  if (analytics.length === 0) return [];
  const dash = (value: number | null, show: (v: number) => string = String) => value === null ? "-" : show(value);
  return [
    "",
    ...formatTable(
      ["unit", "video", "window", "views", "engaged views", "avg % viewed", "avg duration", "likes", "comments", "shares", "fetched"],
      analytics.map((a) => [
        a.unit_id.slice(0, 8),
        `${a.platform} ${a.channel_handle} ${a.external_id ?? ""}`.trim(),
        `day ${a.window_days}`,
        String(a.views),
        dash(a.engaged_views),
        dash(a.average_view_percentage, (v) => `${v.toFixed(1)}%`),
        dash(a.average_view_duration_s, (v) => `${v.toFixed(0)}s`),
        String(a.likes),
        dash(a.comments),
        dash(a.shares),
        `${formatAge(a.fetched_at, nowMs)} ago`,
      ]),
      width,
    ),
  ];
}

/** The recent runs, as table lines. Pure, for tests. */
function formatRunList(runs: RunSummary[], nowMs: number, width?: number): string[] {
  if (runs.length === 0) return ["no runs yet"];
  return formatTable(
    ["run", "status", "trigger", "date", "started", "ended", "error"],
    runs.map((
      r,
    ) => [
      r.id,
      r.status,
      r.trigger_kind,
      r.run_date,
      `${formatAge(r.created_at, nowMs)} ago`,
      r.finished_at ? `${formatAge(r.finished_at, nowMs)} ago` : "-",
      r.error ?? "",
    ]),
    width,
  );
}

export async function statusCommand(
  command: { run: string | null; list: boolean; limit: number; json: boolean },
  api: ApiClient,
  ctx: CommandContext,
): Promise<number> {
  if (command.list) {
    const { runs } = await api.listRuns(command.limit);
    if (command.json) printJson(ctx.out, runs);
    else printLines(ctx.out, formatRunList(runs, ctx.now(), ctx.out.columns || undefined));
    return EXIT.ok;
  }
  let runId = command.run;
  if (runId === null) {
    const { runs } = await api.listRuns(1);
    if (runs.length === 0) throw new CliError("no runs yet: start one with `mdame run`", EXIT.notFound);
    runId = runs[0]!.id;
  }
  const status = await api.runStatus(runId);
  const { analytics } = await api.runAnalytics(runId);
  if (command.json) printJson(ctx.out, { ...status, analytics });
  else {printLines(ctx.out, [
      ...formatRunStatus(status, ctx.now(), ctx.out.columns || undefined),
      ...formatRunAnalytics(analytics, ctx.now(), ctx.out.columns || undefined),
    ]);}
  return EXIT.ok;
}
