/**
 * Orchestration throughput: how fast the engine's own RPCs move stage tasks. N work units wait at
 * stage `safety`, each with one queued `safety` task; C consumers, each on its own connection, loop
 * claim (`mdame.claim_stage_tasks`) -> complete (`mdame.record_safety_verdict`, which archives the
 * message and enqueues the unit's `plan` task in the same transaction). In the same run, the same
 * consumers drain a throwaway pgmq queue of N messages with a bare read + archive loop: the
 * baseline the transitions are compared with.
 *
 *   bun scripts/bench/queue-transitions.ts [--jobs 10000] [--consumers 8] [--batch 10]
 *
 * Resets the database before each measurement and once more at the end (an empty engine).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import process from "node:process";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { StageTask } from "../../shared/contracts/queue.ts";
import { claimStageTasks, enqueueStageTask } from "../../shared/db/rpc/stage-tasks.ts";
import { recordSafetyVerdict } from "../../shared/db/rpc/work-units.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import * as db from "../../stack/db.ts";

/** Throughput and claim-to-complete latency of one consumer phase. */
export interface PhaseFigures {
  completed: number;
  wallS: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * CPU time the consumers' Postgres backends spent per message, from /proc (the cluster is local):
   * unlike the rate, it hardly moves when other programs share the cores. Null where /proc is absent.
   */
  serverCpuMsPerMessage: number | null;
}

/** What the database holds after the transition phase; `assertTransitionChecks` says what must hold. */
export interface TransitionChecks {
  /** Messages handed out by the claims, and how many of them were distinct. */
  claims: number;
  distinctClaims: number;
  unitsAtPlan: number;
  unitsElsewhere: number;
  planTasksQueued: number;
  planTasksDistinctUnits: number;
  safetyTasksLeft: number;
  safetyAuditRows: number;
  safetyAuditDistinctUnits: number;
  /** Archived safety tasks, and those read exactly once (a second read would be a second delivery). */
  safetyArchived: number;
  safetyArchivedReadOnce: number;
}

export interface BaselineChecks {
  claims: number;
  distinctClaims: number;
  left: number;
  archived: number;
  archivedReadOnce: number;
}

/** One claim size: the engine's transitions and the raw pgmq baseline, measured back to back. */
export interface ModeResult {
  /** Messages asked for per claim (`p_qty` / pgmq.read's qty). */
  claimQty: number;
  transitions: PhaseFigures;
  baseline: PhaseFigures;
  /** transitions/s ÷ baseline msgs/s. */
  ratio: number;
  targetMet: boolean;
  checks: TransitionChecks;
  baselineChecks: BaselineChecks;
}

export interface QueueBenchResult {
  jobs: number;
  consumers: number;
  /** Claim size 1: the headline figures. */
  single: ModeResult;
  /** Claims of `batchSize` messages, each still completed by its own RPC call; null when not run. */
  batched: ModeResult | null;
  /** The target, judged on the headline figures. */
  targetMet: boolean;
  /** The `## Orchestration: stage transitions` section of docs/reports/benchmarks.md. */
  markdown: string[];
}

export interface QueueBenchOptions {
  jobs?: number;
  consumers?: number;
  /** Claim size of the second mode; 0 or 1 skips it. Default 10. */
  batchSize?: number;
  log?: (line: string) => void;
}

export const TARGET_TRANSITIONS_PER_S = 1000;
export const TARGET_BASELINE_RATIO = 0.5;

const VISIBILITY_TIMEOUT_S = 30;
const RAW_QUEUE = "bench_raw";
const DIMENSION = "tech-explained";

/** One message handed to a consumer by a claim. */
interface Claimed {
  msgId: string;
  readCt: number;
  message: unknown;
  leaseHolder: string | null;
}

/** How one phase claims and completes; `complete` throws when the message was not what it should be. */
interface PhaseSteps {
  claim(sql: Sql, worker: string, qty: number): Promise<Claimed[]>;
  complete(sql: Sql, claimed: Claimed): Promise<void>;
}

const engineSteps: PhaseSteps = {
  async claim(sql, worker, qty) {
    const rows = await claimStageTasks(sql, worker, qty, VISIBILITY_TIMEOUT_S);
    // As the stage runner reads a claim; every step here is new, so none may have a stored result.
    const replayed = rows.find((r) => r.completed_result !== null);
    if (replayed) throw new Error(`claimed message ${replayed.msg_id} reports a completed step: the benchmark's steps must all be new`);
    return rows.map((r) => ({ msgId: String(r.msg_id), readCt: r.read_ct, message: r.message, leaseHolder: r.lease_holder }));
  },
  async complete(sql, claimed) {
    const task = StageTask.parse(claimed.message);
    if (task.stage !== "safety" || !("unit_id" in task)) {
      throw new Error(`claimed message ${claimed.msgId} is a ${task.stage} task, not a safety task: the benchmark would consume work it did not set up`);
    }
    if (claimed.leaseHolder === null) throw new Error(`claimed message ${claimed.msgId} has no lease holder`);
    const unit = await recordSafetyVerdict(sql, { msgId: Number(claimed.msgId), holder: claimed.leaseHolder, stepToken: task.step_token }, {
      unitId: task.unit_id,
      allowed: true,
      reasons: [],
      classifier: "bench",
    });
    if (unit?.stage !== "plan") {
      throw new Error(
        `record_safety_verdict left unit ${task.unit_id} at ${unit?.stage ?? "(no row)"}, not plan (message ${claimed.msgId}, lease ${claimed.leaseHolder})`,
      );
    }
  },
};

const baselineSteps: PhaseSteps = {
  async claim(sql, _worker, qty) {
    const rows = await sql`select msg_id, read_ct, message from pgmq.read(${RAW_QUEUE}::text, ${VISIBILITY_TIMEOUT_S}::integer, ${qty}::integer)`;
    return rows.map((r) => ({ msgId: String(r.msg_id), readCt: Number(r.read_ct), message: r.message, leaseHolder: null }));
  },
  async complete(sql, claimed) {
    const [row] = await sql`select pgmq.archive(${RAW_QUEUE}::text, ${claimed.msgId}::bigint) as archived`;
    if (row?.archived !== true) throw new Error(`pgmq.archive found no message ${claimed.msgId} in ${RAW_QUEUE}`);
  },
};

/** Linux reports process times in clock ticks of 1/100 s. */
const CLOCK_TICKS_PER_S = 100;

/** User + system CPU seconds of the given processes so far, or null when /proc cannot tell. */
function processCpuSeconds(pids: number[]): number | null {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      return null;
    }
    // Fields after the parenthesised command name: state is the 3rd field, utime the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / CLOCK_TICKS_PER_S;
}

async function backendPids(connections: Sql[]): Promise<number[]> {
  return await Promise.all(connections.map(async (sql) => Number((await sql`select pg_backend_pid() as pid`)[0]!.pid)));
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface PhaseOutcome {
  figures: PhaseFigures;
  claims: number;
  distinctClaims: number;
}

/**
 * Runs the consumers until `total` messages are completed. Claims are reserved before they are
 * made, so at most as many messages are asked for as remain: a claim never reaches past the
 * messages set up (the `plan` tasks the transitions enqueue sit in the same queue).
 */
async function runPhase(
  label: string,
  connections: Sql[],
  steps: PhaseSteps,
  total: number,
  qty: number,
  log: (line: string) => void,
): Promise<PhaseOutcome> {
  const latencies = new Float64Array(total);
  const seen = new Set<string>();
  let claims = 0;
  let reserved = 0;
  let completed = 0;
  let failure: unknown = null;

  const consume = async (sql: Sql, index: number) => {
    const worker = `bench-${index}`;
    while (failure === null) {
      const want = Math.min(qty, total - reserved);
      if (want <= 0) return;
      reserved += want;
      const claimStarted = performance.now();
      const rows = await steps.claim(sql, worker, want);
      reserved -= want - rows.length;
      if (rows.length === 0) return;
      for (const row of rows) {
        claims++;
        seen.add(row.msgId);
        await steps.complete(sql, row);
        latencies[completed++] = performance.now() - claimStarted;
      }
    }
  };

  const pids = await backendPids(connections);
  const cpuBefore = processCpuSeconds(pids);
  let lastCount = 0;
  let lastAt = performance.now();
  const started = performance.now();
  const progress = setInterval(() => {
    const now = performance.now();
    log(`${label}: ${completed}/${total} done, ${Math.round((completed - lastCount) / ((now - lastAt) / 1000))}/s now`);
    lastCount = completed;
    lastAt = now;
  }, 1000);
  try {
    const outcomes = await Promise.allSettled(connections.map((sql, i) =>
      consume(sql, i).catch((error) => {
        failure ??= error;
        throw error;
      })
    ));
    const wallS = (performance.now() - started) / 1000;
    const cpuAfter = processCpuSeconds(pids);
    if (failure !== null) throw failure;
    const rejected = outcomes.find((o) => o.status === "rejected");
    if (rejected) throw (rejected as PromiseRejectedResult).reason;
    if (completed !== total) throw new Error(`${label}: the consumers stopped after ${completed} of ${total} messages (the queue ran dry early)`);
    const sorted = latencies.slice(0, completed).sort();
    const serverCpuMsPerMessage = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1000) / completed;
    const figures = { completed, wallS, perSecond: completed / wallS, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), serverCpuMsPerMessage };
    log(
      `${label}: ${completed} in ${wallS.toFixed(2)} s = ${figures.perSecond.toFixed(0)}/s, p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${
        figures.p99Ms.toFixed(2)
      } ms` +
        (serverCpuMsPerMessage === null ? "" : `, server CPU ${serverCpuMsPerMessage.toFixed(2)} ms/message`),
    );
    return { figures, claims, distinctClaims: seen.size };
  } finally {
    clearInterval(progress);
  }
}

/**
 * One pipeline run with `jobs` work units at stage safety, each with its safety task queued through
 * the engine's own enqueue_stage_task. Returns the run id.
 */
async function setUpSafetyBacklog(sql: Sql, jobs: number): Promise<string> {
  const runId = await sql.begin(async (tx) => {
    const [setting] = await tx`select value from mdame.settings where key = 'env'`;
    if (!setting) throw new Error("mdame.settings has no env: was the database seeded?");
    const [run] = await tx`
      insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
      values (${`bench:queue-transitions:${Date.now()}`}, ${setting.value}, current_date, 'manual')
      returning id`;
    const runId = run!.id as string;
    await tx`
      insert into mdame.run_dimensions (run_id, dimension_id, status, topics_seen, units_created)
      values (${runId}, ${DIMENSION}, 'ingested', ${jobs}, ${jobs})`;
    await tx`
      insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, stage_deadline, script)
      select ${runId}, ${DIMENSION},
             encode(sha256(convert_to(${DIMENSION} || ':' || f.fingerprint || ':video', 'UTF8')), 'hex'),
             f.fingerprint,
             jsonb_build_object('title', 'Benchmark topic ' || g, 'context', jsonb_build_array('How queues hand out work, part ' || g),
                                'approx_traffic', 1000 + g, 'score', 0.5),
             'safety',
             now() + make_interval(secs => (select deadline_s from mdame.stage_policies where stage = 'safety')),
             jsonb_build_object(
               'title', 'How a work queue hands out job ' || g,
               'hook', 'Ever wondered who decides which worker gets job ' || g || '?',
               'narration', 'Ever wondered who decides which worker gets job ' || g || '? ' || repeat('A queue hides each message it hands out for a while, and the worker that finishes it archives it in the same transaction that records the result. ', 4),
               'description', 'A short explainer on work queues, number ' || g || '.',
               'hashtags', jsonb_build_array('#queues', '#postgres'))
        from generate_series(1, ${jobs}::integer) as g,
             lateral (select encode(sha256(convert_to('bench-topic-' || g, 'UTF8')), 'hex') as fingerprint) as f`;
    return runId;
  });
  // One connection, the calls pipelined in unit_key order: the queue holds the tasks in that order.
  const connection = await sql.reserve();
  try {
    const units = await connection`select id from mdame.work_units where run_id = ${runId} order by unit_key`;
    await Promise.all(units.map((u) => enqueueStageTask(connection, { stage: "safety", runId, unitId: u.id as string })));
  } finally {
    connection.release();
  }
  return runId;
}

async function transitionChecks(sql: Sql, runId: string, outcome: PhaseOutcome): Promise<TransitionChecks> {
  const [row] = await sql`
    select
      (select count(*) from mdame.work_units where run_id = ${runId} and stage = 'plan')::int as units_at_plan,
      (select count(*) from mdame.work_units where run_id = ${runId} and stage <> 'plan')::int as units_elsewhere,
      (select count(*) from pgmq.q_stage_tasks where message->>'run_id' = ${runId} and message->>'stage' = 'plan')::int as plan_queued,
      (select count(distinct message->>'unit_id') from pgmq.q_stage_tasks where message->>'run_id' = ${runId} and message->>'stage' = 'plan')::int as plan_units,
      (select count(*) from pgmq.q_stage_tasks where message->>'stage' = 'safety')::int as safety_left,
      (select count(*) from mdame.safety_audit_logs where run_id = ${runId} and subject = 'script')::int as audit_rows,
      (select count(distinct unit_id) from mdame.safety_audit_logs where run_id = ${runId} and subject = 'script')::int as audit_units,
      (select count(*) from pgmq.a_stage_tasks where message->>'run_id' = ${runId} and message->>'stage' = 'safety')::int as archived,
      (select count(*) from pgmq.a_stage_tasks where message->>'run_id' = ${runId} and message->>'stage' = 'safety' and read_ct = 1)::int as archived_once`;
  return {
    claims: outcome.claims,
    distinctClaims: outcome.distinctClaims,
    unitsAtPlan: row!.units_at_plan,
    unitsElsewhere: row!.units_elsewhere,
    planTasksQueued: row!.plan_queued,
    planTasksDistinctUnits: row!.plan_units,
    safetyTasksLeft: row!.safety_left,
    safetyAuditRows: row!.audit_rows,
    safetyAuditDistinctUnits: row!.audit_units,
    safetyArchived: row!.archived,
    safetyArchivedReadOnce: row!.archived_once,
  };
}

/** Throws, naming every figure that is off, unless each of the `jobs` units moved exactly once. */
export function assertTransitionChecks(checks: TransitionChecks, jobs: number): void {
  const expected: Record<keyof TransitionChecks, number> = {
    claims: jobs,
    distinctClaims: jobs,
    unitsAtPlan: jobs,
    unitsElsewhere: 0,
    planTasksQueued: jobs,
    planTasksDistinctUnits: jobs,
    safetyTasksLeft: 0,
    safetyAuditRows: jobs,
    safetyAuditDistinctUnits: jobs,
    safetyArchived: jobs,
    safetyArchivedReadOnce: jobs,
  };
  const off = (Object.keys(expected) as (keyof TransitionChecks)[]).filter((k) => checks[k] !== expected[k]);
  if (off.length > 0) {
    throw new Error(`stage transitions did not all happen exactly once: ${off.map((k) => `${k} = ${checks[k]} (expected ${expected[k]})`).join(", ")}`);
  }
}

export function assertBaselineChecks(checks: BaselineChecks, jobs: number): void {
  const expected: BaselineChecks = { claims: jobs, distinctClaims: jobs, left: 0, archived: jobs, archivedReadOnce: jobs };
  const off = (Object.keys(expected) as (keyof BaselineChecks)[]).filter((k) => checks[k] !== expected[k]);
  if (off.length > 0) {
    throw new Error(
      `the raw pgmq baseline did not move every message exactly once: ${off.map((k) => `${k} = ${checks[k]} (expected ${expected[k]})`).join(", ")}`,
    );
  }
}

async function runBaseline(control: Sql, connections: Sql[], runId: string, jobs: number, qty: number, log: (line: string) => void) {
  await control`select pgmq.create(${RAW_QUEUE}::text)`;
  try {
    // The same messages the transitions consumed, so both phases move the same bytes.
    await control`
      select count(*) from pgmq.send_batch(${RAW_QUEUE}::text,
        (select array_agg(message order by msg_id) from pgmq.a_stage_tasks where message->>'run_id' = ${runId} and message->>'stage' = 'safety'))`;
    await control.unsafe(`vacuum analyze pgmq.q_${RAW_QUEUE}`);
    const outcome = await runPhase(`raw pgmq read+archive, qty ${qty}`, connections, baselineSteps, jobs, qty, log);
    const [row] = await control.unsafe(`
      select (select count(*) from pgmq.q_${RAW_QUEUE})::int as left,
             (select count(*) from pgmq.a_${RAW_QUEUE})::int as archived,
             (select count(*) from pgmq.a_${RAW_QUEUE} where read_ct = 1)::int as archived_once`);
    const checks: BaselineChecks = {
      claims: outcome.claims,
      distinctClaims: outcome.distinctClaims,
      left: row!.left,
      archived: row!.archived,
      archivedReadOnce: row!.archived_once,
    };
    assertBaselineChecks(checks, jobs);
    return { figures: outcome.figures, checks };
  } finally {
    await control`select pgmq.drop_queue(${RAW_QUEUE}::text)`;
  }
}

/** Reset, backlog, transitions, checks, baseline: one claim size, measured back to back. */
async function runMode(jobs: number, consumers: number, qty: number, log: (line: string) => void): Promise<ModeResult> {
  await db.reset({ log: () => {} });
  const control = createSql(LOCAL_DB_URL, { max: 1, application: "bench-control" });
  const connections = Array.from({ length: consumers }, (_, i) => createSql(LOCAL_DB_URL, { max: 1, application: `bench-consumer-${i}` }));
  try {
    const setupStarted = performance.now();
    const runId = await setUpSafetyBacklog(control, jobs);
    // Tables filled in one go are analysed, as autovacuum would soon do, so plans do not flip mid-run.
    await control.unsafe("vacuum analyze mdame.work_units, pgmq.q_stage_tasks, mdame.pipeline_runs, mdame.run_dimensions");
    log(`setup: ${jobs} units at safety with their tasks queued in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);
    await Promise.all(connections.map((sql) => sql`select 1`));

    const transitions = await runPhase(`transitions, qty ${qty}`, connections, engineSteps, jobs, qty, log);
    const checks = await transitionChecks(control, runId, transitions);
    assertTransitionChecks(checks, jobs);

    const baseline = await runBaseline(control, connections, runId, jobs, qty, log);
    const ratio = transitions.figures.perSecond / baseline.figures.perSecond;
    return {
      claimQty: qty,
      transitions: transitions.figures,
      baseline: baseline.figures,
      ratio,
      targetMet: transitions.figures.perSecond >= TARGET_TRANSITIONS_PER_S && ratio >= TARGET_BASELINE_RATIO,
      checks,
      baselineChecks: baseline.checks,
    };
  } finally {
    await Promise.all([control, ...connections].map((sql) => sql.end({ timeout: 5 })));
  }
}

function markdownSection(jobs: number, consumers: number, single: ModeResult, batched: ModeResult | null): string[] {
  const n = (v: number) => Math.round(v).toLocaleString("en-US");
  const ms = (v: number) => v.toFixed(1);
  const cpu = (v: number | null) => (v === null ? "-" : v.toFixed(2));
  const row = (m: ModeResult, what: string) =>
    `| ${what} | ${n(m.transitions.perSecond)} | ${ms(m.transitions.p50Ms)} / ${ms(m.transitions.p99Ms)} | ${cpu(m.transitions.serverCpuMsPerMessage)} | ` +
    `${n(m.baseline.perSecond)} | ${ms(m.baseline.p50Ms)} / ${ms(m.baseline.p99Ms)} | ${cpu(m.baseline.serverCpuMsPerMessage)} | ${m.ratio.toFixed(2)} |`;
  return [
    "## Orchestration: stage transitions",
    "",
    `Command: \`bun scripts/bench/queue-transitions.ts --jobs ${jobs} --consumers ${consumers}${
      batched ? ` --batch ${batched.claimQty}` : ""
    }\` (resets the database before each mode and after).`,
    "",
    `${n(jobs)} work units wait at stage \`safety\`, each with its task in \`stage_tasks\`. ${consumers} consumers, each on its own`,
    "connection, loop claim (`mdame.claim_stage_tasks`) -> complete (`mdame.record_safety_verdict`, which records the verdict,",
    "archives the message and enqueues the unit's `plan` task in one transaction). A transition is one completed verdict;",
    "latency runs from the start of the claim call to the end of the completing call. Afterwards every unit must be at",
    "`plan` with one `plan` task queued, one audit row, and its safety message archived after exactly one read.",
    "Baseline, in the same run with the same consumers: a fresh pgmq queue holding the same messages, drained by",
    "`pgmq.read` + `pgmq.archive`. Server CPU: CPU time of the consumers' Postgres backends per message (the",
    "consumers' own process shares the same 2 cores).",
    "",
    "The engine reaches its stage queue through static SQL on the queue's pgmq tables (claim with its lease, read limit",
    "and stored-result lookup; heartbeat; send; archive: `supabase/migrations/20261129120000_transition_throughput.sql`),",
    "which PL/pgSQL plans once per session; pgmq's own functions, which the baseline calls, build and plan their SQL on",
    "every call. `tests/integration/stage-queue.test.ts` holds the engine's path to pgmq's semantics.",
    "",
    "| claim size | transitions/s | p50 / p99 ms | server CPU ms | raw read+archive msgs/s | p50 / p99 ms | server CPU ms | ratio |",
    "|---|---|---|---|---|---|---|---|",
    row(single, "1 (headline)"),
    ...(batched ? [row(batched, `${batched.claimQty} (each message still completed by its own call)`)] : []),
    "",
    `Target: at least ${n(TARGET_TRANSITIONS_PER_S)} transitions/s and at least half the raw baseline, on claim size 1:`,
    single.targetMet
      ? `**met** (${n(single.transitions.perSecond)}/s, ratio ${single.ratio.toFixed(2)}).`
      : `**not met** (${n(single.transitions.perSecond)}/s, ratio ${single.ratio.toFixed(2)}).`,
    "",
  ];
}

/** Measures the stage-transition throughput of the local cluster; leaves an empty engine behind. */
export async function runQueueTransitionBenchmark(options: QueueBenchOptions = {}): Promise<QueueBenchResult> {
  const jobs = options.jobs ?? 10_000;
  const consumers = options.consumers ?? 8;
  const batchSize = options.batchSize ?? 10;
  const log = options.log ?? console.log;
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`jobs must be a positive integer, not ${jobs}`);
  if (!Number.isInteger(consumers) || consumers < 1) throw new Error(`consumers must be a positive integer, not ${consumers}`);
  if (!Number.isInteger(batchSize) || batchSize < 0) throw new Error(`batchSize must be a non-negative integer, not ${batchSize}`);

  await db.ensureRunning(log);
  let single: ModeResult;
  let batched: ModeResult | null = null;
  try {
    log(`queue-transitions: ${jobs} jobs, ${consumers} consumers, claim size 1 (load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})`);
    single = await runMode(jobs, consumers, 1, log);
    if (batchSize > 1) {
      log(`queue-transitions: ${jobs} jobs, ${consumers} consumers, claim size ${batchSize}`);
      batched = await runMode(jobs, consumers, batchSize, log);
    }
  } catch (error) {
    // The benchmark's own failure is the one to report; a failed clean-up is only logged.
    await db.reset({ log: () => {} }).catch((resetError) => log(`queue-transitions: reset after the failure failed too: ${resetError}`));
    throw error;
  }
  await db.reset({ log: () => {} });
  return { jobs, consumers, single, batched, targetMet: single.targetMet, markdown: markdownSection(jobs, consumers, single, batched) };
}

function intFlag(argv: string[], name: string, fallback: number): number {
  const index = argv.indexOf(name);
  if (index === -1) return fallback;
  const value = Number(argv[index + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} takes a non-negative integer`);
  return value;
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  try {
    const result = await runQueueTransitionBenchmark({
      jobs: intFlag(argv, "--jobs", 10_000),
      consumers: intFlag(argv, "--consumers", 8),
      batchSize: intFlag(argv, "--batch", 10),
    });
    console.log("");
    console.log(result.markdown.join("\n"));
    process.exit(0);
  } catch (error) {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  }
}
