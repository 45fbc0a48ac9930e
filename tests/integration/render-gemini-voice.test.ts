/**
 * A Gemini TTS voice track (WAV, words aligned from the audio) renders like an Edge TTS one:
 * the real client against the emulator, the track through Supabase Storage (emulator), the
 * render-runner's task with FFmpeg.
 */
import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProceduralBackend } from "../../gpu-worker/backends/procedural.ts";
import { sceneAssetKey } from "../../gpu-worker/visual-task.ts";
import { createRenderDefinition } from "../../render-runner/render-task.ts";
import type { RenderJob, VisualJob } from "../../shared/contracts/queue.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { synthesizeWithGeminiTts } from "../../shared/providers/tts/gemini-tts.ts";
import { SupabaseStore } from "../../shared/storage/supabase-store.ts";
import { startEmulator } from "../../emulators/main.ts";

const SCRIPT = "Octopuses have three hearts. Two pump blood to the gills, one to the body. Follow for more.";
const STORAGE_KEY = crypto.randomUUID().replaceAll("-", "");
const logger = createLogger("render-gemini-voice-test", { write: () => {} });
let dir = "";
let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;

afterAll(async () => {
  await emulator?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

test("a video renders with a Gemini TTS voice track: audio muxed, length from the WAV", async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-render-gemini-"));
  const work = join(dir, "work");
  await mkdir(work);
  emulator = await startEmulator({ port: 0, dataDir: join(dir, "emulator"), storageServiceKey: STORAGE_KEY, log: () => {} });
  const store = new SupabaseStore({ url: emulator.url, serviceRoleKey: STORAGE_KEY, bucket: "mdame-render-gemini-test" });

  const speech = await synthesizeWithGeminiTts({ apiKey: "test-key", baseUrl: emulator.url, text: SCRIPT, voice: "Puck", languageCode: "en-US" });
  expect(speech.extension).toBe("wav");
  const audioKey = `voice/${createHash("sha256").update(SCRIPT).digest("hex")}.wav`;
  await writeFile(join(work, "voice.wav"), speech.audio);
  await store.putFile(audioKey, join(work, "voice.wav"), speech.contentType);

  const backend = new ProceduralBackend();
  const scenes: RenderJob["scenes"] = [];
  for (const [index, firstWord] of [0, 4].entries()) {
    const sceneHash = createHash("sha256").update(`render-gemini-scene-${index}`).digest("hex");
    const visual: VisualJob = {
      run_id: "7b0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
      unit_id: "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f",
      scene_id: crypto.randomUUID(),
      scene_index: index,
      scene_hash: sceneHash,
      dimension_id: "ocean-facts",
      prompt: `scene ${index}`,
      style: { palette: ["#0b1d51", "#1f77b4", "#e15759", "#f4d35e"], motion: "drift", caption_font: "DejaVu Sans" },
      duration_s: 2,
      width: 720,
      height: 1280,
      fps: 30,
      step_token: `step:plan-1:${index}:abc`,
    };
    const clip = join(work, `scene-${index}.mp4`);
    await backend.generate(visual, clip, { logger, signal: new AbortController().signal });
    await store.putFile(sceneAssetKey(sceneHash), clip, "video/mp4");
    scenes.push({ index, asset_key: sceneAssetKey(sceneHash), first_word: firstWord });
  }
  const job: RenderJob = {
    run_id: "7b0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
    unit_id: "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f",
    dimension_id: "ocean-facts",
    title: "Three hearts",
    audio_key: audioKey,
    audio_duration_ms: speech.durationMs,
    words: speech.words,
    scenes,
    caption_font: "DejaVu Sans",
    caption_profile: "intersection",
    step_token: "step:unit-1:5:gemini",
  };
  const ctx = {
    logger,
    signal: new AbortController().signal,
    heartbeat: () => Promise.resolve(),
    queue: "render",
    msgId: 12,
    readCt: 1,
    workerId: "render-runner-test",
  };
  const outcome = await createRenderDefinition({ store, workDir: work }).run(job, ctx);
  expect(outcome.kind).toBe("render.completed");
  if (outcome.kind !== "render.completed") return;
  const output = join(work, "output.mp4");
  await store.getFile(outcome.video_key, output);
  const info = await probeMedia(output);
  expect(info.audio).toBeTruthy();
  // The video lasts the voice plus the render's short tail, not less.
  expect(info.duration_s * 1000).toBeGreaterThanOrEqual(speech.durationMs);
  expect(info.duration_s * 1000).toBeLessThan(speech.durationMs + 3_000);
}, 180_000);
