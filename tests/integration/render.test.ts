import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProceduralBackend } from "../../gpu-worker/backends/procedural.ts";
import { sceneAssetKey } from "../../gpu-worker/visual-task.ts";
import { CAPTION_STYLE, layoutCaptions } from "../../render-runner/captions.ts";
import { renderVideo } from "../../render-runner/ffmpeg-render.ts";
import { captionFontMetrics } from "../../render-runner/font-metrics.ts";
import { createRenderDefinition, QualityGateError, RENDER_ATTEMPTS, renderAssetKey } from "../../render-runner/render-task.ts";
import { safeZone, zoneRect } from "../../render-runner/safe-zones.ts";
import { measureQuality, type QualityGateInput, type QualityGateOptions } from "../../shared/media/quality-gate.ts";
import { computeTimeline } from "../../render-runner/timeline.ts";
import type { WordTiming } from "../../shared/contracts/media.ts";
import type { RenderJob, VisualJob } from "../../shared/contracts/queue.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { startEmulator } from "../../emulators/main.ts";
import type { AssetStore } from "../../shared/storage/asset-store.ts";
import { SupabaseStore } from "../../shared/storage/supabase-store.ts";
import { type TaskContext, type TaskOutcome, toTaskFailure } from "../../shared/worker/pull-worker.ts";

/**
 * End to end through real espeak-ng and FFmpeg: five procedural scene clips and a spoken voice
 * track go in, a 1080x1920 H.264/AAC video with burned-in captions comes out, measured by the
 * quality gate. The voice is brought to -14 LUFS here, as a normalised render would be, so the
 * gate's loudness check passes whatever the render does to levels.
 * When an assertion fails the work directory is kept and its path printed.
 */

const SCRIPT = "Octopuses have three hearts. Two pump blood to the gills, one to the body. Incomprehensibilities happen. " +
  "Supercalifragilisticexpialidocious! WOW, what a wild animal. Follow for more.";
const SCENE_FIRST_WORDS = [0, 4, 10, 14, 17];
/** The gate's retries do the same on any length: their renders are of this opening alone. */
const SHORT_SCRIPT = "Octopuses have three hearts. Two pump blood to the gills.";
const W = 1080;
const H = 1920;

let dir = "";
let keep = false;
const logLines: Array<Record<string, unknown>> = [];
const logger = createLogger("render-test", { write: (line: string) => void logLines.push(JSON.parse(line)) });

// Assets go through Supabase Storage (supabase-js against the emulator), as the render-runner's do.
const STORAGE_KEY = crypto.randomUUID().replaceAll("-", "");
let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
let store: AssetStore;
let job: RenderJob;
/** The same job on SHORT_SCRIPT, with the scenes of its words. */
let shortJob: RenderJob;
let outcome: TaskOutcome;
let outputPath = "";
let renderSeconds = 0;
let renderCtx: ReturnType<typeof taskContext>;

function run(cmd: string, args: string[]): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${cmd} ${args.join(" ")} failed: ${stderr.toString()}`));
      else resolve({ stdout, stderr: stderr.toString() });
    });
  });
}

/** Speaks the script word by word, so every word's offset is known exactly, then encodes MP3 (`<name>.mp3`). */
async function synthesiseVoice(workDir: string, script: string, name: string): Promise<{ mp3: string; words: WordTiming[]; durationMs: number }> {
  const texts = script.split(" ");
  const words: WordTiming[] = [];
  const parts: string[] = [];
  let offset = 0;
  for (const [i, text] of texts.entries()) {
    const wav = join(workDir, `${name}-word-${i}.wav`);
    await run("espeak-ng", ["-v", "en-us", "-s", "190", "-w", wav, text]);
    const info = await probeMedia(wav);
    const ms = Math.round(info.duration_s * 1000);
    words.push({ text, offset_ms: offset, duration_ms: ms });
    offset += ms;
    parts.push(wav);
  }
  const mp3 = join(workDir, `${name}.mp3`);
  const inputs = parts.flatMap((p) => ["-i", p]);
  // espeak-ng speaks at about -21 LUFS with -2 dBFS peaks: compressed, then brought to -14 LUFS
  // under a limiter, a few rounds of measure-and-adjust, as a normalised voice track would be.
  const compressed = join(workDir, `${name}-compressed.wav`);
  const concat = `${parts.map((_, i) => `[${i}:a]`).join("")}concat=n=${parts.length}:v=0:a=1,acompressor=threshold=0.03:ratio=10:attack=1:release=80[a]`;
  await run("ffmpeg", ["-v", "error", ...inputs, "-filter_complex", concat, "-map", "[a]", "-y", compressed]);
  let gainDb = 0;
  for (let round = 0; round < 4; round++) {
    await run("ffmpeg", [
      "-v",
      "error",
      "-i",
      compressed,
      "-af",
      `volume=${gainDb.toFixed(2)}dB,alimiter=limit=0.7:level=false:attack=1:release=20`,
      "-c:a",
      "libmp3lame",
      "-b:a",
      "96k",
      "-y",
      mp3,
    ]);
    const { stderr } = await run("ffmpeg", ["-hide_banner", "-nostats", "-i", mp3, "-af", "ebur128=framelog=verbose", "-f", "null", "-"]);
    const lufs = Number(/I:\s+(-?[\d.]+) LUFS/.exec(stderr.slice(stderr.lastIndexOf("Summary:")))![1]);
    if (Math.abs(lufs + 14) <= 0.3) break;
    gainDb += -14 - lufs;
  }
  const durationMs = Math.round((await probeMedia(mp3)).duration_s * 1000);
  return { mp3, words, durationMs };
}

/** Top-level MP4 box types in file order. */
function topLevelBoxes(bytes: Buffer): string[] {
  const types: string[] = [];
  let at = 0;
  while (at + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(at);
    const type = bytes.toString("latin1", at + 4, at + 8);
    if (size === 1) size = Number(bytes.readBigUInt64BE(at + 8));
    else if (size === 0) size = bytes.length - at;
    types.push(type);
    if (size < 8) break;
    at += size;
  }
  return types;
}

/** Decodes the given frame numbers to raw RGB, in ascending order. */
async function rawFrames(path: string, indexes: number[]): Promise<Map<number, Buffer>> {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const select = sorted.map((n) => `eq(n,${n})`).join("+");
  const { stdout } = await run("ffmpeg", [
    "-v",
    "error",
    "-i",
    path,
    "-vf",
    `select='${select}'`,
    "-fps_mode",
    "passthrough",
    "-f",
    "rawvideo",
    "-pix_fmt",
    "rgb24",
    "pipe:1",
  ]);
  const size = W * H * 3;
  expect(stdout.length).toBe(size * sorted.length);
  return new Map(sorted.map((n, i) => [n, stdout.subarray(i * size, (i + 1) * size)]));
}

/** Bounding box of pixels whose colour changed by more than `threshold` on some channel. */
function changedBox(a: Buffer, b: Buffer, threshold = 64) {
  let left = W, right = -1, top = H, bottom = -1, count = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3;
      const d = Math.max(Math.abs(a[i] - b[i]), Math.abs(a[i + 1] - b[i + 1]), Math.abs(a[i + 2] - b[i + 2]));
      if (d <= threshold) continue;
      count++;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      if (y > bottom) bottom = y;
    }
  }
  return count === 0 ? null : { left, right, top, bottom, count };
}

function taskContext(): TaskContext & { beats: number } {
  const ctx = {
    beats: 0,
    logger,
    signal: new AbortController().signal,
    heartbeat: () => {
      ctx.beats++;
      return Promise.resolve();
    },
    queue: "render",
    msgId: 11,
    readCt: 1,
    workerId: "render-runner-test",
  };
  return ctx;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-render-test-"));
  const work = join(dir, "work");
  await mkdir(work);
  emulator = await startEmulator({ port: 0, dataDir: join(dir, "storage-emulator"), storageServiceKey: STORAGE_KEY, log: () => {} });
  store = new SupabaseStore({ url: emulator.url, serviceRoleKey: STORAGE_KEY, bucket: "mdame-render-test" });

  const voice = await synthesiseVoice(work, SCRIPT, "voice");
  const audioKey = `voice/${createHash("sha256").update(SCRIPT).digest("hex")}.mp3`;
  await store.putFile(audioKey, voice.mp3, "audio/mpeg");

  // Short clips, so slots longer than a clip exercise the looping.
  const backend = new ProceduralBackend();
  const scenes: RenderJob["scenes"] = [];
  for (const [index, firstWord] of SCENE_FIRST_WORDS.entries()) {
    const sceneHash = createHash("sha256").update(`render-test-scene-${index}`).digest("hex");
    const visual: VisualJob = {
      run_id: "7b0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
      unit_id: "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f",
      scene_id: crypto.randomUUID(),
      scene_index: index,
      scene_hash: sceneHash,
      dimension_id: "ocean-facts",
      prompt: `scene ${index}`,
      style: { palette: ["#0b1d51", "#1f77b4", "#e15759", "#f4d35e"], motion: (["drift", "pulse", "zoom"] as const)[index % 3], caption_font: "DejaVu Sans" },
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

  job = {
    run_id: "7b0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
    unit_id: "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f",
    dimension_id: "ocean-facts",
    title: "Three hearts",
    audio_key: audioKey,
    audio_duration_ms: voice.durationMs,
    words: voice.words,
    scenes,
    caption_font: "DejaVu Sans",
    caption_profile: "youtube_shorts",
    step_token: "step:unit-1:5:def",
  };

  const short = await synthesiseVoice(work, SHORT_SCRIPT, "short-voice");
  const shortAudioKey = `voice/${createHash("sha256").update(SHORT_SCRIPT).digest("hex")}.mp3`;
  await store.putFile(shortAudioKey, short.mp3, "audio/mpeg");
  shortJob = {
    ...job,
    audio_key: shortAudioKey,
    audio_duration_ms: short.durationMs,
    words: short.words,
    scenes: scenes.filter((scene) => scene.first_word < short.words.length),
  };

  const started = performance.now();
  renderCtx = taskContext();
  outcome = await createRenderDefinition({ store, workDir: work }).run(job, renderCtx);
  renderSeconds = (performance.now() - started) / 1000;
  outputPath = join(work, "output.mp4");
  if (outcome.kind === "render.completed") await store.getFile(outcome.video_key, outputPath);
}, 300_000);

afterAll(async () => {
  await emulator?.stop();
  if (keep) {
    console.error(`render test evidence kept in ${dir}`);
    return;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

/** Marks the evidence to keep when the assertion block throws. */
async function evidence(block: () => Promise<void> | void) {
  try {
    await block();
  } catch (error) {
    keep = true;
    throw error;
  }
}

test("the render is stored content-addressed and reported with its probed figures", () =>
  evidence(async () => {
    const key = await renderAssetKey(job);
    expect(key).toMatch(/^renders\/[0-9a-f]{64}\.mp4$/);
    expect(outcome).toMatchObject({ kind: "render.completed", unit_id: job.unit_id, video_key: key, width: W, height: H });
    if (outcome.kind !== "render.completed") throw new Error("not completed");
    const info = await probeMedia(outputPath);
    expect(outcome.size_bytes).toBe(info.size_bytes);
    expect(outcome.render_ms).toBeGreaterThan(0);
    expect(outcome.duration_s).toBeCloseTo(info.duration_s, 2);
    expect(logLines.some((l) => l.msg === "render progress")).toBe(true);
    expect(renderCtx.beats).toBeGreaterThan(0);
    console.error(`render: ${(job.audio_duration_ms / 1000).toFixed(1)} s of voice rendered in ${renderSeconds.toFixed(1)} s`);
  }));

test("the output is 1080x1920 H.264 high / AAC 48 kHz at 30 fps, as long as the voice plus its tail", () =>
  evidence(async () => {
    const info = await probeMedia(outputPath);
    expect(info.video).toMatchObject({ codec_name: "h264", profile: "High", width: W, height: H, pix_fmt: "yuv420p", fps: 30 });
    expect(info.audio).toMatchObject({ codec_name: "aac", sample_rate: 48_000 });
    const timeline = computeTimeline(job.words, job.scenes, job.audio_duration_ms);
    expect(info.video!.nb_frames).toBe(timeline.total_frames);
    expect(Math.abs(info.duration_s - timeline.total_ms / 1000)).toBeLessThan(0.1);
    expect(info.duration_s).toBeGreaterThan(job.audio_duration_ms / 1000);
  }));

test("moov comes before mdat (faststart)", () =>
  evidence(async () => {
    const boxes = topLevelBoxes(await readFile(outputPath));
    expect(boxes).toContain("moov");
    expect(boxes).toContain("mdat");
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
  }));

test("the voice is audible", () =>
  evidence(async () => {
    const { stderr } = await run("ffmpeg", ["-hide_banner", "-i", outputPath, "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"]);
    const mean = Number(/mean_volume: (-?[\d.]+) dB/.exec(stderr)?.[1]);
    const max = Number(/max_volume: (-?[\d.]+) dB/.exec(stderr)?.[1]);
    expect(mean).toBeGreaterThan(-40);
    expect(max).toBeGreaterThan(-15);
  }));

test("captions are visible, every cue lies inside the Shorts safe zone and inside its computed box", () =>
  evidence(async () => {
    // The same pipeline without the subtitle filter, to diff against.
    const timeline = computeTimeline(job.words, job.scenes, job.audio_duration_ms);
    const clips = new Map<string, string>();
    for (const slot of timeline.scenes) {
      if (clips.has(slot.asset_key)) continue;
      const path = join(dir, "work", `plain-${clips.size}.mp4`);
      await store.getFile(slot.asset_key, path);
      clips.set(slot.asset_key, path);
    }
    const audio = join(dir, "work", "plain-voice.mp3");
    await store.getFile(job.audio_key, audio);
    const plainPath = join(dir, "work", "plain.mp4");
    await renderVideo({
      clips: timeline.scenes.map((s) => ({ path: clips.get(s.asset_key)!, frames: s.frames })),
      audioPath: audio,
      subtitlesPath: null,
      outPath: plainPath,
    });

    const zone = safeZone("youtube_shorts");
    const cues = layoutCaptions(job.words, { zone, metrics: captionFontMetrics("DejaVu Sans"), endLimitMs: timeline.total_ms });
    expect(cues.some((c) => c.font_size < CAPTION_STYLE.fontSize || c.lines.length > 1)).toBe(true);
    const r = zoneRect(zone);
    const frameOf = (ms: number) => Math.floor((ms * 30) / 1000);
    const picks = cues.map((c) => ({ cue: c, frame: frameOf((c.start_ms + c.end_ms) / 2) }));
    const indexes = picks.map((p) => p.frame);
    const [captioned, plain] = await Promise.all([rawFrames(outputPath, indexes), rawFrames(plainPath, indexes)]);

    for (const { cue, frame } of picks) {
      const box = changedBox(captioned.get(frame)!, plain.get(frame)!);
      const label = `cue "${cue.words.map((w) => w.text).join(" ")}" at frame ${frame}: ${JSON.stringify(box)}`;
      expect(box, label).not.toBeNull();
      expect(box!.count, label).toBeGreaterThan(500);
      expect(box!.left, label).toBeGreaterThanOrEqual(r.left);
      expect(box!.right, label).toBeLessThan(r.right);
      expect(box!.top, label).toBeGreaterThanOrEqual(r.top);
      expect(box!.bottom, label).toBeLessThan(r.bottom);
      // What libass drew lies inside the box the layout computed from the font's widths, and
      // fills most of its width (the box is measured, not a loose guess).
      expect(box!.left, label).toBeGreaterThanOrEqual(Math.floor(cue.box.left));
      expect(box!.right, label).toBeLessThanOrEqual(Math.ceil(cue.box.right));
      expect(box!.top, label).toBeGreaterThanOrEqual(Math.floor(cue.box.top));
      expect(box!.bottom, label).toBeLessThanOrEqual(Math.ceil(cue.box.bottom));
      expect(box!.right - box!.left, label).toBeGreaterThan((cue.box.right - cue.box.left) * 0.85);
    }
  }), 180_000);

test("rendering the same job again (another step token) reuses the stored video", () =>
  evidence(async () => {
    const before = logLines.length;
    const again = await createRenderDefinition({ store, workDir: join(dir, "work") }).run({ ...job, step_token: "step:unit-1:5:other" }, taskContext());
    if (outcome.kind !== "render.completed") throw new Error("not completed");
    // Measured again by the gate: the same file gives the same report.
    expect(again).toEqual({ ...outcome, render_ms: null });
    const newLines = logLines.slice(before);
    expect(newLines.some((l) => l.msg === "render already stored; reporting it")).toBe(true);
    expect(newLines.some((l) => l.msg === "render started")).toBe(false);
  }), 60_000);

test("the completed render carries the quality gate's passing report", () =>
  evidence(() => {
    if (outcome.kind !== "render.completed") throw new Error("not completed");
    expect(outcome.quality.failures).toEqual([]);
    expect(outcome.quality.passed).toBe(true);
    expect(Math.abs(outcome.quality.integrated_lufs! + 14)).toBeLessThanOrEqual(1);
    expect(outcome.quality.true_peak_dbtp!).toBeLessThanOrEqual(-1);
    expect(outcome.quality.duration_s).toBeCloseTo(outcome.duration_s, 2);
    const zoneCheck = outcome.quality.checks.find((c) => c.check === "captions_safe_zone")!;
    expect(zoneCheck).toMatchObject({ passed: true, value: 0 });
    expect(zoneCheck.bound).toContain("youtube_shorts safe zone (x 48-888, y 288-1248)");
  }));

/**
 * The real gate, but told for the first `failing` calls that the narration runs 5 s longer than it
 * does: a real measurement that really fails, on the duration check.
 */
function gateFailingFirst(failing: number) {
  let calls = 0;
  const gate = (input: QualityGateInput, options: QualityGateOptions) => {
    calls++;
    return measureQuality(calls <= failing ? { ...input, expectedDurationS: input.expectedDurationS + 5 } : input, options);
  };
  return { gate, calls: () => calls };
}

test("a render failing the gate is rendered once more; the second passes and is stored", () =>
  evidence(async () => {
    const retried = { ...shortJob, title: "Three hearts, rendered twice" };
    const { gate, calls } = gateFailingFirst(1);
    const before = logLines.length;
    const result = await createRenderDefinition({ store, workDir: join(dir, "work"), qualityGate: gate }).run(retried, taskContext());
    expect(calls()).toBe(2);
    expect(result).toMatchObject({ kind: "render.completed", video_key: await renderAssetKey(retried) });
    if (result.kind !== "render.completed") throw new Error("not completed");
    expect(result.quality.passed).toBe(true);
    const lines = logLines.slice(before);
    expect(lines.filter((l) => l.msg === "render started").map((l) => l.attempt)).toEqual([1, 2]);
    const warning = lines.find((l) => l.msg === "render failed the quality gate; rendering again")!;
    expect(String((warning.failures as string[])[0])).toMatch(/^duration \d+\.\d\d s, outside \d+\.\d\d \+-0\.5 s$/);
    expect(await store.exists(result.video_key)).toBe(true);
  }), 300_000);

test("a render failing the gate twice fails its unit for good with the measured reason, storing nothing", () =>
  evidence(async () => {
    const doomed = { ...shortJob, title: "Three hearts, never right" };
    const { gate, calls } = gateFailingFirst(RENDER_ATTEMPTS);
    const definition = createRenderDefinition({ store, workDir: join(dir, "work"), qualityGate: gate });
    const error = await definition.run(doomed, taskContext()).then(() => null, (e: unknown) => e);
    expect(calls()).toBe(RENDER_ATTEMPTS);
    expect(error).toBeInstanceOf(QualityGateError);
    expect(await store.exists(await renderAssetKey(doomed))).toBe(false);
    // What the pull loop sends: render.failed, not retriable, with the measured reason.
    const failed = definition.failed({ payload: doomed, raw: doomed, error: toTaskFailure(error) });
    expect(failed).toMatchObject({ kind: "render.failed", unit_id: doomed.unit_id, error: { retriable: false } });
    if (failed?.kind !== "render.failed") throw new Error("no render.failed");
    expect(failed.error.message).toMatch(/^quality gate failed: duration \d+\.\d\d s, outside \d+\.\d\d \+-0\.5 s$/);
  }), 300_000);

test("captions that cannot fit the profile fail the render before FFmpeg runs, naming the cue", () =>
  evidence(async () => {
    const words = [
      ...job.words.slice(0, 3),
      { text: "X".repeat(70), offset_ms: job.words[3].offset_ms, duration_ms: job.words[3].duration_ms },
      ...job.words.slice(4),
    ];
    const before = logLines.length;
    const error = await createRenderDefinition({ store, workDir: join(dir, "work") }).run({ ...job, words, caption_profile: "tiktok" }, taskContext()).then(
      () => null,
      (e: unknown) => e,
    );
    const failure = toTaskFailure(error);
    expect(failure.retriable).toBe(false);
    expect(failure.message).toMatch(/^caption cue \d+ "X+- \/ X+" at \d+\.\d\d s lies outside the tiktok safe zone \(x 150-930, y 150-1480\): /);
    expect(logLines.slice(before).some((l) => l.msg === "render started")).toBe(false);
  }), 60_000);
