/** Run RPCs: starting a run, following it, the tick, the operator's list and abort, the ENV guard. */
import { z } from "zod";
import { AbortRunResult, KeyedRunRecord, RunStatus, TickResult, TriggeredRun } from "../../contracts/operator.ts";
import type { Queryable } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

/** What mdame.trigger_run and mdame.start_run return: the run, and whether this call created it (the API's answer without its URL). */
const StartedRun = TriggeredRun.omit({ status_url: true });
type StartedRun = z.infer<typeof StartedRun>;

/** A row of `mdame.pipeline_runs` as mdame.list_runs returns it (its date as `YYYY-MM-DD` text, its timestamps as postgres.js gives them). */
const PipelineRun = KeyedRunRecord.extend({
  run_date: z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/),
  created_at: z.date(),
  updated_at: z.date(),
  finished_at: z.date().nullable(),
}).strict();
type PipelineRun = z.infer<typeof PipelineRun>;

type TriggerKind = "cron" | "manual";

/**
 * Today's trigger: starts the dimensions in scope whose current configuration no run of the day
 * has started, or returns the day's latest run covering the scope (created = false). Without
 * `runDate`, each dimension's own local date (mdame.local_run_date): dimensions on different
 * local dates start one run each, the earliest date first; the first run is returned, with the others.
 */
export async function triggerRun(
  sql: Queryable,
  p: { env: string; triggerKind: TriggerKind; runDate: string | null; dimension: string | null },
): Promise<StartedRun & { others: StartedRun[] }> {
  const [first, ...others] = await manyRows(
    "trigger_run",
    StartedRun,
    sql`
    select run_id, status, created
      from mdame.trigger_run(${p.env}::text, ${p.triggerKind}::text, ${p.runDate}::date, ${p.dimension}::text)`,
  );
  if (first === undefined) throw new Error("mdame.trigger_run returned no row");
  return { ...first, others };
}

/**
 * Starts the run a caller's key names; the same key again returns that run (created = false), and so
 * does any key while a run of the day still running has started every dimension in scope with its
 * current configuration. Without `runDate`, the local date of the scope's dimensions (refused when
 * they are on different dates).
 */
export function startRun(
  sql: Queryable,
  p: { idempotencyKey: string; env: string; triggerKind: TriggerKind; runDate: string | null; dimension: string | null },
): Promise<StartedRun> {
  return oneRow(
    "start_run",
    StartedRun,
    sql`
    select run_id, status, created
      from mdame.start_run(${p.idempotencyKey}::text, ${p.env}::text, ${p.triggerKind}::text, ${p.runDate}::date, ${p.dimension}::text)`,
  );
}

/** The recovery sweep and wake-up the scheduler and the edge host call. */
export async function tick(sql: Queryable): Promise<TickResult> {
  const row = await oneRow("tick", z.object({ result: TickResult }).strict(), sql`select mdame.tick() as result`);
  return row.result;
}

/** A tick ended well: the watchdog's proof that the function is alive (mdame.watchdog_checks). */
export async function recordTickOk(sql: Queryable): Promise<void> {
  await sql`select mdame.record_tick_ok()`;
}

/**
 * Wakes the tick that carries on after this one ran out of time with stage tasks still visible:
 * one request through pg_net, whatever the cap on ticks in flight (this tick is one of them and is
 * ending). Returns the pg_net request id.
 */
export async function wakeNextTick(sql: Queryable): Promise<number> {
  const row = await oneRow("wake_next_tick", z.object({ request_id: z.coerce.number().int() }).strict(), sql`select mdame.wake_next_tick() as request_id`);
  return row.request_id;
}

/** A run with its dimensions and units, or null when there is no such run. */
export async function getRunStatus(sql: Queryable, runId: string): Promise<RunStatus | null> {
  const row = await maybeRow("get_run_status", z.object({ status: RunStatus }).strict(), sql`select mdame.get_run_status(${runId}::uuid) as status`);
  return row?.status ?? null;
}

/** The most recent runs, newest first (at most 500). */
export function listRuns(sql: Queryable, limit: number): Promise<PipelineRun[]> {
  return manyRows(
    "list_runs",
    PipelineRun,
    sql`
    select id, idempotency_key, env, run_date::text as run_date, trigger_kind, dimension_filter, status, error,
           created_at, updated_at, finished_at
      from mdame.list_runs(${limit}::integer)`,
  );
}

/** Rolls a running run back; an already terminal run comes back unchanged with nothing released. */
export async function abortRun(sql: Queryable, runId: string, reason: string | null): Promise<AbortRunResult> {
  const row = await oneRow(
    "abort_run",
    z.object({ result: AbortRunResult }).strict(),
    sql`
    select mdame.abort_run(${runId}::uuid, ${reason}::text) as result`,
  );
  return row.result;
}

/** Refuses (EnvironmentMismatchError) when `env` differs from the environment the database records; returns that environment. */
export async function assertEnvironment(sql: Queryable, env: string | null): Promise<string> {
  const row = await oneRow(
    "assert_environment",
    z.object({ env: z.string() }).strict(),
    sql`
    select mdame.assert_environment(${env}::text) as env`,
  );
  return row.env;
}

/** The environment the database records (mdame.settings key `env`), or null when it records none. */
export async function getRecordedEnvironment(sql: Queryable): Promise<string | null> {
  const row = await maybeRow(
    "get_recorded_environment",
    z.object({ env: z.string() }).strict(),
    sql`
    select mdame.get_recorded_environment() as env`,
  );
  return row?.env ?? null;
}
