/**
 * The log lines the stack's processes wrote during a window of time, read from `.local/logs/*.log`
 * (one file per component, appended to by the supervisor; its own lines in supervisor.log). Each
 * file's size is taken as the window opens and as it closes. A line that carries its own time (the
 * components' pino `time`, the emulators' `ts`, Postgres' log prefix, the supervisor's `--- <time>`
 * markers) counts when that time falls in the window, even if it reached the file a moment after
 * it closed; a line without one counts when it was written between the two sizes.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { ENGINE_DB_ROLE } from "../../shared/config/db-roles.ts";

/** The engine's own processes, whose lines the ceiling applies to (db.log is the server's, emulators.log the emulated services'). */
export const ENGINE_LOGS = ["edge", "gpu-worker", "render-runner", "supervisor"] as const;

/**
 * The most log lines per second, averaged over a sick-database window, that the engine's
 * processes may write in all: a process that cannot reach its database says so now and then, it
 * does not write a line per retry.
 */
export const SICK_DB_LOG_CEILING_PER_S = 5;

/**
 * The most logins of the engine's role per second, averaged over the window, that the server may
 * refuse: a pool that cannot log in waits longer and longer before it asks again
 * (shared/db/client.ts), it does not knock a hundred times a second without a word in the log.
 */
export const SICK_DB_LOGIN_CEILING_PER_S = 5;

/** Size in bytes of every `<component>.log` in `dir`. */
export function logOffsets(dir: string): Record<string, number> {
  if (!existsSync(dir)) return {};
  const sizes: Record<string, number> = {};
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".log")) sizes[name.slice(0, -".log".length)] = statSync(join(dir, name)).size;
  }
  return sizes;
}

const POSTGRES_PREFIX = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) UTC\b/;
const SUPERVISOR_MARKER = /^--- (\d{4}-\d\d-\d\dT\S+Z) /;

/** The time a log line carries, in ms since the epoch, or null when it carries none. */
export function lineTime(line: string): number | null {
  if (line.startsWith("{")) {
    try {
      const entry = JSON.parse(line) as { time?: unknown; ts?: unknown };
      const value = entry.time ?? entry.ts;
      const ms = typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) : NaN;
      return Number.isFinite(ms) ? ms : null;
    } catch {
      return null;
    }
  }
  const pg = POSTGRES_PREFIX.exec(line);
  if (pg) return Date.parse(`${pg[1]}T${pg[2]}Z`);
  const marker = SUPERVISOR_MARKER.exec(line);
  return marker ? Date.parse(marker[1]!) : null;
}

/** The file from `offset` on, and where the read began. */
function readFrom(file: string, offset: number): { text: string; start: number } {
  const size = statSync(file).size;
  // A file shorter than the offset was started anew: all of it is new.
  const start = offset <= size ? offset : 0;
  const buffer = Buffer.alloc(size - start);
  const fd = openSync(file, "r");
  try {
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return { text: buffer.subarray(0, read).toString("utf8"), start };
  } finally {
    closeSync(fd);
  }
}

/** Lines per component written in the window [fromMs, untilMs], the files' sizes at its ends given. */
export function linesInWindow(
  dir: string,
  from: { ms: number; offsets: Record<string, number> },
  until: { ms: number; offsets: Record<string, number> },
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const component of Object.keys(logOffsets(dir)).sort()) {
    const { text, start } = readFrom(join(dir, `${component}.log`), from.offsets[component] ?? 0);
    // Where the window closed, relative to what was read.
    const closedAt = (until.offsets[component] ?? start) - start;
    let n = 0;
    let position = 0;
    for (const line of text.split("\n")) {
      const at = position;
      position += Buffer.byteLength(line) + 1;
      if (line.trim() === "") continue;
      const time = lineTime(line);
      if (time === null ? at < closedAt : time >= from.ms && time <= until.ms) n += 1;
    }
    counts[component] = n;
  }
  return counts;
}

const REFUSED_LOGIN = /pg_hba\.conf rejects connection for host "[^"]*", user "([^"]*)"/;

/**
 * Logins the server refused in the window, per role, from its own log (db.log): how hard the
 * clients knocked while the door was shut, which their own logs may not show.
 */
export function refusedLogins(dir: string, from: { ms: number; offsets: Record<string, number> }, until: { ms: number }): Record<string, number> {
  const file = join(dir, "db.log");
  if (!existsSync(file)) return {};
  const counts: Record<string, number> = {};
  for (const line of readFrom(file, from.offsets.db ?? 0).text.split("\n")) {
    const role = REFUSED_LOGIN.exec(line)?.[1];
    const time = role === undefined ? null : lineTime(line);
    if (role !== undefined && time !== null && time >= from.ms && time <= until.ms) counts[role] = (counts[role] ?? 0) + 1;
  }
  return counts;
}

/** What the engine wrote during one window: per component, the engine's total and its rate. */
export interface WindowLogLines {
  seconds: number;
  /** Every log file, the engine's and the others (db: the server's own log; emulators). */
  per_component: Record<string, number>;
  /** The lines of ENGINE_LOGS in all. */
  engine_total: number;
  engine_per_s: number;
  ceiling_per_s: number;
  /** Logins of the engine's role the server refused, per second, and their ceiling. */
  engine_logins_per_s: number;
  login_ceiling_per_s: number;
  /** Both the lines and the engine's refused logins within their ceilings. */
  within_ceiling: boolean;
  /** Logins the server refused meanwhile, per role (mdame_engine: the engine's processes; postgres: the soak and the supervisor's checks). */
  refused_logins: Record<string, number>;
}

export function windowLogLines(
  dir: string,
  from: { ms: number; offsets: Record<string, number> },
  until: { ms: number; offsets: Record<string, number> },
  ceilingPerS: number = SICK_DB_LOG_CEILING_PER_S,
  loginCeilingPerS: number = SICK_DB_LOGIN_CEILING_PER_S,
): WindowLogLines {
  const per_component = linesInWindow(dir, from, until);
  const engine_total = ENGINE_LOGS.reduce((n, c) => n + (per_component[c] ?? 0), 0);
  const seconds = Math.max(0.001, (until.ms - from.ms) / 1000);
  const engine_per_s = Math.round((engine_total / seconds) * 100) / 100;
  const refused_logins = refusedLogins(dir, from, until);
  const engine_logins_per_s = Math.round(((refused_logins[ENGINE_DB_ROLE] ?? 0) / seconds) * 100) / 100;
  return {
    seconds: Math.round(seconds * 10) / 10,
    per_component,
    engine_total,
    engine_per_s,
    ceiling_per_s: ceilingPerS,
    engine_logins_per_s,
    login_ceiling_per_s: loginCeilingPerS,
    within_ceiling: engine_per_s <= ceilingPerS && engine_logins_per_s <= loginCeilingPerS,
    refused_logins,
  };
}
