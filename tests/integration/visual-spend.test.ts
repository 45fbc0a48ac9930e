/**
 * The gpu-worker's paid backends under the spend scope (docs/reference/spend.md), against the real
 * Postgres and the emulators: a Gemini still is recorded as one image at its price, as the emulator
 * counted it; a scene found in the scene cache is recorded at 0 USD, marked cached; and a paid
 * backend whose call would pass the dimension's budget is never called: the scene goes down the
 * dimension's list to a free backend.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningEmulator, startEmulator } from "../../emulators/main.ts";
import { GeminiImageBackend } from "../../gpu-worker/backends/gemini-image.ts";
import { PexelsBackend } from "../../gpu-worker/backends/pexels.ts";
import { ProceduralBackend } from "../../gpu-worker/backends/procedural.ts";
import type { VisualBackend } from "../../gpu-worker/backends/visual-backend.ts";
import type { VisualBackendName } from "../../shared/contracts/visuals.ts";
import { createVisualDefinition } from "../../gpu-worker/visual-task.ts";
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { GeminiImageClient } from "../../shared/providers/visuals/gemini-image.ts";
import { PexelsClient } from "../../shared/providers/visuals/pexels.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import type { TaskContext } from "../../shared/worker/pull-worker.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { MemorySceneClaims } from "../fixtures/memory-scene-claims.ts";
import { visualJob } from "../fixtures/visual-job.ts";

const admin = adminSql();
let dir = "";
let emulator: RunningEmulator;
let sql: Sql;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(localStackEnv().DB_URL, { max: 2, application: "mdame-visual-spend-test" });
  dir = await mkdtemp(join(tmpdir(), "mdame-visual-spend-"));
  emulator = await startEmulator({ port: 0, dataDir: join(dir, "emulator"), log: () => {} });
}, 60_000);

afterAll(async () => {
  await emulator?.stop();
  await sql?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const claims = new MemorySceneClaims();

function worker() {
  const backends = new Map<VisualBackendName, VisualBackend>(
    [
      ["gemini-image", new GeminiImageBackend({ client: new GeminiImageClient({ apiKey: "k", baseUrl: emulator.url, model: "gemini-2.5-flash-image" }) })],
      ["pexels", new PexelsBackend({ client: new PexelsClient({ apiKey: "k", baseUrl: emulator.url }) })],
      ["procedural", new ProceduralBackend()],
    ],
  );
  const store = new LocalDirectoryStore(join(dir, "store"));
  const definition = createVisualDefinition({ store, claims, backends: backends, workDir: dir, spendSql: sql });
  const ctx: TaskContext = {
    logger: createLogger("visual-spend-test", undefined, "silent"),
    signal: new AbortController().signal,
    heartbeat: async () => {},
    queue: "visual_generation",
    msgId: 9,
    readCt: 1,
    workerId: "visual-spend-test",
  };
  return (job: VisualJob) => definition.run(job, ctx);
}

const calls = async () => ((await (await fetch(`${emulator.url}/_emulator/calls`)).json()) as { calls: Record<string, number> }).calls;
const usage = async (unitId: string) => [
  ...await admin`select provider, kind, quantity::float8 as quantity, usd::float8 as usd, cached, stage from mdame.provider_usage where unit_id = ${unitId} order by id`,
];

test("a Gemini still is one image at its price, as the emulator counted it; the same scene again costs nothing and says so", async () => {
  const run = worker();
  const job = visualJob("spend-still", { unit_id: crypto.randomUUID() });
  expect(await run(job)).toMatchObject({ backend: "gemini-image/1:gemini-2.5-flash-image", cache_hit: false });
  expect(await calls()).toEqual({ "gemini-image": 1 });
  expect(await usage(job.unit_id)).toEqual([{ provider: "gemini-image", kind: "images", quantity: 1, usd: 0.039, cached: false, stage: "media" }]);

  expect(await run(job)).toMatchObject({ cache_hit: true });
  expect(await calls()).toEqual({ "gemini-image": 1 });
  expect((await usage(job.unit_id)).map((u) => [u.provider, u.usd, u.cached])).toEqual([["gemini-image", 0.039, false], ["gemini-image", 0, true]]);
}, 60_000);

test("an image that would pass the daily budget is never asked for: the scene goes to the next backend of the dimension's list", async () => {
  await admin`update mdame.dimensions set budget = '{"daily_usd": 0.05}' where id = 'tech-explained'`;
  try {
    const run = worker();
    const job = visualJob("spend-over-budget", { unit_id: crypto.randomUUID() });
    expect(await run(job)).toMatchObject({ backend: "pexels/1", cache_hit: false });
    expect(await calls()).toEqual({ "gemini-image": 1, pexels: 1 });
    expect(await usage(job.unit_id)).toEqual([{ provider: "pexels", kind: "requests", quantity: 1, usd: 0, cached: false, stage: "media" }]);
    expect(await admin`select 1 from mdame.alerts where kind = 'spend_budget' and details->>'threshold' = '100'`).toHaveLength(1);
  } finally {
    await admin`update mdame.dimensions set budget = null where id = 'tech-explained'`;
  }
}, 60_000);
