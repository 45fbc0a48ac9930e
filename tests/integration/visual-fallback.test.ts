/**
 * A scene goes down its dimension's backend list: a failing or empty backend hands it to the
 * next, a backend the worker lacks is skipped, and the clip, its backend and its credit are what
 * the task reports and records. Real emulators, clients and FFmpeg; claims in memory.
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
import { createVisualDefinition } from "../../gpu-worker/visual-task.ts";
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import type { VisualBackendName } from "../../shared/contracts/visuals.ts";
import { GeminiImageClient } from "../../shared/providers/visuals/gemini-image.ts";
import { PexelsClient } from "../../shared/providers/visuals/pexels.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import type { TaskContext } from "../../shared/worker/pull-worker.ts";
import { MemorySceneClaims } from "../fixtures/memory-scene-claims.ts";
import { visualJob } from "../fixtures/visual-job.ts";

let dir = "";
let emulator: RunningEmulator;
const lines: Array<Record<string, unknown>> = [];
const logger = createLogger("visual-fallback-test", { write: (line: string) => void lines.push(JSON.parse(line)) });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-visual-fallback-"));
  emulator = await startEmulator({ port: 0, dataDir: join(dir, "emulator"), log: () => {} });
});
afterAll(async () => {
  await emulator?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

function setup(names: VisualBackendName[]) {
  const all: Record<string, VisualBackend> = {
    "gemini-image": new GeminiImageBackend({ client: new GeminiImageClient({ apiKey: "k", baseUrl: emulator.url, model: "gemini-2.5-flash-image" }) }),
    pexels: new PexelsBackend({ client: new PexelsClient({ apiKey: "k", baseUrl: emulator.url }) }),
    procedural: new ProceduralBackend(),
  };
  const claims = new MemorySceneClaims();
  const store = new LocalDirectoryStore(join(dir, "store"));
  const definition = createVisualDefinition({ store, claims, backends: new Map(names.map((n) => [n, all[n]!])), workDir: dir });
  const ctx: TaskContext = {
    logger,
    signal: new AbortController().signal,
    heartbeat: async () => {},
    queue: "visual_generation",
    msgId: 7,
    readCt: 1,
    workerId: "fallback-test",
  };
  return { claims, store, run: (job: VisualJob) => definition.run(job, ctx) };
}

const fault = (service: string, kind: string, count = 1) =>
  fetch(`${emulator.url}/_emulator/${service === "pexels" ? "pexels/" : ""}faults`, { method: "POST", body: JSON.stringify({ service, kind, count }) });

test("the first backend makes the scene when it can", async () => {
  const { run, claims } = setup(["gemini-image", "pexels", "procedural"]);
  const job = visualJob("fallback-first");
  expect(await run(job)).toMatchObject({ backend: "gemini-image/1:gemini-2.5-flash-image", cache_hit: false });
  expect([...claims.entries.values()].map((e) => e.backendName)).toEqual(["gemini-image"]);
}, 60_000);

test("Gemini failing hands the scene to Pexels, whose credit is recorded with the clip", async () => {
  const { run, claims, store } = setup(["gemini-image", "pexels", "procedural"]);
  expect((await fault("gemini", "unavailable", 10)).status).toBe(200);
  try {
    const outcome = await run(visualJob("fallback-gemini-down"));
    expect(outcome).toMatchObject({ backend: "pexels/1", cache_hit: false });
    expect(await store.exists((outcome as { asset_key: string }).asset_key)).toBe(true);
    const [entry] = [...claims.entries.values()];
    expect(entry).toMatchObject({ backendName: "pexels", credit: { provider: "pexels", licence: "Pexels License" } });
    expect(lines.some((l) => l.msg === "visual backend failed; trying the next" && l.next === "pexels")).toBe(true);
  } finally {
    await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
  }
}, 60_000);

test("a 429 or a 503 from Pexels hands the scene to procedural", async () => {
  for (const kind of ["rate_limited", "unavailable"]) {
    const { run } = setup(["pexels", "procedural"]);
    expect((await fault("pexels", kind)).status).toBe(200);
    expect(await run(visualJob(`fallback-pexels-${kind}`, { visuals: { backends: ["pexels", "procedural"], pexels_blocklist: [] } })))
      .toMatchObject({ backend: "procedural-ffmpeg/1", cache_hit: false });
  }
}, 60_000);

test("a backend this worker lacks is skipped with a log line; a blocked search falls through", async () => {
  const { run } = setup(["pexels", "procedural"]);
  const job = visualJob("fallback-skip", {
    keywords: ["casino"],
    visuals: { backends: ["gemini-image", "pexels", "procedural"], pexels_blocklist: ["casino"] },
  });
  expect(await run(job)).toMatchObject({ backend: "procedural-ffmpeg/1" });
  expect(lines.some((l) => l.msg === "visual backend not configured on this worker; skipped" && l.backend === "gemini-image")).toBe(true);
}, 60_000);

test("a repeat finds each backend's own cache entry", async () => {
  const { run } = setup(["gemini-image", "procedural"]);
  const job = visualJob("fallback-repeat", { visuals: { backends: ["gemini-image", "procedural"], pexels_blocklist: [] } });
  const first = await run(job);
  expect(await run(job)).toEqual({ ...(first as Record<string, unknown>), cache_hit: true } as never);
}, 60_000);
