/**
 * Two gpu-worker processes meeting the same scene at once generate it once: the first claims
 * (scene_hash, backend) through mdame.claim_scene_generation, the second waits for the entry.
 * Real Postgres, real Bun processes, real FFmpeg.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { PROCEDURAL_BACKEND_VERSION } from "../../shared/contracts/visual-backends.ts";
import { visualJob } from "../fixtures/visual-job.ts";

let sql: Sql;
let dir = "";

beforeAll(async () => {
  sql = createSql(LOCAL_DB_URL, { max: 2, application: "scene-race-test" });
  dir = await mkdtemp(join(tmpdir(), "mdame-scene-race-"));
});
afterAll(async () => {
  await sql?.end({ timeout: 2 });
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

function runWorker(job: unknown, generations: string, workerId: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      join(import.meta.dir, "fixtures/visual-race-worker.ts"),
      JSON.stringify(job),
      generations,
      join(dir, "store"),
      workerId,
    ], {
      stdio: ["ignore", "pipe", "pipe"],
      env: process.env,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`${workerId} exited ${code}: ${err}`))));
  });
}

test("two worker processes racing on one scene generate it once and both report it", async () => {
  const job = visualJob(`race-${crypto.randomUUID()}`, { duration_s: 3, visuals: { backends: ["procedural"], pexels_blocklist: [] } });
  const generations = join(dir, "generations.log");
  await writeFile(generations, "");
  const [a, b] = await Promise.all([runWorker(job, generations, "worker-a"), runWorker(job, generations, "worker-b")]);

  const made = (await readFile(generations, "utf8")).trim().split("\n").filter(Boolean);
  expect(made).toHaveLength(1);
  expect(a.asset_key).toBe(`scenes/${job.scene_hash}.mp4`);
  expect(b.asset_key).toBe(a.asset_key);
  expect([a.cache_hit, b.cache_hit].sort()).toEqual([false, true]);

  const rows = await sql`select backend, backend_name, asset_key from mdame.scene_cache where scene_hash = ${job.scene_hash}`;
  expect([...rows]).toEqual([{ backend: PROCEDURAL_BACKEND_VERSION, backend_name: "procedural", asset_key: a.asset_key }]);
  const [{ claims }] = await sql`select count(*)::int as claims from mdame.scene_generation_claims where scene_hash = ${job.scene_hash}`;
  expect(claims).toBe(0);
  await sql`delete from mdame.scene_cache where scene_hash = ${job.scene_hash}`;
}, 120_000);
