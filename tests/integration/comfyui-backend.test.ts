/**
 * The ComfyUI backend against the ComfyUI emulator: the HTTP + WebSocket protocol spoken for
 * real (upload, queue, progress over /ws, history, view, interrupt) and the frames made into the
 * scene clip by FFmpeg.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningComfyUi, startComfyUiEmulator } from "../../emulators/comfyui/server.ts";
import { type RunningEmulator, startEmulator } from "../../emulators/main.ts";
import { ComfyUiBackend, comfyWorkflowFor } from "../../gpu-worker/backends/comfyui.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { ComfyUiClient } from "../../shared/providers/visuals/comfyui.ts";
import { GeminiImageClient } from "../../shared/providers/visuals/gemini-image.ts";
import { visualJob } from "../fixtures/visual-job.ts";

const logger = createLogger("comfyui-test", { write: () => {} });
let dir = "";
let comfy: RunningComfyUi;
let google: RunningEmulator;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-comfyui-"));
  comfy = await startComfyUiEmulator({ dataDir: join(dir, "comfy"), stepDelayMs: 20 });
  google = await startEmulator({ port: 0, dataDir: join(dir, "google"), log: () => {} });
});
afterAll(async () => {
  await comfy?.stop();
  await google?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const stills = () => new GeminiImageClient({ apiKey: "k", baseUrl: google.url, model: "gemini-2.5-flash-image" });

test("AnimateDiff: the filled workflow is queued, progress reaches the heartbeat, frames become the clip", async () => {
  const job = visualJob("comfy-animatediff", { duration_s: 3 });
  const backend = new ComfyUiBackend({ workflow: "animatediff", client: new ComfyUiClient({ baseUrl: comfy.url }) });
  let progress = 0;
  await backend.generate(job, join(dir, "animatediff.mp4"), { logger, signal: new AbortController().signal, progress: () => void progress++ });
  const info = await probeMedia(join(dir, "animatediff.mp4"));
  expect(info.video).toMatchObject({ width: 720, height: 1280, codec_name: "h264", fps: 30 });
  expect(Math.abs(info.duration_s - 3)).toBeLessThan(0.1);
  expect(progress).toBeGreaterThanOrEqual(20);
  const sent = comfy.prompts.at(-1)!.workflow;
  expect(sent["3"]!.inputs!.text).toStartWith(job.prompt);
  expect(sent["5"]!.inputs).toMatchObject({ width: 512, height: 896, batch_size: 16 });
  expect(typeof sent["6"]!.inputs!.seed).toBe("number");
}, 60_000);

test("SVD: a Gemini still is uploaded and animated (img2vid)", async () => {
  const job = visualJob("comfy-svd", { duration_s: 2 });
  const backend = new ComfyUiBackend({ workflow: "svd", client: new ComfyUiClient({ baseUrl: comfy.url }), stills: stills() });
  expect(backend.version).toBe("comfyui-svd/1:gemini-2.5-flash-image");
  await backend.generate(job, join(dir, "svd.mp4"), { logger, signal: new AbortController().signal });
  expect((await probeMedia(join(dir, "svd.mp4"))).video).toMatchObject({ width: 720, height: 1280, codec_name: "h264", fps: 30 });
  const sent = comfy.prompts.at(-1)!.workflow;
  expect(sent["2"]!.inputs!.image).toBe(`mdame-${job.scene_hash.slice(0, 16)}.png`);
  expect(sent["3"]!.inputs).toMatchObject({ width: 576, height: 1024, video_frames: 25 });
}, 60_000);

test("the outputs are read once ComfyUI stored its history, which it does after execution_success", async () => {
  // A server slow to store the entry: the prompt's end is announced 1.5 s before /history holds it.
  const late = await startComfyUiEmulator({ dataDir: join(dir, "comfy-late"), stepDelayMs: 5, historyDelayMs: 1500 });
  try {
    const backend = new ComfyUiBackend({ workflow: "animatediff", client: new ComfyUiClient({ baseUrl: late.url }) });
    await backend.generate(visualJob("comfy-late", { duration_s: 2 }), join(dir, "late.mp4"), { logger, signal: new AbortController().signal });
    expect((await probeMedia(join(dir, "late.mp4"))).video).toMatchObject({ width: 720, height: 1280 });
  } finally {
    await late.stop();
  }
}, 60_000);

test("an abort mid-generation sends /interrupt and the prompt stops", async () => {
  const slow = await startComfyUiEmulator({ dataDir: join(dir, "comfy-slow"), stepDelayMs: 300 });
  try {
    const controller = new AbortController();
    const backend = new ComfyUiBackend({ workflow: "animatediff", client: new ComfyUiClient({ baseUrl: slow.url }) });
    let steps = 0;
    const run = backend.generate(visualJob("comfy-abort"), join(dir, "abort.mp4"), {
      logger,
      signal: controller.signal,
      progress: () => {
        if (++steps === 3) controller.abort(new Error("worker stopping"));
      },
    });
    await expect(run).rejects.toThrow("worker stopping");
    expect(slow.interrupts).toBe(1);
    await Bun.sleep(700);
    expect(slow.prompts[0]!.interrupted).toBe(true);
  } finally {
    await slow.stop();
  }
}, 30_000);

test("a workflow with a placeholder left unfilled is refused before it is sent", () => {
  expect(() => comfyWorkflowFor("svd", visualJob("comfy-missing"))).toThrow("workflow placeholders without a value: image");
});
