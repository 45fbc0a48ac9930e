/**
 * Where the local stack keeps its state (DESIGN.md, "Local stack").
 *
 * Everything lives under `.local/` in the project, except the Postgres data directory when running
 * as root: initdb refuses root, so the cluster runs as the `postgres` OS user, and that user may not
 * be able to enter the project (a clone under /root, say). Its data then lives in a directory the
 * `postgres` user owns, keyed by a short hash of the project path so two clones never share one.
 */
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Absolute path of the project (the folder holding package.json). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** True when this process runs as root, so Postgres must run as the `postgres` OS user. */
export const RUNNING_AS_ROOT = typeof process.getuid === "function" && process.getuid() === 0;

/** OS user the Postgres server and its tools run as. */
export const PG_OS_USER = "postgres";

const LOCAL_DIR = join(PROJECT_ROOT, ".local");

/** A short, stable name for this clone, used to keep clusters of different clones apart. */
export const PROJECT_HASH = createHash("sha256").update(PROJECT_ROOT).digest("hex").slice(0, 12);

function defaultPgData(): string {
  if (RUNNING_AS_ROOT) return join("/var/lib/postgresql/mdame", PROJECT_HASH);
  return join(LOCAL_DIR, "db", "data");
}

const pgData = process.env.MDAME_PGDATA ? resolve(process.env.MDAME_PGDATA) : defaultPgData();

export const paths = {
  root: PROJECT_ROOT,
  local: LOCAL_DIR,
  /** `<component>.pid` and `supervisor.pid`, plus the supervisor's status file. */
  run: join(LOCAL_DIR, "run"),
  logs: join(LOCAL_DIR, "logs"),
  storage: join(LOCAL_DIR, "storage"),
  emulators: join(LOCAL_DIR, "emulators"),
  /** `KEY=value` lines of the local stack's environment, like `supabase status -o env`. */
  stackEnv: join(LOCAL_DIR, "stack.env"),
  secrets: join(LOCAL_DIR, "secrets.json"),
  /** Status of every component, written by the supervisor (see stack-control.ts). */
  stackStatus: join(LOCAL_DIR, "run", "stack-status.json"),
  supervisorPid: join(LOCAL_DIR, "run", "supervisor.pid"),
  supervisorLog: join(LOCAL_DIR, "logs", "supervisor.log"),
  pgData,
  /**
   * Unix socket directory: never inside the project (socket paths are limited to ~100 bytes and
   * the project may sit where the `postgres` user cannot enter).
   */
  pgSocketDir: RUNNING_AS_ROOT || process.env.MDAME_PGDATA ? pgData : "/tmp",
  /** Server log when the cluster is started by pg_ctl (the supervisor logs to `.local/logs/db.log`). */
  pgServerLog: join(pgData, "server.log"),
} as const;

/** Path of a component's pid file. */
export function pidFile(component: string): string {
  return join(paths.run, `${component}.pid`);
}

/** Path of a component's log file. */
export function logFile(component: string): string {
  return join(paths.logs, `${component}.log`);
}
