/**
 * render-runner: pulls `render`, assembles the video with FFmpeg (captions burned in, loudness
 * normalised, an optional music bed) and reports by signed callback. Run with
 * `bun render-runner/main.ts`. RENDER_CONCURRENCY and RENDER_FFMPEG_THREADS size it
 * (render-concurrency.ts); each render in flight holds its own lease and heartbeats.
 */
import process from "node:process";
import { z } from "zod";
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { type RenderConcurrency, renderConcurrency } from "./render-concurrency.ts";
import { createRenderDefinition } from "./render-task.ts";

let sizing: RenderConcurrency;
try {
  sizing = renderConcurrency(process.env);
} catch (error) {
  const message = error instanceof z.ZodError ? error.issues.map((i) => i.message).join("; ") : String(error);
  process.stderr.write(`render-runner: cannot start: ${message}\n`);
  process.exit(1);
}

runWorkerProcess({
  component: "render-runner",
  // A short lease kept alive by heartbeats (every vt/3): a crashed worker's job is back within 30 s.
  vtSeconds: 30,
  concurrency: sizing.concurrency,
  definition: ({ store, ffmpeg, ffprobe }) =>
    createRenderDefinition({ store, ffmpegPath: ffmpeg, ffprobePath: ffprobe, threads: sizing.threadsPerRender }),
  describe: () => ({ concurrency: sizing.concurrency, ffmpeg_threads: sizing.threadsPerRender, cores: sizing.cores }),
});
