/**
 * render-runner: pulls `render`, assembles the video with FFmpeg (captions burned in, loudness
 * normalised, an optional music bed) and reports by signed callback; beside that it builds the
 * weekly reports and their charts (weekly-reports.ts). Run with
 * `bun render-runner/main.ts`. RENDER_CONCURRENCY and RENDER_FFMPEG_THREADS size it
 * (render-concurrency.ts); each render in flight holds its own lease and heartbeats.
 */
import process from "node:process";
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { sizingOrExit } from "../shared/worker/worker-sizing.ts";
import { renderConcurrency } from "./render-concurrency.ts";
import { createRenderDefinition } from "./render-task.ts";
import { startWeeklyReports } from "./weekly-reports.ts";

const sizing = sizingOrExit("render-runner", () => renderConcurrency(process.env));

runWorkerProcess({
  component: "render-runner",
  concurrency: sizing.concurrency,
  definition: ({ store, ffmpeg, ffprobe }) => createRenderDefinition({ store, ffmpegPath: ffmpeg, ffprobePath: ffprobe, threads: sizing.threadsPerRender }),
  describe: () => ({ concurrency: sizing.concurrency, ffmpeg_threads: sizing.threadsPerRender, cores: sizing.cores }),
  alongside: ({ sql, store }, logger) => startWeeklyReports({ sql, store, logger }),
});
