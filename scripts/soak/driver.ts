/**
 * The accelerated clock. A simulated day: its trend items are posted, its run is triggered as the
 * daily pg_cron job would (mdame.trigger_run for that run_date), and the minutely tick runs every
 * TICK_MS instead; the day's faults fire at their planned second. The next day starts as soon as
 * every run and unit is terminal, every fault of the day has fired, every component it killed
 * is back and the database is healthy again, or at the day's deadline (`--day-seconds` after its
 * trigger), whichever comes first.
 */
import type { Sql } from "../../shared/db/client.ts";
import { getRecordedEnvironment, tick, triggerRun } from "../../shared/db/rpc/runs.ts";
import type { PlannedFault, SoakPlan } from "./plan.ts";
import { restartsSoFar } from "./evidence.ts";
import { armEmulator, componentPid, disarmEmulator, killComponent, type Log, postFeed, restartPostgres, setEmulatorDay } from "./processes.ts";
import { SickDatabaseWindow, type SickWindowRecord } from "./sick-window.ts";

const TICK_MS = 2_000;
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

async function openWork(sql: Sql): Promise<{ runs: number; units: number }> {
  const [row] = await sql`
    select (select count(*)::int from mdame.pipeline_runs where status = 'running') as runs,
           (select count(*)::int from mdame.work_units where stage not in ('published', 'rejected', 'failed')) as units`;
  return { runs: row!.runs, units: row!.units };
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
    id: planned.id, day: planned.day, kind: planned.kind, label: planned.label, component: planned.component,
    planned_at_s: planned.at_s, injected_at: null, active_until: null, note: null, rearmed: 0,
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

async function runDay(ctx: Context, day: number, faults: InjectedFault[], timed: TimedFaults, sickWindows: SickWindowRecord[]): Promise<DayRecord> {
  const runDate = addDays(ctx.startDate, day);
  const started = Date.now();
  for (const dimension of ctx.plan.dimensions) await postFeed(ctx.env, dimension.id, ctx.plan.topics[day]![dimension.id]!);
  // YouTube's quota day and upload window on the emulator follow the simulated day, as the quota ledger does.
  await setEmulatorDay(ctx.env, day);
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
      const open = await openWork(ctx.sql);
      const shown = `runs open ${open.runs}, units open ${open.units}`;
      if (shown !== lastShown) ctx.log(`day ${day + 1} +${elapsed.toFixed(0)}s: ${shown}`);
      lastShown = shown;
      if (due.length === 0 && open.runs === 0 && open.units === 0 && restartsPending() === 0 && !sick.some((w) => w.active)) {
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
      faults.push({ id: planned.id, day: planned.day, kind: planned.kind, label: planned.label, planned_at_s: planned.at_s, injected_at: null, active_until: null, note: "not done: the day ran out first", rearmed: 0 });
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
    day: day + 1, run_date: runDate, started_at: new Date(started).toISOString(), ended_at: new Date(ended).toISOString(),
    wall_s: Math.round((ended - started) / 100) / 10, ended_by: endedBy, run_ids: runs.map((r) => r.id as string),
  };
}

export async function driveDays(ctx: Context): Promise<DriveResult> {
  const days: DayRecord[] = [];
  const faults: InjectedFault[] = [];
  const sickWindows: SickWindowRecord[] = [];
  const timed = new TimedFaults();
  for (let day = 0; day < ctx.plan.days && !ctx.interrupted(); day++) days.push(await runDay(ctx, day, faults, timed, sickWindows));
  const open = await withDb("open work", () => openWork(ctx.sql));
  return { days, faults, sick_windows: sickWindows, open_at_end: open };
}
