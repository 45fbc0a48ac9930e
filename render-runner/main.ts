/**
 * render-runner: pulls `render`, assembles the video with FFmpeg (captions burned in) and
 * reports by signed callback. Run with `bun render-runner/main.ts`.
 */
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { createRenderDefinition } from "./render-task.ts";

runWorkerProcess({
  component: "render-runner",
  // A short lease kept alive by heartbeats (every vt/3): a crashed worker's job is back within 30 s.
  vtSeconds: 30,
  definition: ({ store, ffmpeg, ffprobe }) => createRenderDefinition({ store, ffmpegPath: ffmpeg, ffprobePath: ffprobe }),
});
