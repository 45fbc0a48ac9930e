/**
 * Where the local stack keeps its state (docs/design.md, "Local stack").
 *
 * Everything lives under `.local/` in the project, the Postgres cluster included, so deleting a
 * clone leaves nothing behind. The one exception: as root the cluster runs as the `postgres` OS
 * user (initdb refuses root), and when that user cannot enter the project (a clone under /root,
 * say) its data lives in a directory the `postgres` user owns, keyed by a short hash of the project
 * path so two clones never share one, with a marker naming the clone (stack/cluster-location.ts;
 * `npm run clean` removes it).
 */
import { chooseClusterLocation, postgresUserCanEnter, projectHash } from "./cluster-location.ts";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Absolute path of the project (the folder holding package.json). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** True when this process runs as root, so Postgres must run as the `postgres` OS user. */
export const RUNNING_AS_ROOT = typeof process.getuid === "function" && process.getuid() === 0;

/** OS user the Postgres server and its tools run as. */
export const PG_OS_USER = "postgres";

/**
 * `.local/` of the project, or MDAME_LOCAL_DIR: a second stack of the same clone (with its own
 * MDAME_*_PORT) keeps its state, cluster included, apart from the first one's.
 */
const LOCAL_DIR = process.env.MDAME_LOCAL_DIR ? resolve(process.env.MDAME_LOCAL_DIR) : join(PROJECT_ROOT, ".local");

/** A short, stable name for this clone (or for its second stack), used to keep clusters apart. */
export const PROJECT_HASH = projectHash(process.env.MDAME_LOCAL_DIR ? LOCAL_DIR : PROJECT_ROOT);

/** Where this clone's cluster lives, and why there. */
export const CLUSTER_LOCATION = chooseClusterLocation({
  localDir: LOCAL_DIR,
  projectHash: PROJECT_HASH,
  asRoot: RUNNING_AS_ROOT,
  pgDataFromEnv: process.env.MDAME_PGDATA ? resolve(process.env.MDAME_PGDATA) : undefined,
  pgUserCanEnter: (dir) => postgresUserCanEnter(dir, PG_OS_USER),
});

const pgData = CLUSTER_LOCATION.dataDir;

/** A Unix socket path is limited to 107 bytes: one that would not fit goes to /tmp (the port keeps clusters apart). */
const socketFits = (dir: string) => Buffer.byteLength(join(dir, ".s.PGSQL.65535.lock")) <= 107;

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
   * Unix socket directory: the data directory when the cluster runs as `postgres` or MDAME_PGDATA
   * places it (socket paths are limited to ~100 bytes, so a deep one falls back to /tmp), else /tmp.
   */
  pgSocketDir: (RUNNING_AS_ROOT || process.env.MDAME_PGDATA) && socketFits(pgData) ? pgData : "/tmp",
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
