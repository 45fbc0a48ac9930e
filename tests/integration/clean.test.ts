/**
 * `npm run clean` against a real cluster: one is created and started at a place of the test's own
 * (MDAME_PGDATA, a throwaway port) by `stack/db.ts` in a process of its own, as a clone's would be;
 * --orphans sees it running and keeps it; cleaning stops the server and removes it, and nothing of
 * it is left: no directory, no server process, nothing listening on its port.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { cleanClone, clustersToRemove, surveyOutsideClusters } from "../../stack/clean.ts";
import { postmasterOn } from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";

let root: string;
let clustersRoot: string;
let dataDir: string;
let localDir: string;
let port: number;

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

async function dbScript(args: string[]) {
  const child = Bun.spawn([process.execPath, join(paths.root, "stack", "db.ts"), ...args], {
    cwd: paths.root,
    env: { ...process.env, MDAME_PGDATA: dataDir, MDAME_DB_PORT: String(port), MDAME_RESERVE_PORTS: "0" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: stdout + stderr };
}

async function accepting(): Promise<boolean> {
  const child = Bun.spawn(["/usr/lib/postgresql/15/bin/pg_isready", "-q", "-t", "2", "-h", "127.0.0.1", "-p", String(port)], {
    stdout: "ignore",
    stderr: "ignore",
  });
  return (await child.exited) === 0;
}

/** Server processes whose working directory is `dir` (every process of a cluster runs in its data directory). */
function serverProcessesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres" && realpathSync(`/proc/${pid}/cwd`) === dir) pids.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mdame-clean-int-"));
  // The cluster runs as the postgres OS user when the tests run as root: it must reach its directory.
  chmodSync(root, 0o755);
  clustersRoot = join(root, "mdame");
  mkdirSync(clustersRoot, { mode: 0o755 });
  dataDir = join(clustersRoot, "abcdefabcdef");
  localDir = join(root, "clone", ".local");
  mkdirSync(join(localDir, "logs"), { recursive: true });
  writeFileSync(join(localDir, "logs", "db.log"), "a log line\n");
  port = await freePort();
  const init = await dbScript(["init"]);
  expect(init.code).toBe(0);
  const start = await dbScript(["start"]);
  expect(start).toMatchObject({ code: 0 });
}, 120_000);

afterAll(async () => {
  if (existsSync(join(dataDir, "PG_VERSION"))) await dbScript(["stop"]);
  rmSync(root, { recursive: true, force: true });
}, 90_000);

test("--orphans keeps a cluster a server runs on, even unmarked and included", () => {
  expect(postmasterOn(dataDir)).not.toBeNull();
  const survey = surveyOutsideClusters(clustersRoot, new Map());
  expect(survey.map((c) => [c.dir, c.state])).toEqual([[dataDir, "running"]]);
  expect(survey[0]!.bytes).toBeGreaterThan(10 * 1024 * 1024);
  expect(clustersToRemove(survey, true)).toEqual([]);
}, 30_000);

test("cleaning stops the running cluster and leaves nothing of it", async () => {
  expect(await accepting()).toBe(true);
  const realData = realpathSync(dataDir);
  expect(serverProcessesIn(realData).length).toBeGreaterThan(0);
  let stackStopped = false;
  const lines: string[] = [];
  const removed = await cleanClone({ localDir, clusterDirs: [dataDir], stopStack: async () => void (stackStopped = true), log: (l) => lines.push(l) });
  expect(stackStopped).toBe(true);
  expect(lines[0]).toBe(`pg_ctl: stopping the cluster in ${dataDir}`);
  expect(removed.map((r) => r.path)).toEqual([dataDir, localDir]);
  expect(removed[0]!.bytes).toBeGreaterThan(10 * 1024 * 1024);
  expect(existsSync(dataDir)).toBe(false);
  expect(existsSync(localDir)).toBe(false);
  expect(readdirSync(clustersRoot)).toEqual([]);
  expect(serverProcessesIn(realData)).toEqual([]);
  expect(await accepting()).toBe(false);
}, 90_000);
