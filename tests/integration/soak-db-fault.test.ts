/**
 * The soak's sick-database controller against this clone's real cluster: while the database is
 * sick, every new TCP login is refused by pg_hba.conf, sessions already open are ended, and a
 * session that slips in is ended by the next sweep, while pg_cron's launcher is left alone;
 * afterwards pg_hba.conf is the healthy file again, byte for byte, and logins work. A window of
 * the soak ends early, healthy, when the soak is interrupted or the day runs out. A soak that
 * dies mid-fault (SIGKILL) leaves a mark that the next start undoes; one that exits on an error
 * restores the database on its way out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { hbaFiles, isSick, makeDatabaseSick, restoreHealthyDatabase, terminateClientSessions } from "../../scripts/soak/db-fault.ts";
import { SickDatabaseWindow } from "../../scripts/soak/sick-window.ts";
import { LOCAL_DB_URL, LOCAL_STACK } from "../../shared/config/local-stack.ts";
import { createSql } from "../../shared/db/client.ts";
import { asPgUser, DB_NAME, DB_USER, ensureRunning } from "../../stack/db.ts";
import { pgBinDir } from "../../stack/pg-server.ts";
import { paths } from "../../stack/paths.ts";

let healthy: string;

beforeAll(async () => {
  await ensureRunning(() => {});
  // A run of this file that died half-way is not this run's problem.
  await restoreHealthyDatabase();
  healthy = readFileSync(hbaFiles().live, "utf8");
});

afterAll(async () => {
  await restoreHealthyDatabase();
});

/** A fresh TCP login as the cluster's superuser: "ok" or the error code the server gave. */
async function tcpLogin(): Promise<string> {
  const sql = createSql(LOCAL_DB_URL, { max: 1, application: "soak-db-fault-test" });
  try {
    await sql`select 1`;
    return "ok";
  } catch (error) {
    return String((error as { code?: string }).code ?? (error as Error).message);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

/** TCP logins may take the server's reload a moment to follow: asks until the answer is `want` (at most 5 s). */
async function tcpLoginBecomes(want: string): Promise<string> {
  let last = "";
  for (let i = 0; i < 50; i++) {
    last = await tcpLogin();
    if (last === want) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return last;
}

/** A session over the local socket, as the cluster's OS user, running `sqlText`; resolves with psql's exit code and output. */
function localSession(sqlText: string): { done: Promise<{ code: number | null; output: string }> } {
  const argv = asPgUser([
    join(pgBinDir(), "psql"),
    "-X",
    "-At",
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
  const child = spawn(argv[0]!, argv.slice(1), { cwd: "/", stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { done: new Promise((resolve) => child.once("exit", (code) => resolve({ code, output }))) };
}

async function cronLaunchers(): Promise<number> {
  const sql = createSql(LOCAL_DB_URL, { max: 1 });
  try {
    const [row] = await sql`select count(*)::int as n from pg_stat_activity where backend_type = 'pg_cron launcher'`;
    return row!.n as number;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

test("while sick, TCP logins are refused and open sessions are ended; afterwards the healthy file is back and logins work", async () => {
  expect(await tcpLogin()).toBe("ok");
  const launchers = await cronLaunchers();
  const before = statSync(hbaFiles().live);

  const open = createSql(LOCAL_DB_URL, { max: 1, application: "soak-db-fault-test-open" });
  await open`select 1`;
  const longQuery = open`select pg_sleep(30)`.then(() => "finished", () => "ended by the server");
  await new Promise((resolve) => setTimeout(resolve, 300));

  const ended = await makeDatabaseSick();
  expect(ended).toBeGreaterThanOrEqual(1);
  expect(isSick()).toBe(true);
  expect(await longQuery).toBe("ended by the server");
  await open.end({ timeout: 1 }).catch(() => {});
  // 28000: invalid_authorization_specification, what pg_hba.conf's reject answers.
  expect(await tcpLoginBecomes("28000")).toBe("28000");

  // A session that slips in (here over the socket the controller keeps open) is ended by the next sweep.
  const slipped = localSession("select pg_sleep(30)");
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await terminateClientSessions()).toBeGreaterThanOrEqual(1);
  const { code, output } = await slipped.done;
  expect(code).not.toBe(0);
  expect(output).toContain("terminating connection due to administrator command");

  expect(await restoreHealthyDatabase()).toBe(true);
  expect(isSick()).toBe(false);
  expect(readFileSync(hbaFiles().live, "utf8")).toBe(healthy);
  const after = statSync(hbaFiles().live);
  expect({ uid: after.uid, gid: after.gid, mode: after.mode }).toEqual({ uid: before.uid, gid: before.gid, mode: before.mode });
  expect(await tcpLoginBecomes("ok")).toBe("ok");
  // pg_cron's launcher is a background worker, not a client: it was left running.
  expect(await cronLaunchers()).toBe(launchers);
  // Nothing left to restore.
  expect(await restoreHealthyDatabase()).toBe(false);
});

test("a soak's window of minutes ends at once when the soak is interrupted, or when the day runs out", async () => {
  let interrupted = false;
  const fault = { id: "d1-f1", day: 0, injected_at: null as string | null, active_until: null as string | null, note: null as string | null };
  const window = await SickDatabaseWindow.begin(fault, 600, () => interrupted, () => {});
  expect(window.active).toBe(true);
  expect(fault.injected_at).not.toBeNull();
  expect(await tcpLoginBecomes("28000")).toBe("28000");
  interrupted = true;
  const record = await window.done;
  expect(record.ended_by).toBe("interrupted");
  expect(window.active).toBe(false);
  expect(isSick()).toBe(false);
  expect(await tcpLoginBecomes("ok")).toBe("ok");
  expect(record.log_lines.ceiling_per_s).toBe(5);

  const dayEnd = await SickDatabaseWindow.begin({ ...fault, id: "d1-f2" }, 600, () => false, () => {});
  expect(isSick()).toBe(true);
  expect((await dayEnd.finish()).ended_by).toBe("day_end");
  expect(isSick()).toBe(false);
  expect(await tcpLoginBecomes("ok")).toBe("ok");
}, 30_000);

/** Runs a Bun script in a process of its own (the soak's environment, ports included). */
function bunScript(code: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", code], { cwd: paths.root, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (exitCode, signal) => resolve({ code: exitCode, signal, output }));
  });
}

const controller = JSON.stringify(join(paths.root, "scripts", "soak", "db-fault.ts"));

test("a soak killed while the database is sick leaves it sick; the next start makes it healthy", async () => {
  const crashed = await bunScript(`
    import { makeDatabaseSick } from ${controller};
    await makeDatabaseSick();
    process.kill(process.pid, "SIGKILL");`);
  expect(crashed.signal).toBe("SIGKILL");
  expect(isSick()).toBe(true);
  expect(await tcpLoginBecomes("28000")).toBe("28000");

  expect(await restoreHealthyDatabase()).toBe(true);
  expect(existsSync(hbaFiles().healthy)).toBe(false);
  expect(readFileSync(hbaFiles().live, "utf8")).toBe(healthy);
  expect(await tcpLoginBecomes("ok")).toBe("ok");
});

test("a soak that ends on an error while the database is sick restores it on its way out", async () => {
  const failed = await bunScript(`
    import { makeDatabaseSick, restoreOnExit } from ${controller};
    restoreOnExit((line) => console.log(line));
    await makeDatabaseSick();
    throw new Error("the soak failed mid-fault");`);
  expect(failed.code).not.toBe(0);
  expect(failed.output).toContain("the soak failed mid-fault");
  expect(failed.output).toContain("pg_hba.conf is restored");
  expect(isSick()).toBe(false);
  expect(readFileSync(hbaFiles().live, "utf8")).toBe(healthy);
  expect(await tcpLoginBecomes("ok")).toBe("ok");
});
