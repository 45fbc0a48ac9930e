/**
 * The scale bench's day. The engine clock (mdame.set_engine_clock) runs from the engine day's
 * start, a UTC midnight two days ahead, at 1440/M engine minutes per wall minute, and the
 * emulator's clock with it. pg_cron's minutely `mdame-scheduled-runs` reads now(), the wall clock,
 * so it cannot follow the moved one: the bench plays that job on the engine clock, calling the same
 * trigger (`mdame.trigger_due_runs(mdame.engine_now())`) every wall second. Everything else is the
 * stack's own: pg_cron's other jobs, the wake path to the edge host's tick, the stage runner, pgmq
 * and the media workers' callbacks.
 *
 * While the day runs it samples every second (runs in status running, the edge host's CPU, the
 * database's) and prints units by stage every 15 s; it ends once the day is over and every unit
 * has ended (published, rejected, failed; or deferred to a later day), at the timeout, or on
 * SIGINT/SIGTERM, and reports what it has.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem, type as osType } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { LOCAL_DB_URL, LOCAL_STACK } from "../../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../../shared/db/client.ts";
import * as db from "../../../stack/db.ts";
import { logFile, paths } from "../../../stack/paths.ts";
import { localStackEnv } from "../../../stack/stack-env.ts";
import { type StackHandle, startStack } from "../../../stack/stack-control.ts";
import { cleanSlate, componentPid } from "../../soak/processes.ts";
import { replaceBlock } from "../doc-blocks.ts";
import type { ScaleOptions } from "./args.ts";
import { EdgeCpuWindows, requestCpuFromLog, treeCpuMs } from "./cpu.ts";
import { lateness, maxConcurrent, percentile, type ScaleFigures, summaryLine } from "./figures.ts";
import { type MediaWorkers, preRender, startMediaWorkers } from "./media.ts";
import { offeredLoad, planScaleDimensions, type ScalePlan } from "./plan.ts";
import { setUpScaleDimensions } from "./setup.ts";
import { BENCHMARKS_DOC } from "../../docs/doc-paths.ts";

const DAY_MS = 86_400_000;
const PROGRESS_MS = 15_000;
const TERMINAL = ["published", "rejected", "failed", "deferred"];

const t0 = Date.now();
const say = (line: string) => console.log(`[scale ${((Date.now() - t0) / 1000).toFixed(0).padStart(5)}s] ${line}`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Maps the wall clock to the engine's while the day runs. */
class EngineClock {
  readonly speed: number;
  startedAt = 0;

  constructor(readonly dayStart: number, dayMinutes: number) {
    this.speed = (24 * 60) / dayMinutes;
  }

  /** The engine time at wall time `wall`, held at the day's end once it is reached. */
  at(wall: number): number {
    return Math.min(this.dayStart + DAY_MS, this.dayStart + (wall - this.startedAt) * this.speed);
  }

  /** The wall time at which the engine clock reaches `minute` of the day. */
  wallAt(minute: number): number {
    return this.startedAt + (minute * 60_000) / this.speed;
  }

  over(wall: number): boolean {
    return this.at(wall) >= this.dayStart + DAY_MS;
  }
}

/** YouTube's quota day, upload windows and publishAt follow the engine clock on the emulator too. */
async function setEmulatorClock(env: Record<string, string>, offsetMs: number): Promise<void> {
  const response = await fetch(`${env.EMULATOR_URL}/_emulator/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ offset_ms: Math.round(offsetMs) }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok) throw new Error(`the emulator refused its clock: ${response.status} ${await response.text()}`);
  await response.body?.cancel();
}

async function unitsByStage(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql`select stage, count(*)::int as n from mdame.work_units where dimension_id like 'scale-%' group by stage`;
  return Object.fromEntries(rows.map((r) => [r.stage as string, r.n as number]));
}

interface Sampled {
  maxRunning: number;
  triggered: number;
}

/** Runs the compressed day; resolves with why it ended. */
async function driveDay(
  sql: Sql,
  env: Record<string, string>,
  plan: ScalePlan,
  clock: EngineClock,
  options: ScaleOptions,
  edge: EdgeCpuWindows,
  sampled: Sampled,
  stopped: () => boolean,
): Promise<"done" | "timeout" | "interrupted"> {
  const deadline = t0 + options.timeoutMinutes * 60_000;
  let lastProgress = 0;
  let lastEmulatorClock = 0;
  let clockBehindSince: number | null = null;
  clock.startedAt = Date.now();
  for (;;) {
    const now = Date.now();
    if (stopped()) return "interrupted";
    if (now > deadline) return "timeout";
    const offsetMs = clock.at(now) - now;
    if (!clock.over(now) || sampled.triggered < plan.dimensions.length) {
      await sql`select mdame.set_engine_clock(make_interval(secs => ${offsetMs / 1000}))`;
      const started = await sql`select run_id, created from mdame.trigger_due_runs(mdame.engine_now())`;
      if (started.some((r) => r.created)) {
        const [row] = await sql`select count(distinct rd.dimension_id)::int as n from mdame.run_dimensions rd where rd.dimension_id like 'scale-%'`;
        sampled.triggered = row!.n as number;
      }
    }
    if (now - lastEmulatorClock > 5_000) {
      // The emulator also serves the media workers' Storage: under a burst it may answer late. A
      // late clock call is tried again on the next pass; only a clock it refuses for a minute ends the bench.
      try {
        await setEmulatorClock(env, offsetMs);
        lastEmulatorClock = now;
        if (clockBehindSince !== null) say(`the emulator took its clock again after ${((now - clockBehindSince) / 1000).toFixed(0)} s`);
        clockBehindSince = null;
      } catch (error) {
        if (clockBehindSince === null) {
          clockBehindSince = now;
          say(`the emulator did not take its clock (${(error as Error).message}); trying again`);
        } else if (now - clockBehindSince > 60_000) throw error;
      }
    }
    edge.sample();
    const [running] = await sql`select count(*)::int as n from mdame.pipeline_runs where status = 'running'`;
    sampled.maxRunning = Math.max(sampled.maxRunning, running!.n as number);
    const stages = await unitsByStage(sql);
    const open = Object.entries(stages).filter(([s]) => !TERMINAL.includes(s)).reduce((sum, [, n]) => sum + n, 0);
    if (now - lastProgress >= PROGRESS_MS) {
      const engine = new Date(clock.at(now)).toISOString().slice(11, 16);
      say(
        `engine ${engine} | started ${sampled.triggered}/${plan.dimensions.length} | runs running ${running!.n} | units ${
          Object.entries(stages).map(([s, n]) => `${s} ${n}`).join(", ") || "none yet"
        }`,
      );
      lastProgress = now;
    }
    if (clock.over(now) && sampled.triggered >= plan.dimensions.length && open === 0) return "done";
    await sleep(1_000);
  }
}

const ENDED_BY = { done: "the day's end, every unit ended", timeout: "the timeout", interrupted: "an interruption" } as const;

interface Collected {
  figures: ScaleFigures;
  /** Why units failed: each distinct error with its count, most frequent first. */
  failures: string[];
  edgeSource: string;
  /** Edge CPU per unit: every per-request cpu_ms of the day over the units (null without those lines). */
  edgeCpuMsPerUnit: number | null;
  /** Wall seconds from each dimension's due moment to its run's start, over the dimensions that started. */
  startLag: { started: number; p99S: number | null; maxS: number | null };
  rejected: number;
  deferred: number;
  open: number;
  wallS: number;
}

async function collect(
  sql: Sql,
  plan: ScalePlan,
  clock: EngineClock,
  media: MediaWorkers,
  edge: EdgeCpuWindows,
  edgeLogFrom: number,
  sampled: Sampled,
  dbCpuMs: number,
  endedAt: number,
): Promise<Collected> {
  const units = await sql`
    select u.id, u.dimension_id, u.stage, u.error,
           -- The event's time is the wall clock's (now()); publications.published_at follows the engine's.
           (select min(e.created_at) from mdame.events e
             where e.unit_id = u.id and e.kind = 'stage_entered' and e.stage = 'published') as published_at
      from mdame.work_units u where u.dimension_id like 'scale-%'`;
  const due = new Map(plan.dimensions.map((d) => [d.id, clock.wallAt(d.due_minute)]));
  const late = units.filter((u) => u.stage === "published" && u.published_at)
    .map((u) => lateness(due.get(u.dimension_id as string)!, (u.published_at as Date).getTime(), media.time.of(u.id as string)));
  const runs = await sql`
    select r.created_at, r.finished_at from mdame.pipeline_runs r
     where exists (select 1 from mdame.run_dimensions rd where rd.run_id = r.id and rd.dimension_id like 'scale-%')`;
  // The run that took each dimension's day, against the moment the engine clock passed its start time.
  const starts = await sql`
    select rd.dimension_id, min(r.created_at) as started_at from mdame.run_dimensions rd
      join mdame.pipeline_runs r on r.id = rd.run_id
     where rd.dimension_id like 'scale-%' group by rd.dimension_id`;
  const lags = starts.map((s) => Math.max(0, ((s.started_at as Date).getTime() - due.get(s.dimension_id as string)!) / 1000));
  const overlapping = maxConcurrent(
    runs.map((r) => ({ start: (r.created_at as Date).getTime(), end: (r.finished_at as Date | null)?.getTime() ?? null })),
    endedAt,
  );
  const wallS = (endedAt - clock.startedAt) / 1000;
  const [transitions] = await sql`
    select count(*)::int as n from mdame.events e
     where e.kind = 'stage_entered' and e.created_at >= ${new Date(clock.startedAt)} and e.unit_id is not null`;
  let requestCpu: number[] = [];
  const edgeLog = logFile("edge");
  if (existsSync(edgeLog)) requestCpu = requestCpuFromLog(readFileSync(edgeLog, "utf8").slice(edgeLogFrom));
  const edgeValues = requestCpu.length > 0 ? requestCpu : edge.windows;
  const edgeSource = requestCpu.length > 0
    ? `cpu_ms of the edge host's ${requestCpu.length} per-request log lines`
    : `its process tree's CPU in ${edge.windows.length} one-second windows from /proc (the edge host's log has no per-request line from the day): an upper bound per request`;
  const count = (stage: string) => units.filter((u) => u.stage === stage).length;
  const reasons = new Map<string, number>();
  for (const u of units.filter((u) => u.stage === "failed")) {
    const reason = String(u.error ?? "no error recorded").slice(0, 200);
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  return {
    failures: [...reasons].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `${n} x ${reason}`),
    figures: {
      dimensions: plan.dimensions.length,
      units: units.length,
      published: count("published"),
      failed: count("failed"),
      late_p50_s: percentile(late, 50),
      late_p99_s: percentile(late, 99),
      max_concurrent_runs: Math.max(overlapping, sampled.maxRunning),
      transitions_per_s: wallS > 0 ? (transitions!.n as number) / wallS : 0,
      edge_cpu_p99_ms: percentile(edgeValues, 99),
      edge_cpu_max_ms: edgeValues.length ? Math.max(...edgeValues) : null,
      db_cpu_ms_per_unit: units.length ? dbCpuMs / units.length : null,
    },
    edgeSource,
    edgeCpuMsPerUnit: requestCpu.length > 0 && units.length > 0 ? requestCpu.reduce((a, b) => a + b, 0) / units.length : null,
    startLag: { started: starts.length, p99S: percentile(lags, 99), maxS: lags.length ? Math.max(...lags) : null },
    rejected: count("rejected"),
    deferred: count("deferred"),
    open: units.filter((u) => !TERMINAL.includes(u.stage as string)).length,
    wallS,
  };
}

function writeDocBlock(options: ScaleOptions, result: Collected, ended: keyof typeof ENDED_BY, line: string): void {
  const f = result.figures;
  const block = [
    "<!-- scale:start -->",
    "## Scale: one engine day of N dimensions",
    "",
    `Measured ${
      new Date().toISOString().slice(0, 16).replace("T", " ")
    } UTC with \`npm run bench:scale -- --dimensions ${options.dimensions} --day-minutes ${options.dayMinutes}\` on ${osType()} ${release()}, ${cpus().length} × ${
      cpus()[0]?.model.trim() ?? "unknown CPU"
    }, ${Math.round(totalmem() / 2 ** 30)} GiB, Bun ${process.versions.bun ?? "?"}; load average at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")}.`,
    `The control plane only: the media workers answer from pre-rendered clips (the render bench measures renders). Offered load ${
      offeredLoad(options.dimensions, options.dayMinutes).toFixed(2)
    } units per wall minute; the day ended by ${ENDED_BY[ended]} after ${result.wallS.toFixed(0)} s (docs/reference/scale.md explains each figure).`,
    "",
    "| figure | value |",
    "|---|---|",
    `| units (published / failed / rejected / deferred / still open) | ${f.units} (${f.published} / ${f.failed} / ${result.rejected} / ${result.deferred} / ${result.open}) |`,
    `| lateness p50 / p99, due to published less media time | ${f.late_p50_s?.toFixed(1) ?? "na"} s / ${f.late_p99_s?.toFixed(1) ?? "na"} s |`,
    `| runs running at once, at most | ${f.max_concurrent_runs} |`,
    `| stage transitions per wall second | ${f.transitions_per_s.toFixed(2)} |`,
    `| edge CPU per request p99 / max | ${f.edge_cpu_p99_ms?.toFixed(0) ?? "na"} ms / ${f.edge_cpu_max_ms?.toFixed(0) ?? "na"} ms (${result.edgeSource}) |`,
    `| database CPU per unit | ${f.db_cpu_ms_per_unit?.toFixed(0) ?? "na"} ms |`,
    `| edge CPU per unit, every request of the day | ${result.edgeCpuMsPerUnit?.toFixed(0) ?? "na"} ms |`,
    `| runs started after their due moment, p99 / max (wall) | ${result.startLag.p99S?.toFixed(1) ?? "na"} s / ${
      result.startLag.maxS?.toFixed(1) ?? "na"
    } s (${result.startLag.started} of ${f.dimensions} started) |`,
    ...(result.failures.length ? ["", `Failed units: ${result.failures.join("; ")}.`] : []),
    "",
    "```",
    line,
    "```",
    "<!-- scale:end -->",
    "",
  ].join("\n");
  const file = BENCHMARKS_DOC;
  writeFileSync(file, replaceBlock(readFileSync(file, "utf8"), "scale", block));
  say("written to docs/reports/benchmarks.md (its scale block)");
}

async function startBenchStack(): Promise<StackHandle> {
  // The bench's YouTube counts for itself as the real one does, with buckets no day of the bench
  // spends: quota and caps are the distribution docs' subject, not the control plane's.
  Object.assign(process.env, {
    MDAME_EMULATE: "all",
    EMULATOR_YOUTUBE_INSERT_CALLS_PER_DAY: "1000000",
    EMULATOR_YOUTUBE_UNITS_PER_DAY: "100000000",
  });
  try {
    const stack = await startStack({ quiet: true, only: ["db", "emulators", "edge", "net"], timeoutMs: 180_000 });
    if (!stack.owned) {
      throw new Error("a stack was already running in .local/bench; the bench needs one of its own (stop it: MDAME_LOCAL_DIR=.local/bench npm run clean)");
    }
    return stack;
  } catch (error) {
    throw new Error(
      `the bench's stack could not start (${paths.local}, ports ${LOCAL_STACK.dbPort}/${LOCAL_STACK.edgePort}/${LOCAL_STACK.emulatorPort}; its logs are in ${paths.logs}): ${
        (error as Error).message
      }`,
    );
  }
}

export async function runScaleBench(options: ScaleOptions): Promise<number> {
  const dayStart = Math.floor(Date.now() / DAY_MS) * DAY_MS + 2 * DAY_MS;
  const plan = planScaleDimensions(options.dimensions, options.seed, new Date(dayStart));
  const burst = plan.dimensions.filter((d) => d.burst).length;
  say(
    `${options.dimensions} dimensions in ${new Set(plan.dimensions.map((d) => d.language)).size} languages and ${
      new Set(plan.dimensions.map((d) => d.time_zone)).size
    } time zones; ${burst} due together at minute ${plan.burst_minute} of the day, the others spread over it`,
  );
  say(
    `one engine day in ${options.dayMinutes} wall minutes: offered load ${
      offeredLoad(options.dimensions, options.dayMinutes).toFixed(2)
    } units per minute; timeout ${options.timeoutMinutes} min`,
  );
  say("this measures the control plane: the media workers answer from pre-rendered clips (the render bench measures renders)");
  say(`its own stack: ${paths.local} on ports ${LOCAL_STACK.dbPort} (db), ${LOCAL_STACK.edgePort} (edge), ${LOCAL_STACK.emulatorPort} (emulators), reset now`);

  let interrupted = false;
  const onSignal = (signal: string) => {
    if (!interrupted) say(`${signal}: stopping; the report covers what was done`);
    interrupted = true;
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const clips = await preRender(join(paths.local, "clips"));
  try {
    await cleanSlate(say);
  } catch (error) {
    await db.stop(() => {}).catch(() => {});
    throw new Error(`the bench's database could not be reset (${paths.local}, port ${LOCAL_STACK.dbPort}): ${(error as Error).message}`);
  }
  if (interrupted) return 3;
  const stack = await startBenchStack();
  const sql = createSql(LOCAL_DB_URL, { max: 2, application: "mdame-bench-scale" });
  let media: MediaWorkers | null = null;
  try {
    const env = localStackEnv();
    await setUpScaleDimensions(sql, env, plan, say);
    if (interrupted) return 3;
    media = startMediaWorkers({ env, clips, visualConcurrency: 4, renderConcurrency: 2, logFile: logFile("bench-media") });
    const clock = new EngineClock(dayStart, options.dayMinutes);
    const edge = new EdgeCpuWindows(() => componentPid("edge"));
    const edgeLogFrom = existsSync(logFile("edge")) ? statSync(logFile("edge")).size : 0;
    const postmaster = () => db.runningPostmasterPid();
    const dbCpuBefore = treeCpuMs(postmaster() ?? -1);
    const sampled: Sampled = { maxRunning: 0, triggered: 0 };
    const ended = await driveDay(sql, env, plan, clock, options, edge, sampled, () => interrupted);
    const endedAt = Date.now();
    const dbCpuMs = treeCpuMs(postmaster() ?? -1) - dbCpuBefore;
    const result = await collect(sql, plan, clock, media, edge, edgeLogFrom, sampled, dbCpuMs, endedAt);
    say(`ended by ${ENDED_BY[ended]} after ${result.wallS.toFixed(0)} s of day`);
    say(
      `units: ${result.figures.published} published, ${result.figures.failed} failed, ${result.rejected} rejected, ${result.deferred} deferred, ${result.open} still open`,
    );
    say(`edge CPU per request from ${result.edgeSource}; per unit ${result.edgeCpuMsPerUnit?.toFixed(0) ?? "na"} ms over the day`);
    say(
      `runs: ${result.startLag.started} of ${options.dimensions} started, p99 ${result.startLag.p99S?.toFixed(1) ?? "na"} s and at most ${
        result.startLag.maxS?.toFixed(1) ?? "na"
      } s (wall) after their due moment`,
    );
    for (const failure of result.failures) say(`failed: ${failure}`);
    const line = summaryLine(result.figures);
    if (options.write) writeDocBlock(options, result, ended, line);
    console.log(line);
    if (ended !== "done") return 3;
    // A rejection is the engine's decision about a topic, not a failure of the control plane.
    return result.figures.failed === 0 && result.open === 0 && result.figures.units === options.dimensions ? 0 : 1;
  } finally {
    await media?.stop().catch((error) => say(`stopping the media workers: ${(error as Error).message}`));
    await sql`select mdame.set_engine_clock(null)`.catch(() => {});
    await sql.end({ timeout: 2 }).catch(() => {});
    await stack.stop();
    say("the bench's stack is stopped");
  }
}
