/**
 * render-runner: pulls `render`, assembles the video with FFmpeg (captions burned in) and
 * reports by signed callback. Run with `bun render-runner/main.ts`.
 */
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { createRenderDefinition } from "./render-task.ts";

runWorkerProcess({
  component: "render-runner",
  // A 60-s video renders in about a minute on 2 cores; heartbeats keep longer ones leased.
  vtSeconds: 120,
  definition: ({ store, ffmpeg, ffprobe }) => createRenderDefinition({ store, ffmpegPath: ffmpeg, ffprobePath: ffprobe }),
});
