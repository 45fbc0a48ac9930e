import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv, workerEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

// The render-runner as a deployer ships it: one executable from `npm run build:workers`, started
// in a directory that holds nothing of this repository, configured by its environment alone.
let dir: string;
let binary: string;
const keep = process.env.KEEP_TEST_EVIDENCE === "1";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mdame-worker-binary-"));
  const build = spawnSync(process.execPath, ["scripts/build-workers.ts", "render-runner", "--out-dir", join(dir, "bin")], {
    cwd: paths.root,
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`build:workers failed:\n${build.stderr}${build.stdout}`);
  binary = join(dir, "bin", "render-runner");
  await db.ensureRunning(() => {});
}, 120_000);

afterAll(() => {
  if (keep) console.error(`worker binary evidence kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
});

interface Started {
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  kill: (signal: NodeJS.Signals) => void;
}

function start(env: Record<string, string>): Started {
  const cwd = join(dir, "run");
  mkdirSync(cwd, { recursive: true });
  const child = spawn(binary, [], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  return { exit, output: () => output, kill: (signal) => child.kill(signal) };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

test("the executable is one file that runs without the repository", () => {
  expect(existsSync(binary)).toBe(true);
  expect(existsSync(`${binary}.map`)).toBe(false);
});

test("started with an empty environment it exits non-zero and names every missing variable", async () => {
  const worker = start({});
  const { code } = await worker.exit;
  expect(code).toBe(1);
  const output = worker.output();
  expect(output).toContain("render-runner: cannot start: invalid environment");
  expect(output).toContain("ENV: ENV must be set to dev or prod");
  for (const name of ["DB_URL", "FUNCTIONS_URL", "SERVICE_ROLE_KEY", "WEBHOOK_SECRET", "SUPABASE_URL"]) {
    expect(output).toContain(`${name}: not set`);
  }
}, 30_000);

test("started with the local stack's environment it checks the database and reports ready, then stops on SIGTERM", async () => {
  const env: Record<string, string> = {
    // As the supervisor starts it: its own database role, none of the publisher's secrets.
    ...workerEnv(localStackEnv(), "render-runner"),
    // FFmpeg is found on PATH as on a worker machine; nothing else is inherited.
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    STORAGE_LOCAL_DIR: join(dir, "storage"),
    WORKER_ID: "render-runner-binary-test",
    LOG_LEVEL: "info",
  };
  const worker = start(env);
  const ready = await waitFor(() => worker.output().includes('"msg":"render-runner ready"'), 30_000);
  if (!ready) worker.kill("SIGKILL");
  expect(ready, worker.output()).toBe(true);
  const readyLine = JSON.parse(worker.output().split("\n").find((l) => l.includes('"msg":"render-runner ready"'))!);
  expect(readyLine).toMatchObject({ component: "render-runner", env: "dev", level: 30 });
  worker.kill("SIGTERM");
  const { code } = await worker.exit;
  expect(code).toBe(0);
}, 60_000);

test("it builds the due weekly reports with their charts: its own role, the font and resvg's WebAssembly inside the file", async () => {
  const admin = adminSql();
  await admin`delete from mdame.weekly_reports`;
  const [queued] = await admin`select mdame.queue_weekly_reports('2026-11-22 21:00Z') as added`;
  expect(queued!.added).toBeGreaterThan(0);
  const storage = join(dir, "report-storage");
  const worker = start({
    ...workerEnv(localStackEnv(), "render-runner"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storage,
    WORKER_ID: "render-runner-binary-reports",
    LOG_LEVEL: "info",
  });
  // The first weekly reports pass runs at start (render-runner/weekly-reports.ts).
  let rows: { status: string; chart_key: string | null }[] = [];
  for (let i = 0; i < 150; i++) {
    rows = await admin<{ status: string; chart_key: string | null }[]>`select status, chart_key from mdame.weekly_reports`;
    if (rows.every((r) => r.status !== "pending")) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  worker.kill("SIGTERM");
  expect((await worker.exit).code).toBe(0);
  expect(rows.map((r) => r.status), worker.output()).toEqual(rows.map(() => "ready"));
  for (const row of rows) {
    const probe = spawnSync("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", join(storage, row.chart_key!)], {
      encoding: "utf8",
    });
    expect(probe.stdout.trim()).toBe("png");
  }
  expect(worker.output()).toContain('"msg":"weekly reports pass"');
  await admin`delete from mdame.weekly_reports`;
}, 90_000);
