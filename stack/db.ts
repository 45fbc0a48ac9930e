/**
 * The local Postgres cluster (docs/design.md, "Local stack"): Postgres 15 from the OS packages (or the
 * installation MDAME_PG_BINDIR names), pg_cron preloaded (with pg_net and supabase_vault where the
 * installation has them: stack/supabase-extensions.ts), listening on 127.0.0.1:54322 as user
 * `postgres` / database `postgres`.
 *
 * CLI: `bun stack/db.ts init|start|stop|status|reset`
 */
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { COMPONENT_DB_ROLES, type DbComponent } from "../shared/config/db-roles.ts";
import { LOCAL_DB_URL, LOCAL_STACK, localComponentDbUrl } from "../shared/config/local-stack.ts";
import { CLUSTER_LOCATION, paths, PG_OS_USER, RUNNING_AS_ROOT } from "./paths.ts";
import { writeProjectMarker } from "./cluster-location.ts";
import { reserveStackPorts, stackPorts, waitForPort } from "./ports.ts";
import { DATABASE_SETTINGS_SQL, DROP_PGMQ_COMPAT, PGTAP_SQL, PLATFORM_SQL, PLATFORM_STAND_INS, roleLoginSql, TERMINATE_SESSIONS } from "./platform-sql.ts";
import { dropTemplateSql, reopenSql, restoreSql, snapshotSql, templateExistsSql, templateName, templateRequested, templatesSql } from "./db-template.ts";
import { DB_ROLE_PASSWORDS, loadOrCreateSecrets, localStackEnv } from "./stack-env.ts";
import { supervisorPid } from "./stack-control.ts";
import { pgBinDir, type PgmqShape, pgmqShapeFromEnv, pgmqShapeOfVersion } from "./pg-server.ts";
import { extensionStartOptions, storeVaultSecretsSql } from "./supabase-extensions.ts";
import { supabaseDbReset, SupabaseResetError } from "./supabase-cli.ts";

export const DB_USER = "postgres";
const DB_PASSWORD = "postgres";
export const DB_NAME = "postgres";

/** libpq variables that point psql, pg_prove and pg_isready at the local cluster over TCP. */
export function pgEnv(database: string = DB_NAME): Record<string, string> {
  return {
    PGHOST: LOCAL_STACK.host,
    PGPORT: String(LOCAL_STACK.dbPort),
    PGUSER: DB_USER,
    PGPASSWORD: DB_PASSWORD,
    PGDATABASE: database,
  };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, capturing its output. Never throws for a non-zero exit. */
export function runCommand(argv: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd ?? paths.root,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

const pgBin = (name: string) => join(pgBinDir(), name);

/** Prefixes a command so it runs as the cluster's OS user (`runuser -u postgres --` when root). */
export function asPgUser(argv: string[]): string[] {
  return RUNNING_AS_ROOT ? ["runuser", "-u", PG_OS_USER, "--", ...argv] : argv;
}

/** Runs a server tool as the cluster's OS user, from `/` (the project may be closed to that user). */
function runAsPgUser(argv: string[]): Promise<CommandResult> {
  return runCommand(asPgUser(argv), { cwd: "/" });
}

/**
 * Server options given on the command line at every start. They win over postgresql.conf, so a
 * cluster created on one port starts on the port configured now (MDAME_DB_PORT), whatever port
 * initdb-time settings recorded; and a cluster created with one installation starts with what the
 * installation in use now needs (pg_net and Vault preloaded, Vault's getkey script).
 */
function serverStartOptions(): string[] {
  return ["-p", String(LOCAL_STACK.dbPort), ...extensionStartOptions(pgBinDir())];
}

/** The command that runs the server in the foreground (used by the supervisor). */
export function postgresForegroundCommand(): string[] {
  return asPgUser([pgBin("postgres"), "-D", paths.pgData, ...serverStartOptions()]);
}

export function isInitialised(): boolean {
  return existsSync(join(paths.pgData, "PG_VERSION"));
}

/** Pid of the postmaster serving this cluster's data directory, or null when none is alive. */
export function runningPostmasterPid(): number | null {
  return postmasterOn(paths.pgData);
}

/** Pid of a live postmaster on `dataDir` (its postmaster.pid names a running `postgres`), else null. */
export function postmasterOn(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, "postmaster.pid"), "utf8");
  } catch {
    return null;
  }
  const pid = Number(text.split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  // A stale pid file may name a recycled pid; only a process named postgres counts.
  try {
    if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") return null;
  } catch {
    // No /proc: trust the signal check.
  }
  return pid;
}

/** Port the running postmaster listens on (line 4 of postmaster.pid), or null when unknown. */
function runningPort(): number | null {
  if (runningPostmasterPid() === null) return null;
  try {
    const port = Number(readFileSync(join(paths.pgData, "postmaster.pid"), "utf8").split("\n")[3]);
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

export function isRunning(): boolean {
  return runningPostmasterPid() !== null;
}

function pickLocale(): string {
  const out = (spawnSync("locale", ["-a"], { encoding: "utf8" }).stdout ?? "").toLowerCase().split("\n");
  if (out.includes("c.utf8") || out.includes("c.utf-8")) return "C.UTF-8";
  if (out.includes("en_us.utf8") || out.includes("en_us.utf-8")) return "en_US.UTF-8";
  throw new Error("neither C.UTF-8 nor en_US.UTF-8 locale is available (locale -a)");
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

function pgUserIds(): { uid: number; gid: number } {
  const uid = Number(spawnSync("id", ["-u", PG_OS_USER], { encoding: "utf8" }).stdout?.trim() || NaN);
  const gid = Number(spawnSync("id", ["-g", PG_OS_USER], { encoding: "utf8" }).stdout?.trim() || NaN);
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid <= 0) throw new Error(`OS user ${PG_OS_USER} not found (install postgresql-15)`);
  return { uid, gid };
}

function chownToPgUser(path: string): void {
  if (!RUNNING_AS_ROOT) return;
  const { uid, gid } = pgUserIds();
  chownSync(path, uid, gid);
}

/**
 * A cluster kept outside the clone names its clone, so `npm run clean -- --orphans` can tell when
 * the clone is gone. At init and at every start (pg_ctl's or the supervisor's), so a cluster made
 * before markers existed gets one the next time its clone runs.
 */
export function markOutsideCluster(log: (line: string) => void = console.log): void {
  if (CLUSTER_LOCATION.place !== "outside" || !isInitialised()) return;
  if (writeProjectMarker(paths.pgData, paths.root, RUNNING_AS_ROOT ? pgUserIds() : undefined)) {
    log(`db: ${paths.pgData} is marked as ${paths.root}'s cluster (npm run clean removes it with the clone's data)`);
  }
}

/** Settings appended to postgresql.conf at init (later lines win over initdb's defaults). */
function serverSettings(): string {
  return `
# --- MD-AME local stack (stack/db.ts) ---
listen_addresses = '${LOCAL_STACK.host}'
port = ${LOCAL_STACK.dbPort}
unix_socket_directories = '${paths.pgSocketDir}'
max_connections = 100
shared_buffers = 128MB
effective_cache_size = 512MB
work_mem = 8MB
maintenance_work_mem = 64MB
max_worker_processes = 16
max_parallel_workers_per_gather = 1
timezone = 'UTC'
shared_preload_libraries = 'pg_cron'
cron.database_name = '${DB_NAME}'
# Jobs run in background workers, so pg_cron needs no password to reach the server.
cron.use_background_workers = on
`;
}

/** Creates the cluster (initdb) and writes its settings. No-op when it already exists. */
export async function init(log: (line: string) => void = console.log): Promise<void> {
  if (isInitialised()) return;
  const dataDir = paths.pgData;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new Error(`${dataDir} exists, is not empty and holds no cluster; remove it or set MDAME_PGDATA`);
  }
  log(`initdb: creating cluster in ${dataDir}${RUNNING_AS_ROOT ? ` (as OS user ${PG_OS_USER}; ${CLUSTER_LOCATION.reason})` : ""}`);
  if (CLUSTER_LOCATION.place === "clone") {
    // Folders above the data directory stay open to the server's OS user (a recursive mkdir would make them 0700).
    mkdirSync(paths.local, { recursive: true, mode: 0o755 });
    mkdirSync(dirname(dataDir), { recursive: true, mode: 0o755 });
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (RUNNING_AS_ROOT) {
    // The directory holding the cluster (`.local/db`, or the one of the clusters outside) belongs to the postgres user as well.
    const parent = dirname(dataDir);
    if (parent.startsWith("/var/lib/postgresql/") || CLUSTER_LOCATION.place === "clone") chownToPgUser(parent);
    chownToPgUser(dataDir);
  }
  // The password file sits in a fresh private temp dir that the server's OS user can read.
  const pwDir = mkdtempSync(join(tmpdir(), "mdame-initdb-"));
  const pwFile = join(pwDir, "pw");
  try {
    writeFileSync(pwFile, `${DB_PASSWORD}\n`, { mode: 0o600 });
    chownToPgUser(pwDir);
    chownToPgUser(pwFile);
    const result = await runAsPgUser([
      pgBin("initdb"),
      "-D",
      dataDir,
      "-U",
      DB_USER,
      `--pwfile=${pwFile}`,
      "-E",
      "UTF8",
      `--locale=${pickLocale()}`,
      "--auth-local=peer",
      "--auth-host=scram-sha-256",
      "--no-instructions",
    ]);
    if (result.code !== 0) throw new Error(`initdb failed (exit ${result.code}):\n${result.stderr || result.stdout}`);
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
  appendFileSync(join(dataDir, "postgresql.conf"), serverSettings());
  markOutsideCluster(log);
}

/**
 * The running postmaster's command line when it differs from the one this clone would start now
 * (another installation's server, or other extension options), else null (also when unknown).
 */
function staleServerCommand(): string[] | null {
  const pid = runningPostmasterPid();
  if (pid === null) return null;
  let running: string[];
  try {
    running = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "");
  } catch {
    return null;
  }
  const wanted = ["-D", paths.pgData, ...serverStartOptions()];
  const sameBinary = existsSync(running[0] ?? "") && realpathSync(running[0]!) === realpathSync(pgBin("postgres"));
  const sameOptions = running.length === wanted.length + 1 && wanted.every((arg, i) => running[i + 1] === arg);
  return sameBinary && sameOptions ? null : running;
}

/**
 * Kills what a killed postmaster left of this cluster: its backends and background workers keep
 * running after a kill -9 (pg_cron's launcher, between the jobs it has started, does not notice
 * its postmaster's death), and while any of them lives it holds the shared memory a new server
 * needs ("pre-existing shared memory block ... is still in use"). Only when no postmaster runs on
 * the data directory, and only processes whose working directory is this cluster's data directory
 * (every server process of a cluster runs there), so no other clone's cluster is touched. Linux
 * (/proc); elsewhere nothing is done. Returns how many were killed.
 */
export function reapOrphanedServerProcesses(log: (line: string) => void = console.log): number {
  if (runningPostmasterPid() !== null || !existsSync("/proc")) return 0;
  let dataDir: string;
  try {
    dataDir = realpathSync(paths.pgData);
  } catch {
    return 0;
  }
  let killed = 0;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      if (realpathSync(`/proc/${pid}/cwd`) !== dataDir) continue;
      process.kill(pid, "SIGKILL");
      killed += 1;
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  if (killed > 0) log(`db: killed ${killed} server process(es) a dead postmaster left on ${paths.pgData}`);
  return killed;
}

/**
 * Starts the cluster with pg_ctl and waits until it accepts connections. No-op when running, unless
 * it was started otherwise than it would be now (MDAME_PG_BINDIR changed: the extensions a server
 * may load are decided at start), in which case it is restarted.
 */
export async function start(log: (line: string) => void = console.log): Promise<void> {
  if (!isInitialised()) throw new Error(`no cluster in ${paths.pgData}; run: bun stack/db.ts init`);
  markOutsideCluster(log);
  if (isRunning()) {
    const port = runningPort();
    if (port !== null && port !== LOCAL_STACK.dbPort) {
      throw new Error(
        `the cluster in ${paths.pgData} is running on port ${port}, not on MDAME_DB_PORT=${LOCAL_STACK.dbPort}; stop it (bun stack/db.ts stop) and start it again`,
      );
    }
    const stale = staleServerCommand();
    if (stale === null) return;
    if (supervisorPid() !== null) {
      throw new Error(
        `the stack's cluster runs as ${stale.join(" ")}, not as ${pgBin("postgres")} ${
          serverStartOptions().join(" ")
        } (MDAME_PG_BINDIR); stop the stack and start it again`,
      );
    }
    log(`the cluster runs as ${stale.join(" ")}; restarting it on ${pgBinDir()} with the options it needs now`);
    await stop(log);
  }
  reapOrphanedServerProcesses(log);
  reserveStackPorts(stackPorts(), log);
  const problem = await waitForPort(LOCAL_STACK.dbPort, "db", { log });
  if (problem) throw new Error(`${problem} (another clone's cluster?)`);
  log(`pg_ctl: starting the cluster on ${LOCAL_STACK.host}:${LOCAL_STACK.dbPort}`);
  const result = await runAsPgUser([
    pgBin("pg_ctl"),
    "-D",
    paths.pgData,
    "-l",
    paths.pgServerLog,
    "-o",
    serverStartOptions().join(" "),
    "-w",
    "-t",
    "60",
    "start",
  ]);
  if (result.code !== 0) {
    throw new Error(`pg_ctl start failed (exit ${result.code}):\n${result.stderr || result.stdout}\n--- ${paths.pgServerLog} ---\n${tail(paths.pgServerLog)}`);
  }
  await waitForAccepting(30_000);
}

/** Stops the cluster (fast shutdown: open sessions are ended). No-op when stopped. */
export async function stop(log: (line: string) => void = console.log): Promise<void> {
  if (!isRunning()) return;
  log("pg_ctl: stopping the cluster");
  const result = await runAsPgUser([pgBin("pg_ctl"), "-D", paths.pgData, "-m", "fast", "-w", "-t", "60", "stop"]);
  if (result.code !== 0 && isRunning()) throw new Error(`pg_ctl stop failed (exit ${result.code}):\n${result.stderr || result.stdout}`);
}

/** True once the server on 127.0.0.1:54322 accepts connections. */
export async function isAccepting(): Promise<boolean> {
  const result = await runCommand([
    pgBin("pg_isready"),
    "-q",
    "-t",
    "2",
    "-h",
    LOCAL_STACK.host,
    "-p",
    String(LOCAL_STACK.dbPort),
    "-d",
    DB_NAME,
    "-U",
    DB_USER,
  ]);
  return result.code === 0;
}

async function waitForAccepting(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isAccepting())) {
    if (Date.now() > deadline) throw new Error(`Postgres did not accept connections on ${LOCAL_STACK.host}:${LOCAL_STACK.dbPort} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** Initialises the cluster when needed and starts it when stopped. */
export async function ensureRunning(log: (line: string) => void = console.log): Promise<void> {
  await init(log);
  await start(log);
}

/** A SQL file that psql refused, with psql's own message. */
export class SqlFileError extends Error {
  constructor(readonly file: string, readonly psqlOutput: string) {
    super(`${file} failed:\n${psqlOutput.trim()}`);
    this.name = "SqlFileError";
  }
}

async function psql(args: string[], database: string = DB_NAME): Promise<CommandResult> {
  return runCommand([pgBin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", ...args], { env: pgEnv(database) });
}

/** Applies one SQL file in a single transaction; throws SqlFileError naming the file on failure. */
async function applySqlFile(file: string, database: string = DB_NAME): Promise<void> {
  const result = await psql(["--single-transaction", "-f", file], database);
  if (result.code !== 0) throw new SqlFileError(relative(paths.root, file) || file, result.stderr || result.stdout);
}

/** Runs SQL through psql; each string of an array is its own `-c` (its own transaction). */
async function execSql(label: string, sqlText: string | string[], database: string = DB_NAME): Promise<string> {
  const commands = (Array.isArray(sqlText) ? sqlText : [sqlText]).flatMap((text) => ["-c", text]);
  const result = await psql(["-At", ...commands], database);
  if (result.code !== 0) throw new SqlFileError(label, result.stderr || result.stdout);
  return result.stdout.trim();
}

/** The URL the Supabase CLI resets: the local cluster, no TLS (the server has none). */
function supabaseCliDbUrl(): string {
  return `postgresql://${DB_USER}:${DB_PASSWORD}@${LOCAL_STACK.host}:${LOCAL_STACK.dbPort}/${DB_NAME}?sslmode=disable`;
}

interface ResetOptions {
  log?: (line: string) => void;
  /** Defaults to `<project>/supabase`. */
  supabaseDir?: string;
  /** pgmq layout to test against; defaults to MDAME_PGMQ_SHAPE (docs/reference/pgmq.md). */
  pgmqShape?: PgmqShape;
  /**
   * Copy the reset template of the same inputs back instead of running the CLI, building it when
   * missing (stack/db-template.ts); defaults to MDAME_RESET_TEMPLATE=1. Never while a supervisor
   * runs the stack: the copy restarts the server.
   */
  fromTemplate?: boolean;
}

/**
 * Rebuilds the `postgres` database with the real Supabase CLI, as `supabase db reset` does: other
 * sessions ended, platform roles and extensions, pgmq (the real extension where the server has it,
 * else a fresh supabase/pgmq-compat/pgmq.sql; in pgmq 1.4's layout when MDAME_PGMQ_SHAPE=1.4), then `supabase db reset --db-url` (drops the engine,
 * applies every migration in filename order and seed.sql), then pgTAP again (the CLI drops it),
 * the pg_net and Vault stand-ins where the server lacks the extensions, then the engine role's login with the clone's password (the migration creates it without one).
 * Accounts are not part of the seed: `mdame account connect` adds them. The cluster must be running.
 * A failed file is reported as SqlFileError. With `fromTemplate` (MDAME_RESET_TEMPLATE=1, the tests'),
 * a copy of an earlier reset of the same inputs stands in for all of that (stack/db-template.ts).
 */
/** Postgres's deadlock_detected, as the Supabase CLI reports a statement it aborted. */
const DEADLOCK = /deadlock detected|SQLSTATE 40P01/;
const RESET_ATTEMPTS = 3;

export async function reset(options: ResetOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const supabaseDir = options.supabaseDir ?? join(paths.root, "supabase");
  if (!(await isAccepting())) throw new Error("the cluster is not running; run: bun stack/db.ts start");

  // The running server's own answer: the extension the first migration will create, if any.
  const serverPgmq = (await execSql("pgmq check", "select default_version from pg_available_extensions where name = 'pgmq'")) || null;
  const shape = options.pgmqShape ?? pgmqShapeFromEnv(undefined, serverPgmq);
  const template = (options.fromTemplate ?? templateRequested()) && supervisorPid() === null
    ? templateName({ supabaseDir, pgmqShape: shape, serverPgmq, pgBinDir: pgBinDir() })
    : null;
  if (template !== null && (await execSql("template check", templateExistsSql(template), "template1")) === "1") {
    log(`reset: copying ${template}, a reset of the same migrations, seed and platform (stack/db-template.ts)`);
    await execSql("copy the template", restoreSql(DB_NAME, template), "template1");
    await restartForBackgroundWorkers(log);
    // The search path is a setting of the database, outside the copy (stack/db-template.ts).
    await finishReset(log, [DATABASE_SETTINGS_SQL]);
    return;
  }

  log(`reset: ending other sessions on ${DB_NAME}, platform roles and extensions`);
  await execSql("end other sessions", TERMINATE_SESSIONS);
  await execSql("platform setup", PLATFORM_SQL);
  if (serverPgmq !== null) {
    // The first migration creates the extension at the server's default version (the CLI drops it first).
    if (shape !== pgmqShapeOfVersion(serverPgmq)) pgmqShapeFromEnv(shape, serverPgmq);
    log(`reset: create extension pgmq (${serverPgmq}, the server's)`);
    // Left by a reset on a server without the extension (MDAME_PG_BINDIR changed since).
    await execSql("drop pgmq-compat", DROP_PGMQ_COMPAT);
    await execSql("create extension pgmq", "create extension if not exists pgmq");
  } else {
    log(`reset: pgmq extension not available here; applying supabase/pgmq-compat/pgmq.sql${shape === "1.4" ? " and shape-1.4.sql (pgmq 1.4.4's layout)" : ""}`);
    await execSql("drop pgmq-compat", DROP_PGMQ_COMPAT);
    await applySqlFile(join(supabaseDir, "pgmq-compat", "pgmq.sql"));
    if (shape === "1.4") await applySqlFile(join(supabaseDir, "pgmq-compat", "shape-1.4.sql"));
  }

  log("reset: supabase db reset --db-url (migrations and seed)");
  for (let attempt = 1;; attempt++) {
    try {
      await supabaseDbReset({ supabaseDir, dbUrl: supabaseCliDbUrl(), log });
      break;
    } catch (error) {
      // A session that began after the others were ended (a pg_cron job's tick, say) can deadlock
      // with the CLI's drops; Postgres aborts one side, and the reset is whole or not at all, so
      // it is run again once those sessions are ended too.
      if (error instanceof SupabaseResetError && DEADLOCK.test(error.cliOutput) && attempt < RESET_ATTEMPTS) {
        log(`reset: deadlock with another session (attempt ${attempt} of ${RESET_ATTEMPTS}); ending other sessions and running it again`);
        await execSql("end other sessions", TERMINATE_SESSIONS);
        continue;
      }
      if (error instanceof SupabaseResetError) throw new SqlFileError(error.file ?? "supabase db reset", error.cliOutput);
      throw error;
    }
  }
  await execSql("pgtap", PGTAP_SQL);
  // After the CLI, which drops schema net (no extension owns it here); the migrations create the
  // real extensions where the server offers them, and each file leaves a real one alone.
  for (const standIn of PLATFORM_STAND_INS) {
    if ((await execSql(`${standIn.extension} check`, `select count(*) from pg_available_extensions where name = '${standIn.extension}'`)) !== "0") continue;
    log(`reset: ${standIn.extension} not available here; applying supabase/${standIn.file}`);
    await applySqlFile(join(supabaseDir, standIn.file));
  }
  await finishReset(log);
  if (template !== null) {
    log(`reset: keeping a copy as ${template} for the next reset of the same inputs (stack/db-template.ts)`);
    for (const stale of (await execSql("templates", templatesSql, "template1")).split("\n").filter(Boolean)) {
      await execSql(`drop ${stale}`, dropTemplateSql(stale), "template1");
    }
    try {
      await execSql("snapshot", snapshotSql(DB_NAME, template), "template1");
    } finally {
      await execSql("reopen", reopenSql(DB_NAME), "template1");
    }
    await restartForBackgroundWorkers(log);
  }
}

/**
 * What every reset ends with, after `before`: each component role's login, and this stack's wake
 * secrets; one psql session, each statement its own transaction, stopping at the first that fails.
 */
async function finishReset(log: (line: string) => void, before: string[] = []): Promise<void> {
  const secrets = loadOrCreateSecrets();
  const logins = (Object.entries(COMPONENT_DB_ROLES) as [DbComponent, string][]).map(([component, role]) => {
    log(`reset: ${role} (${component}) may log in with the clone's password for it (.local/secrets.json)`);
    return roleLoginSql(role, secrets[DB_ROLE_PASSWORDS[component]]);
  });
  await execSql("role logins and Vault secrets", [...before, ...logins, vaultSecretsSql(log)]);
}

/**
 * Restarts the server after its database was dropped or closed: pg_cron's scheduler (and pg_net's
 * worker) exits for good when its database goes, and only a server start brings it back.
 */
async function restartForBackgroundWorkers(log: (line: string) => void): Promise<void> {
  log("reset: restarting the server, so pg_cron's scheduler starts on the new database");
  await stop(() => {});
  await start(() => {});
}

/**
 * Stores the Vault secrets docs/guides/deploy.md has a deployer store (VAULT_SECRETS), as the stack's
 * components get their values (localStackEnv), in Vault or its stand-in (supabase/vault-compat): the
 * local edge host's functions URL and the service role key, so every wake-up posts to this stack's
 * tick, and the Telegram bot and chat (and the outside monitor's URL, when set) the watchdog pages
 * through. The reset and the stack's start both call it.
 */
export async function storeVaultSecrets(log: (line: string) => void = console.log, env: Record<string, string> = localStackEnv()): Promise<void> {
  await execSql("Vault secrets", vaultSecretsSql(log, env));
}

function vaultSecretsSql(log: (line: string) => void, env: Record<string, string> = localStackEnv()): string {
  log(
    `Vault: mdame_functions_url (${env.FUNCTIONS_URL}) and mdame_service_role_key stored for the wake-ups${
      env.TELEGRAM_BOT_TOKEN ? ", the Telegram bot for the watchdog" : ""
    }`,
  );
  return storeVaultSecretsSql(env);
}

async function printStatus(): Promise<void> {
  const pid = runningPostmasterPid();
  console.log(`data directory: ${paths.pgData}${isInitialised() ? "" : " (not initialised)"}`);
  console.log(`location:       ${CLUSTER_LOCATION.place}: ${CLUSTER_LOCATION.reason}`);
  console.log(`server:         ${pid ? `running (pid ${pid})` : "stopped"}`);
  console.log(`admin url:      ${LOCAL_DB_URL}`);
  for (const component of Object.keys(COMPONENT_DB_ROLES) as DbComponent[]) {
    console.log(`${`${component} url:`.padEnd(16)}${localComponentDbUrl(component, "*****")} (password in .local/secrets.json)`);
  }
  console.log(`server log:     ${paths.pgServerLog}`);
  console.log(`os user:        ${RUNNING_AS_ROOT ? PG_OS_USER : userInfo().username}`);
  if (pid && !(await isAccepting())) console.log("warning: the server runs but does not accept connections yet");
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  switch (command) {
    case "init":
      if (isInitialised()) console.log(`already initialised: ${paths.pgData}`);
      await init();
      return 0;
    case "start":
      await ensureRunning();
      console.log(`running: ${LOCAL_DB_URL}`);
      return 0;
    case "stop":
      await stop();
      return 0;
    case "status":
      await printStatus();
      return isRunning() ? 0 : 3;
    case "reset":
      await ensureRunning();
      await reset();
      return 0;
    default:
      console.error("usage: bun stack/db.ts init|start|stop|status|reset");
      return 2;
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
