/**
 * The accelerated clock. A simulated day: the engine's clock (mdame.set_engine_clock) and the
 * emulator's move a whole day ahead, so YouTube's quota day and the channels' upload windows pass
 * as real days do; its trend items are posted, its run is triggered as the daily pg_cron job would
 * (mdame.trigger_run for that run_date), and the minutely tick and the drain of deferred
 * publications run every TICK_MS instead; the day's faults fire at their planned second. The
 * operator answers an account the engine reports as needing a reconnect with
 * `mdame account connect` (OPERATOR_DELAY_MS after the report). The next day starts as soon as every
 * run and unit is terminal or waiting for a later day (a deferred publication), every fault of the
 * day has fired, every component it killed is back, every reported account is reconnected and the
 * database is healthy again, or at the day's deadline (`--day-seconds` after its trigger),
 * whichever comes first.
 */
import type { Sql } from "../../shared/db/client.ts";
import { getRecordedEnvironment, tick, triggerRun } from "../../shared/db/rpc/runs.ts";
import type { PlannedFault, SoakPlan } from "./plan.ts";
import { restartsSoFar } from "./evidence.ts";
import {
  armEmulator,
  componentPid,
  disarmEmulator,
  killComponent,
  type Log,
  postFeed,
  reconnectAccount,
  restartPostgres,
  revokeGrant,
  setEmulatorDay,
  setEngineDay,
  soakChannel,
} from "./processes.ts";
import { SickDatabaseWindow, type SickWindowRecord } from "./sick-window.ts";

const TICK_MS = 2_000;
/** How long the operator takes to answer an account the engine reports as needing a reconnect. */
const OPERATOR_DELAY_MS = 10_000;
/** How long the soak waits for a component restarted by the supervisor before it gives up on one call. */
const DB_RETRY_MS = 60_000;

export interface InjectedFault {
  id: string;
  day: number;
  kind: PlannedFault["kind"];
  label: string;
  component?: string;
  planned_at_s: number;
  /** When it was done (ISO); null when it could not be done (the reason is in `note`). */
  injected_at: string | null;
  /** Until when a timed emulator fault was armed (ISO); the injection time for the others. */
  active_until: string | null;
  note: string | null;
  /** Times a timed fault was armed again on an emulator restarted while it lasted. */
  rearmed: number;
  /** token_revoked: the dimension whose channel's grant was revoked. */
  dimension?: string;
}

/** An account the engine marked needs_reconnect, and the operator's answer. */
export interface ReconnectRecord {
  day: number;
  account_id: string;
  dimension_id: string;
  channel_handle: string;
  reason: string | null;
  /** When the engine marked it (health_since) and when the operator's `mdame account connect` ended. */
  reported_at: string;
  reconnected_at: string | null;
  note: string | null;
}

export interface DayRecord {
  day: number;
  run_date: string;
  started_at: string;
  ended_at: string;
  wall_s: number;
  /** terminal: every run and unit terminal before the deadline; deadline: the day ran out. */
  ended_by: "terminal" | "deadline";
  run_ids: string[];
}

export interface DriveResult {
  days: DayRecord[];
  faults: InjectedFault[];
  /** Every sick-database window, with what the engine logged during it. */
  sick_windows: SickWindowRecord[];
  /** Every account the engine reported as needing a reconnect, and when the operator reconnected it. */
  reconnects: ReconnectRecord[];
  /** After the last day's deadline (or the interruption): runs and units still not terminal. */
  open_at_end: { runs: number; units: number };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function addDays(start: string, days: number): string {
  const date = new Date(`${start}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Runs `fn` until the database answers (it may be restarting), for at most DB_RETRY_MS. */
export async function withDb<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + DB_RETRY_MS;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: the database did not answer for ${DB_RETRY_MS / 1000} s: ${(error as Error).message}`);
      await sleep(500);
    }
  }
}

/**
 * Runs and units still under way. A unit at stage deferred waits for a later quota day, a channel's
 * window or a reconnect, none of which the rest of the day brings; one whose time has come is sent
 * back to publish by the drain each tick and counts again.
 */
async function openWork(sql: Sql): Promise<{ runs: number; units: number; waiting: number }> {
  const [row] = await sql`
    select (select count(*)::int from mdame.pipeline_runs where status = 'running') as runs,
           (select count(*)::int from mdame.work_units where stage not in ('published', 'deferred', 'rejected', 'failed')) as units,
           (select count(*)::int from mdame.work_units where stage = 'deferred') as waiting`;
  return { runs: row!.runs, units: row!.units, waiting: row!.waiting };
}

/** The pg_cron job mdame-publish-drain, on the accelerated clock. */
async function drain(sql: Sql): Promise<number> {
  const [row] = await sql`select mdame.drain_deferred_publications() as sent`;
  return row!.sent as number;
}

/**
 * The operator: reads the accounts the engine reports as needing a reconnect (what `mdame account
 * list` and the notifier show) and, OPERATOR_DELAY_MS after each report, runs the command the report
 * names, `mdame account connect youtube --dimension <id>`, signing in as the channel's owner. A
 * connect that fails (the emulator or the edge host restarting) is tried again on the next tick.
 */
class Operator {
  #open = new Map<string, ReconnectRecord>();
  readonly done: ReconnectRecord[] = [];

  constructor(private readonly ctx: Context) {}

  /** How many reported accounts still wait for the operator. */
  get pending(): number {
    return this.#open.size;
  }

  async tick(day: number): Promise<void> {
    const reported = await this.ctx.sql`
      select id, dimension_id, channel_handle, health_reason, health_since from mdame.dimension_accounts
       where health_state = 'needs_reconnect' and active`;
    for (const account of reported) {
      if (this.#open.has(account.id)) continue;
      const record: ReconnectRecord = {
        day: day + 1,
        account_id: account.id,
        dimension_id: account.dimension_id,
        channel_handle: account.channel_handle,
        reason: account.health_reason,
        reported_at: (account.health_since as Date | null)?.toISOString() ?? new Date().toISOString(),
        reconnected_at: null,
        note: null,
      };
      this.#open.set(account.id, record);
      this.ctx.log(
        `day ${day + 1} the engine reports ${account.channel_handle} (${account.dimension_id}) needs reconnecting: ${account.health_reason ?? "no reason"}`,
      );
    }
    for (const [id, record] of this.#open) {
      if (Date.now() - Date.parse(record.reported_at) < OPERATOR_DELAY_MS) continue;
      try {
        await reconnectAccount(this.ctx.env, record.dimension_id, soakChannel(record.dimension_id));
        record.reconnected_at = new Date().toISOString();
        this.ctx.log(`day ${day + 1} operator: mdame account connect youtube --dimension ${record.dimension_id} reconnected ${record.channel_handle}`);
        this.#open.delete(id);
        this.done.push(record);
      } catch (error) {
        record.note = `last attempt failed: ${(error as Error).message.split("\n")[0]}`;
      }
    }
  }

  /** Reports the operator has not answered (the soak ended first). */
  unanswered(): ReconnectRecord[] {
    return [...this.#open.values()];
  }
}

interface Context {
  sql: Sql;
  env: Record<string, string>;
  plan: SoakPlan;
  daySeconds: number;
  startDate: string;
  log: Log;
  /** Set on SIGINT/SIGTERM: the current day runs to its end as usual, and no further day starts. */
  interrupted: () => boolean;
}

/** Timed emulator faults still in force, armed again when the emulator comes back from a kill. */
class TimedFaults {
  #active: { fault: InjectedFault; arms: PlannedFault["arms"]; until: number }[] = [];
  #emulatorPid = componentPid("emulators");

  add(fault: InjectedFault, arms: PlannedFault["arms"], until: number): void {
    this.#active.push({ fault, arms: arms.filter((a) => a.for_ms !== undefined), until });
  }

  async rearmAfterRestart(env: Record<string, string>, log: Log): Promise<void> {
    const pid = componentPid("emulators");
    if (pid === null || pid === this.#emulatorPid) return;
    const now = Date.now();
    this.#active = this.#active.filter((a) => a.until > now + 500);
    let done = true;
    for (const active of this.#active) {
      for (const arm of active.arms) {
        if (await armEmulator(env, { ...arm, for_ms: active.until - now })) active.fault.rearmed += 1;
        else done = false;
      }
      if (done) log(`${active.fault.id}: armed again on the restarted emulator (${Math.round((active.until - now) / 1000)} s left)`);
    }
    // Not yet answering: try again on the next tick.
    if (done) this.#emulatorPid = pid;
  }

  clear(): void {
    this.#active = [];
  }
}

async function inject(ctx: Context, planned: PlannedFault, timed: TimedFaults, sick: SickDatabaseWindow[]): Promise<InjectedFault> {
  const record: InjectedFault = {
    id: planned.id,
    day: planned.day,
    kind: planned.kind,
    label: planned.label,
    component: planned.component,
    planned_at_s: planned.at_s,
    injected_at: null,
    active_until: null,
    note: null,
    rearmed: 0,
  };
  if (planned.kind === "db_sick") {
    sick.push(await SickDatabaseWindow.begin(record, planned.for_s!, ctx.interrupted, ctx.log));
    ctx.log(`day ${planned.day + 1} ${planned.id} injected: ${planned.label} (${record.note})`);
    return record;
  }
  const now = new Date();
  let done = true;
  if (planned.kind === "kill" || planned.kind === "pg_restart") {
    const pid = planned.kind === "kill" ? killComponent(planned.component!) : restartPostgres();
    done = pid !== null;
    record.note = done ? `pid ${pid}` : `${planned.component ?? "db"} had no live process (still restarting after an earlier fault)`;
  } else if (planned.kind === "token_revoked") {
    record.dimension = planned.dimension;
    const revoked = await revokeGrant(ctx.env, soakChannel(planned.dimension!));
    done = revoked !== null;
    record.note = revoked ?? "the emulator was down (restarting): nothing was revoked";
  } else {
    let armed = true;
    for (const arm of planned.arms) armed = (await armEmulator(ctx.env, arm)) && armed;
    if (!armed) record.note = "the emulator was down (restarting); a timed fault is armed once it is back";
    const longest = Math.max(0, ...planned.arms.map((a) => a.for_ms ?? 0));
    if (longest > 0) {
      record.active_until = new Date(now.getTime() + longest).toISOString();
      timed.add(record, planned.arms, now.getTime() + longest);
    }
    done = armed || longest > 0;
  }
  if (done) {
    record.injected_at = now.toISOString();
    record.active_until ??= record.injected_at;
  }
  const skipped = !done;
  ctx.log(`day ${planned.day + 1} ${planned.id} ${skipped ? "not done" : "injected"}: ${planned.label}${record.note ? ` (${record.note})` : ""}`);
  return record;
}

async function runDay(
  ctx: Context,
  day: number,
  faults: InjectedFault[],
  timed: TimedFaults,
  sickWindows: SickWindowRecord[],
  operator: Operator,
): Promise<DayRecord> {
  const runDate = addDays(ctx.startDate, day);
  const started = Date.now();
  for (const dimension of ctx.plan.dimensions) await postFeed(ctx.env, dimension.id, ctx.plan.topics[day]![dimension.id]!);
  // YouTube's quota day and the channels' upload windows follow the simulated day, on the emulator
  // and in the engine's quota ledger alike.
  await setEmulatorDay(ctx.env, day);
  await withDb("set_engine_clock", () => setEngineDay(ctx.sql, day));
  const due = ctx.plan.faults.filter((f) => f.day === day);
  // Components killed or restarted today, with the supervisor's restart count before the fault: a
  // day is not over until the supervisor has brought each back (a kill in the day's last second
  // must not go unanswered into the next day or the report).
  const awaitingRestart = new Map<string, number>();
  const sick: SickDatabaseWindow[] = [];
  const injectDue = async () => {
    const planned = due.shift()!;
    const component = planned.kind === "kill" ? planned.component! : planned.kind === "pg_restart" ? "db" : null;
    const before = component ? restartsSoFar()[component] ?? 0 : 0;
    const record = await inject(ctx, planned, timed, sick);
    if (component && record.injected_at) awaitingRestart.set(component, Math.max(before, awaitingRestart.get(component) ?? 0));
    faults.push(record);
  };
  const restartsPending = () => {
    if (awaitingRestart.size === 0) return 0;
    const now = restartsSoFar();
    for (const [component, before] of awaitingRestart) if ((now[component] ?? 0) > before) awaitingRestart.delete(component);
    return awaitingRestart.size;
  };
  // Faults due at second 0 are in force before the run's first call.
  while (due.length > 0 && due[0]!.at_s === 0) await injectDue();
  const triggered = await withDb("trigger_run", async () => {
    // As the daily schedule does: the trigger of the environment the database records.
    const env = await getRecordedEnvironment(ctx.sql);
    if (env === null) throw new Error("this database records no environment (mdame.settings key env)");
    return await triggerRun(ctx.sql, { env, triggerKind: "cron", runDate, dimension: null });
  });
  ctx.log(`day ${day + 1} (${runDate}): run ${triggered.run_id} ${triggered.created ? "started" : "already there"}`);
  const deadline = started + ctx.daySeconds * 1000;
  let endedBy: DayRecord["ended_by"] = "deadline";
  let lastShown = "";
  while (Date.now() < deadline) {
    const elapsed = (Date.now() - started) / 1000;
    while (due.length > 0 && due[0]!.at_s <= elapsed) await injectDue();
    await timed.rearmAfterRestart(ctx.env, ctx.log);
    // While the database is sick the soak stays off it as well: a postgres.js pool refused again and
    // again retries its logins without end, and pg_cron's own tick job runs inside the server anyway.
    if (sick.some((w) => w.active)) {
      await sleep(TICK_MS);
      continue;
    }
    try {
      await tick(ctx.sql);
      const sent = await drain(ctx.sql);
      if (sent > 0) ctx.log(`day ${day + 1} +${elapsed.toFixed(0)}s: the drain sent ${sent} deferred unit(s) back to publish`);
      await operator.tick(day);
      const open = await openWork(ctx.sql);
      const shown = `runs open ${open.runs}, units open ${open.units}, deferred ${open.waiting}`;
      if (shown !== lastShown) ctx.log(`day ${day + 1} +${elapsed.toFixed(0)}s: ${shown}`);
      lastShown = shown;
      if (due.length === 0 && open.runs === 0 && open.units === 0 && operator.pending === 0 && restartsPending() === 0 && !sick.some((w) => w.active)) {
        endedBy = "terminal";
        break;
      }
    } catch {
      // The database is restarting: the next tick tries again.
    }
    await sleep(TICK_MS);
  }
  for (const planned of due) {
    // Minutes of a sick database after the day's deadline would be the next day's: not done.
    if (planned.kind === "db_sick") {
      faults.push({
        id: planned.id,
        day: planned.day,
        kind: planned.kind,
        label: planned.label,
        planned_at_s: planned.at_s,
        injected_at: null,
        active_until: null,
        note: "not done: the day ran out first",
        rearmed: 0,
      });
      continue;
    }
    faults.push({ ...await inject(ctx, planned, timed, sick), note: "fired late: the day ran out first" });
  }
  // A day's faults end with it: the next day starts without them.
  for (const window of sick) sickWindows.push(await window.finish());
  await disarmEmulator(ctx.env);
  timed.clear();
  const runs = await withDb("runs of the day", () => ctx.sql`select id from mdame.pipeline_runs where run_date = ${runDate}::date order by created_at`);
  const ended = Date.now();
  ctx.log(`day ${day + 1} ended by ${endedBy} after ${((ended - started) / 1000).toFixed(0)} s`);
  return {
    day: day + 1,
    run_date: runDate,
    started_at: new Date(started).toISOString(),
    ended_at: new Date(ended).toISOString(),
    wall_s: Math.round((ended - started) / 100) / 10,
    ended_by: endedBy,
    run_ids: runs.map((r) => r.id as string),
  };
}

export async function driveDays(ctx: Context): Promise<DriveResult> {
  const days: DayRecord[] = [];
  const faults: InjectedFault[] = [];
  const sickWindows: SickWindowRecord[] = [];
  const timed = new TimedFaults();
  const operator = new Operator(ctx);
  for (let day = 0; day < ctx.plan.days && !ctx.interrupted(); day++) days.push(await runDay(ctx, day, faults, timed, sickWindows, operator));
  const { runs, units } = await withDb("open work", () => openWork(ctx.sql));
  return { days, faults, sick_windows: sickWindows, reconnects: [...operator.done, ...operator.unanswered()], open_at_end: { runs, units } };
}
