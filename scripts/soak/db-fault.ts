/**
 * The sick-database fault, done from outside the engine as a broken database server would: the
 * cluster's pg_hba.conf is swapped for one that rejects every TCP connection, the server reloads
 * it, and every client session is ended (pg_terminate_backend) and ended again while the fault
 * lasts. Only the local socket stays open, with peer authentication, for this controller, which
 * runs psql as the cluster's OS user. The healthy file waits next to it
 * (`pg_hba.conf.soak-healthy`); while that copy exists the database counts as sick, so a soak that
 * died mid-fault leaves a mark the next soak start undoes (`restoreHealthyDatabase`).
 *
 * pg_cron's launcher and job workers are background workers, not client backends: they are left
 * alone (a terminated launcher would not come back until the server restarts).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { LOCAL_STACK } from "../../shared/config/local-stack.ts";
import { asPgUser, DB_NAME, DB_USER, runCommand, runningPostmasterPid } from "../../stack/db.ts";
import { pgBinDir } from "../../stack/pg-server.ts";
import { paths } from "../../stack/paths.ts";

/** The live file and the healthy copy kept while the database is sick. */
export function hbaFiles(dataDir: string = paths.pgData): { live: string; healthy: string } {
  return { live: join(dataDir, "pg_hba.conf"), healthy: join(dataDir, "pg_hba.conf.soak-healthy") };
}

/** The healthy file's `local` lines (the controller's way in), then a rejection of every TCP client. */
export function sickHba(healthy: string): string {
  const local = healthy.split("\n").filter((line) => /^\s*local\s/.test(line));
  return [
    "# The soak's sick-database fault (scripts/soak/db-fault.ts): every TCP connection is refused",
    "# until the healthy file, pg_hba.conf.soak-healthy, is put back.",
    ...(local.length > 0 ? local : ["local   all   all   peer"]),
    "host    all   all   0.0.0.0/0   reject",
    "host    all   all   ::/0        reject",
    "",
  ].join("\n");
}

/** Ends every client session but the caller's own; the count it ended. */
const TERMINATE_CLIENTS = `
select count(pg_terminate_backend(pid)) from pg_stat_activity
 where backend_type = 'client backend' and pid <> pg_backend_pid()`;

function psqlArgs(sqlText: string): string[] {
  return asPgUser([
    join(pgBinDir(), "psql"),
    "-X",
    "-q",
    "-At",
    "-v",
    "ON_ERROR_STOP=1",
    "-h",
    paths.pgSocketDir,
    "-p",
    String(LOCAL_STACK.dbPort),
    "-U",
    DB_USER,
    "-d",
    DB_NAME,
    "-c",
    sqlText,
  ]);
}

/** Runs SQL over the local socket as the cluster's OS user (peer authentication). */
async function psqlLocal(sqlText: string): Promise<string> {
  const result = await runCommand(psqlArgs(sqlText), { cwd: "/" });
  if (result.code !== 0) throw new Error(`psql over the local socket failed: ${(result.stderr || result.stdout).trim()}`);
  return result.stdout.trim();
}

/** True while a healthy copy waits to be put back. */
export function isSick(dataDir: string = paths.pgData): boolean {
  return existsSync(hbaFiles(dataDir).healthy);
}

/** Ends every client session; 0 when the server cannot be reached (it may be restarting). */
export async function terminateClientSessions(): Promise<number> {
  if (runningPostmasterPid() === null) return 0;
  try {
    return Number(await psqlLocal(TERMINATE_CLIENTS)) || 0;
  } catch {
    return 0;
  }
}

/** Makes the server read its configuration files again (what pg_reload_conf() asks of it). */
async function reload(): Promise<void> {
  if (runningPostmasterPid() === null) return;
  try {
    await psqlLocal("select pg_reload_conf()");
  } catch {
    // The server is on its way down or up: a server that starts reads the file anyway.
  }
}

/**
 * Makes the database sick: the rejecting pg_hba.conf in force and every client session ended.
 * Returns the sessions ended. Refuses when it is sick already (the healthy copy would be lost).
 */
export async function makeDatabaseSick(): Promise<number> {
  const files = hbaFiles();
  if (isSick()) throw new Error(`the database is sick already (${files.healthy} exists)`);
  const healthy = readFileSync(files.live, "utf8");
  // The healthy copy first: from here on, a crash leaves a mark the next soak start undoes.
  writeFileSync(files.healthy, healthy, { mode: 0o600 });
  // Rewritten in place, so the file keeps the owner and mode the server needs to read it.
  writeFileSync(files.live, sickHba(healthy));
  await reload();
  return await terminateClientSessions();
}

/**
 * Puts the healthy pg_hba.conf back and has the server reload it. Returns false when the database
 * was not sick. Used at the end of the fault and at the start of every soak, for a fault a
 * crashed soak left in force.
 */
export async function restoreHealthyDatabase(): Promise<boolean> {
  const files = hbaFiles();
  if (!isSick()) return false;
  writeFileSync(files.live, readFileSync(files.healthy, "utf8"));
  rmSync(files.healthy, { force: true });
  await reload();
  return true;
}

/**
 * The same, for a process on its way out (`process.on("exit")` runs no asynchronous work): the
 * server is told to reload by SIGHUP to the postmaster, as pg_reload_conf() does.
 */
export function restoreHealthyDatabaseSync(): boolean {
  const files = hbaFiles();
  if (!isSick()) return false;
  writeFileSync(files.live, readFileSync(files.healthy, "utf8"));
  rmSync(files.healthy, { force: true });
  const pid = runningPostmasterPid();
  try {
    if (pid !== null) process.kill(pid, "SIGHUP");
  } catch {
    // Gone meanwhile: a server that starts reads the healthy file.
  }
  return true;
}

/** However the process ends (an uncaught error, process.exit), it does not leave the database sick. */
export function restoreOnExit(log: (line: string) => void): void {
  process.on("exit", () => {
    if (restoreHealthyDatabaseSync()) log("the database was still sick: its pg_hba.conf is restored");
  });
}
