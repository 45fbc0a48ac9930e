/**
 * After a kill -9 of the postmaster, the processes it left (backends, pg_cron's launcher) hold the
 * cluster's shared memory and refuse a restart; reapOrphanedServerProcesses kills exactly those:
 * processes named postgres whose working directory is this cluster's data directory, and only while
 * no postmaster runs there.
 */
import { afterEach, expect, test } from "bun:test";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";

const ROOT = resolve(import.meta.dir, "../..");
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A long-running process whose name (comm) is "postgres", working in `cwd`. */
function fakeServerProcess(cwd: string): ChildProcess {
  const binary = join(tempDir("mdame-fake-bin-"), "postgres");
  copyFileSync(spawnSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).stdout.trim(), binary);
  const child = spawn(binary, ["300"], { cwd, stdio: "ignore" });
  children.push(child);
  return child;
}

const alive = (child: ChildProcess) => {
  try {
    process.kill(child.pid!, 0);
    return child.exitCode === null && child.signalCode === null;
  } catch {
    return false;
  }
};

/** Runs the reaping in a process whose cluster lives in `dataDir` (MDAME_PGDATA); its answer. */
function reap(dataDir: string): { killed: number; lines: string[] } {
  const script = `import { reapOrphanedServerProcesses } from ${JSON.stringify(join(ROOT, "stack/db.ts"))};
const lines = []; const killed = reapOrphanedServerProcesses((l) => lines.push(l)); console.log(JSON.stringify({ killed, lines }));`;
  const result = spawnSync(process.execPath, ["-e", script], { env: { ...process.env, MDAME_PGDATA: dataDir }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!);
}

const settle = () => new Promise((r) => setTimeout(r, 200));

test.skipIf(process.platform !== "linux")("kills the left-over server processes of this cluster only, and says so", async () => {
  const dataDir = tempDir("mdame-pgdata-");
  const otherCluster = tempDir("mdame-pgdata-other-");
  const orphan = fakeServerProcess(dataDir);
  const othersBackend = fakeServerProcess(otherCluster);
  const notAServer = spawn("sleep", ["300"], { cwd: dataDir, stdio: "ignore" });
  children.push(notAServer);
  await settle();

  const answer = reap(dataDir);
  await settle();
  expect(answer.killed).toBe(1);
  expect(answer.lines.join("\n")).toContain("killed 1 server process(es) a dead postmaster left");
  expect(alive(orphan)).toBe(false);
  expect(alive(othersBackend)).toBe(true);
  expect(alive(notAServer)).toBe(true);
});

test.skipIf(process.platform !== "linux")("touches nothing while a postmaster runs on the data directory", async () => {
  const dataDir = tempDir("mdame-pgdata-");
  const backend = fakeServerProcess(dataDir);
  // postmaster.pid names a live process: the server is up and these are its own backends.
  writeFileSync(join(dataDir, "postmaster.pid"), `${backend.pid}\n${dataDir}\n`);
  await settle();
  expect(reap(dataDir).killed).toBe(0);
  expect(alive(backend)).toBe(true);
});
