import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { PROCEDURAL_BACKEND_VERSION, ProceduralBackend, proceduralRecipe } from "../../gpu-worker/backends/procedural.ts";
import { createVisualDefinition, sceneAssetKey } from "../../gpu-worker/visual-task.ts";
import { MemorySceneClaims } from "../fixtures/memory-scene-claims.ts";
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { NonRetriableError } from "../../shared/errors.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { FfmpegError, type FfmpegProgress, resolveFfmpegBinaries, runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { startEmulator } from "../../emulators/main.ts";
import { SupabaseStore } from "../../shared/storage/supabase-store.ts";
import type { TaskContext } from "../../shared/worker/pull-worker.ts";

const logger = createLogger("procedural-backend-test", { write: () => {} });
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-procedural-test-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function hashOf(label: string): string {
  return createHash("sha256").update(label).digest("hex");
}

function visualJob(label: string, motion: VisualJob["style"]["motion"], overrides: Partial<VisualJob> = {}): VisualJob {
  return {
    run_id: "7b0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
    unit_id: "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f",
    scene_id: "3c9a1f2e-8d7b-4c6a-9e5f-4a3b2c1d0e9f",
    scene_index: 0,
    scene_hash: hashOf(label),
    dimension_id: "ocean-facts",
    prompt: "deep sea creatures glowing",
    style: { palette: ["#0b1d51", "#1f77b4", "#17becf", "#f4d35e"], motion, caption_font: "DejaVu Sans" },
    duration_s: 2,
    width: 720,
    height: 1280,
    fps: 30,
    step_token: "step:plan-1:0:abc",
    ...overrides,
  };
}

const ctx = { logger, signal: new AbortController().signal };

async function sha256File(path: string): Promise<string> {
  return createHash("sha256").update(await readFile(path)).digest("hex");
}

/** Decodes one frame to raw RGB. */
function rawFrame(path: string, index: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      "ffmpeg",
      [
        "-v",
        "error",
        "-i",
        path,
        "-vf",
        `select='eq(n,${index})'`,
        "-fps_mode",
        "passthrough",
        "-frames:v",
        "1",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "pipe:1",
      ],
      { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

function meanAbsDiff(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

test("a clip has the requested size, frame rate and duration, as H.264 yuv420p without audio", async () => {
  const job = visualJob("scene-size", "drift");
  const out = join(dir, "size.mp4");
  await new ProceduralBackend().generate(job, out, ctx);
  const info = await probeMedia(out);
  expect(info.video).toMatchObject({ codec_name: "h264", width: 720, height: 1280, pix_fmt: "yuv420p", fps: 30, nb_frames: 60 });
  expect(info.audio).toBeNull();
  expect(Math.abs(info.duration_s - 2)).toBeLessThan(0.05);
}, 60_000);

test("the same scene_hash gives a byte-identical file; another hash gives different frames", async () => {
  const backend = new ProceduralBackend();
  const a1 = join(dir, "a1.mp4");
  const a2 = join(dir, "a2.mp4");
  const b = join(dir, "b.mp4");
  await backend.generate(visualJob("scene-a", "drift"), a1, ctx);
  await backend.generate(visualJob("scene-a", "drift"), a2, ctx);
  await backend.generate(visualJob("scene-b", "drift"), b, ctx);
  expect(await sha256File(a1)).toBe(await sha256File(a2));
  expect(await sha256File(b)).not.toBe(await sha256File(a1));
  const [fa, fb] = await Promise.all([rawFrame(a1, 30), rawFrame(b, 30)]);
  expect(meanAbsDiff(fa, fb)).toBeGreaterThan(8);
}, 120_000);

test("every motion moves: the first and last frames differ, and the recipe follows the style", async () => {
  const backend = new ProceduralBackend();
  for (const motion of ["drift", "pulse", "zoom"] as const) {
    const job = visualJob(`scene-motion-${motion}`, motion);
    const out = join(dir, `motion-${motion}.mp4`);
    await backend.generate(job, out, ctx);
    const [first, last] = await Promise.all([rawFrame(out, 0), rawFrame(out, 59)]);
    expect(meanAbsDiff(first, last)).toBeGreaterThan(1);
    const recipe = proceduralRecipe(job);
    expect(recipe.motion).toBe(motion);
    expect([...recipe.colors].sort()).toEqual([...job.style.palette].sort());
  }
}, 120_000);

test("odd frame sizes are refused as non-retriable before ffmpeg runs", async () => {
  const run = new ProceduralBackend().generate(visualJob("scene-odd", "drift", { width: 721 }), join(dir, "odd.mp4"), ctx);
  await expect(run).rejects.toBeInstanceOf(NonRetriableError);
  await expect(run).rejects.toThrow("frame size must be even: 721x1280");
});

test("an aborted generation kills ffmpeg and rejects", async () => {
  const controller = new AbortController();
  const job = visualJob("scene-abort", "zoom", { duration_s: 30 });
  const started = Date.now();
  const run = new ProceduralBackend().generate(job, join(dir, "abort.mp4"), { logger, signal: controller.signal });
  setTimeout(() => controller.abort(new Error("stop now")), 200);
  await expect(run).rejects.toThrow("stop now");
  expect(Date.now() - started).toBeLessThan(5000);
}, 30_000);

test("the visual task stores a miss under scenes/<scene_hash>.mp4 and reports cache hits without drawing", async () => {
  // The clip goes to Supabase Storage (supabase-js against the emulator), as the gpu-worker's do.
  const storageKey = crypto.randomUUID().replaceAll("-", "");
  const emulator = await startEmulator({ port: 0, dataDir: join(dir, "storage-emulator"), storageServiceKey: storageKey, log: () => {} });
  try {
    const store = new SupabaseStore({ url: emulator.url, serviceRoleKey: storageKey, bucket: "mdame-procedural-test" });
    const claims = new MemorySceneClaims();
    let generated = 0;
    const procedural = new ProceduralBackend();
    const backend = {
      name: procedural.name,
      version: procedural.version,
      generate: (...args: Parameters<ProceduralBackend["generate"]>) => (generated++, procedural.generate(...args)),
    };
    const definition = createVisualDefinition({ store, claims, backends: new Map([["procedural", backend]]), workDir: dir });
    let beats = 0;
    const taskCtx: TaskContext = {
      logger,
      signal: new AbortController().signal,
      heartbeat: () => Promise.resolve(void beats++),
      queue: "visual_generation",
      msgId: 1,
      readCt: 1,
      workerId: "test",
    };
    const job = visualJob("scene-task", "pulse");

    const miss = await definition.run(job, taskCtx);
    const key = sceneAssetKey(job.scene_hash);
    expect(miss).toEqual({
      kind: "visual_generation.completed",
      scene_id: job.scene_id,
      scene_hash: job.scene_hash,
      asset_key: key,
      backend: PROCEDURAL_BACKEND_VERSION,
      cache_hit: false,
    });
    expect(await store.exists(key)).toBe(true);
    await store.getFile(key, join(dir, "stored-scene.mp4"));
    expect((await probeMedia(join(dir, "stored-scene.mp4"))).video).toMatchObject({ width: 720, height: 1280, codec_name: "h264" });
    expect(generated).toBe(1);
    expect(beats).toBeGreaterThan(0);

    // A redo (a lost callback) finds the entry the first run recorded before reporting.
    expect(await definition.run(job, taskCtx)).toMatchObject({ asset_key: key, cache_hit: true });
    expect(generated).toBe(1);

    // A cache entry whose asset vanished is drawn again.
    await store.remove(key);
    expect(await definition.run(job, taskCtx)).toMatchObject({ asset_key: key, cache_hit: false });
    expect(generated).toBe(2);
    expect(await store.exists(key)).toBe(true);
  } finally {
    await emulator.stop();
  }
}, 120_000);

test("runFfmpeg reports progress and surfaces ffmpeg's own error text", async () => {
  const reports: FfmpegProgress[] = [];
  await runFfmpeg(
    ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3", "-c:v", "libx264", "-preset", "ultrafast", "-f", "mp4", "-y", join(dir, "progress.mp4")],
    {
      onProgress: (p) => reports.push(p),
    },
  );
  expect(reports.at(-1)).toMatchObject({ done: true, frame: 90 });
  expect(reports.at(-1)!.out_time_ms).toBeGreaterThan(2900);

  const failing = runFfmpeg(["-i", join(dir, "does-not-exist.mp4"), "-f", "null", "-"]);
  await expect(failing).rejects.toBeInstanceOf(FfmpegError);
  await expect(failing).rejects.toThrow("does-not-exist.mp4");
}, 30_000);

test("runFfmpeg gives the process the niceness it is asked for; none leaves it at the caller's", async () => {
  // A stand-in binary that reports its own niceness (field 19 of /proc/self/stat) once started, then runs ffmpeg.
  const wrapper = join(dir, "ffmpeg-reporting-niceness");
  const report = join(dir, "niceness");
  await writeFile(wrapper, `#!/bin/sh\nsleep 0.2\ncut -d' ' -f19 /proc/$$/stat > "${report}"\nexec ffmpeg "$@"\n`, { mode: 0o755 });
  const args = ["-f", "lavfi", "-i", "anullsrc=d=0.1", "-f", "null", "-"];
  await runFfmpeg(args, { ffmpegPath: wrapper, niceness: 11 });
  expect((await readFile(report, "utf8")).trim()).toBe("11");
  await runFfmpeg(args, { ffmpegPath: wrapper });
  expect((await readFile(report, "utf8")).trim()).toBe(String(getPriority()));
}, 30_000);

test("FFMPEG_PATH wins, with ffprobe taken from the same directory", async () => {
  expect(await resolveFfmpegBinaries({ FFMPEG_PATH: "/usr/bin/ffmpeg" })).toEqual({
    ffmpeg: "/usr/bin/ffmpeg",
    ffprobe: "/usr/bin/ffprobe",
    source: "FFMPEG_PATH",
  });
  // Without FFMPEG_PATH and without the optional ffmpeg-static package, PATH is used.
  expect(await resolveFfmpegBinaries({})).toMatchObject({ ffmpeg: "ffmpeg", ffprobe: "ffprobe", source: "PATH" });
});
