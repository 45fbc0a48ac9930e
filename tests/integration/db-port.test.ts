/**
 * MDAME_DB_PORT decides where the local cluster listens at every start, not only when the cluster
 * is created: a throwaway cluster is created on one port, then started on another by `db.ts start`
 * (pg_ctl) and by the supervisor's foreground command (db.postgresForegroundCommand), each from a
 * process of its own with its own environment, as a clone moved to other ports would.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { paths } from "../../stack/paths.ts";

let root: string;
let pgData: string;
let createdOn: number;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function dbScript(args: string[], port: number) {
  const child = Bun.spawn([process.execPath, join(paths.root, "stack", "db.ts"), ...args], {
    cwd: paths.root,
    // Throwaway ports: not worth a place in the kernel's reserved list.
    env: { ...process.env, MDAME_PGDATA: pgData, MDAME_DB_PORT: String(port), MDAME_RESERVE_PORTS: "0" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: stdout + stderr };
}

/** Whether a server answers on the port (pg_isready from the same binaries). */
async function accepting(port: number): Promise<boolean> {
  const child = Bun.spawn(["/usr/lib/postgresql/15/bin/pg_isready", "-q", "-t", "2", "-h", "127.0.0.1", "-p", String(port)], {
    stdout: "ignore",
    stderr: "ignore",
  });
  return (await child.exited) === 0;
}

async function waitAccepting(port: number, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    if (await accepting(port)) return true;
    await Bun.sleep(200);
  }
  return false;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mdame-db-port-"));
  // The cluster runs as the postgres OS user when the tests run as root: it must reach its directory.
  chmodSync(root, 0o755);
  pgData = join(root, "data");
  createdOn = await freePort();
  const init = await dbScript(["init"], createdOn);
  expect(init.code).toBe(0);
}, 90_000);

afterAll(async () => {
  await dbScript(["stop"], createdOn);
  rmSync(root, { recursive: true, force: true });
}, 90_000);

test("db.ts start listens on the port configured now, not the one the cluster was created with", async () => {
  const moved = await freePort();
  const start = await dbScript(["start"], moved);
  try {
    expect(start.output).toContain(`:${moved}`);
    expect(start.code).toBe(0);
    expect(await accepting(moved)).toBe(true);
    expect(await accepting(createdOn)).toBe(false);
    // Running on one port, the cluster is not silently taken for started on another.
    const elsewhere = await dbScript(["start"], createdOn);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.output).toContain(`is running on port ${moved}, not on MDAME_DB_PORT=${createdOn}`);
  } finally {
    expect((await dbScript(["stop"], moved)).code).toBe(0);
  }
}, 90_000);

test("the supervisor's foreground command listens on the port configured now", async () => {
  const moved = await freePort();
  const printer = Bun.spawn([
    process.execPath,
    "-e",
    `
    const db = await import(${JSON.stringify(join(paths.root, "stack", "db.ts"))});
    console.log(JSON.stringify(db.postgresForegroundCommand()));`,
  ], {
    cwd: paths.root,
    env: { ...process.env, MDAME_PGDATA: pgData, MDAME_DB_PORT: String(moved) },
    stdout: "pipe",
  });
  const command = JSON.parse((await new Response(printer.stdout).text()).trim()) as string[];
  const server = Bun.spawn(command, { cwd: "/", stdout: "ignore", stderr: "pipe" });
  try {
    const up = await waitAccepting(moved, 30_000);
    if (!up) console.error(await new Response(server.stderr).text());
    expect(up).toBe(true);
    expect(await accepting(createdOn)).toBe(false);
  } finally {
    // Fast shutdown (SIGINT) sent to the postmaster itself, as the supervisor stops it: a runuser
    // in between does not pass SIGINT on.
    try {
      const postmaster = Number(readFileSync(join(pgData, "postmaster.pid"), "utf8").split("\n")[0]);
      if (Number.isInteger(postmaster) && postmaster > 0) process.kill(postmaster, "SIGINT");
    } catch {
      // No pid file: the server never came up (its stderr is printed above).
    }
    await Promise.race([server.exited, Bun.sleep(20_000).then(() => server.kill("SIGKILL"))]);
  }
}, 90_000);
