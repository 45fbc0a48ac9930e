/**
 * One sick-database window of a simulated day: the database made sick (db-fault.ts), every client
 * session that slips in ended again each second, the healthy database back when the planned time
 * is up (or at once when the soak is interrupted, or when the day runs out), and then what the
 * engine's processes logged meanwhile.
 */
import { paths } from "../../stack/paths.ts";
import { makeDatabaseSick, restoreHealthyDatabase, terminateClientSessions } from "./db-fault.ts";
import { logOffsets, type WindowLogLines, windowLogLines } from "./log-window.ts";
import type { Log } from "./processes.ts";

/** How often sessions that slipped in are ended again. */
const SWEEP_MS = 1_000;
/** Lines stamped inside the window may still be in a pipe when it closes. */
const LOG_SETTLE_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The part of the driver's record of an injected fault that a window fills in as it goes. */
interface FaultRecord {
  id: string;
  day: number;
  injected_at: string | null;
  active_until: string | null;
  note: string | null;
}

/** What the report gives for one sick-database window. */
export interface SickWindowRecord {
  fault_id: string;
  day: number;
  planned_s: number;
  from: string;
  until: string;
  /** plan: its time was up; interrupted: the soak was told to stop; day_end: the day ran out first. */
  ended_by: "plan" | "interrupted" | "day_end";
  sessions_ended: { at_start: number; during: number };
  log_lines: WindowLogLines;
}

export class SickDatabaseWindow {
  #endRequested: SickWindowRecord["ended_by"] | null = null;
  #active = true;
  readonly done: Promise<SickWindowRecord>;

  /** Makes the database sick now; `fault` gets its times and a note as the window goes. */
  private constructor(
    readonly fault: FaultRecord,
    readonly seconds: number,
    sessionsAtStart: number,
    from: { ms: number; offsets: Record<string, number> },
    interrupted: () => boolean,
    log: Log,
  ) {
    this.done = this.#run(sessionsAtStart, from, interrupted, log);
  }

  static async begin(fault: FaultRecord, seconds: number, interrupted: () => boolean, log: Log): Promise<SickDatabaseWindow> {
    const from = { ms: Date.now(), offsets: logOffsets(paths.logs) };
    const ended = await makeDatabaseSick();
    fault.injected_at = new Date(from.ms).toISOString();
    fault.active_until = new Date(from.ms + seconds * 1000).toISOString();
    fault.note = `${ended} session(s) ended at the start`;
    return new SickDatabaseWindow(fault, seconds, ended, from, interrupted, log);
  }

  /** False once the healthy database is back. */
  get active(): boolean {
    return this.#active;
  }

  /** Ends the window now (the day ran out) and waits for its record. */
  async finish(): Promise<SickWindowRecord> {
    this.#endRequested ??= "day_end";
    return await this.done;
  }

  async #run(atStart: number, from: { ms: number; offsets: Record<string, number> }, interrupted: () => boolean, log: Log): Promise<SickWindowRecord> {
    const planEnd = from.ms + this.seconds * 1000;
    let during = 0;
    let endedBy: SickWindowRecord["ended_by"] = "plan";
    try {
      while (Date.now() < planEnd) {
        if (interrupted()) this.#endRequested ??= "interrupted";
        if (this.#endRequested) {
          endedBy = this.#endRequested;
          break;
        }
        await sleep(Math.min(SWEEP_MS, planEnd - Date.now()));
        during += await terminateClientSessions();
      }
    } finally {
      try {
        await restoreHealthyDatabase();
      } finally {
        this.#active = false;
      }
    }
    const until = { ms: Date.now(), offsets: logOffsets(paths.logs) };
    this.fault.active_until = new Date(until.ms).toISOString();
    log(
      `day ${this.fault.day + 1} ${this.fault.id}: the database is healthy again after ${((until.ms - from.ms) / 1000).toFixed(0)} s (${
        endedBy === "plan" ? "as planned" : endedBy === "interrupted" ? "ended early: interrupted" : "ended early: the day ran out"
      }); ${atStart + during} session(s) ended in all`,
    );
    await sleep(LOG_SETTLE_MS);
    const lines = windowLogLines(paths.logs, from, until);
    this.fault.note =
      `${atStart} session(s) ended at the start, ${during} more during; the engine logged ${lines.engine_total} line(s), ${lines.engine_per_s}/s`;
    return {
      fault_id: this.fault.id,
      day: this.fault.day + 1,
      planned_s: this.seconds,
      from: new Date(from.ms).toISOString(),
      until: this.fault.active_until,
      ended_by: endedBy,
      sessions_ended: { at_start: atStart, during },
      log_lines: lines,
    };
  }
}
