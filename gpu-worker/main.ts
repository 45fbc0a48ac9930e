/**
 * gpu-worker: pulls `visual_generation`, draws each scene (or finds it in the scene cache) and
 * reports by signed callback. Run with `bun gpu-worker/main.ts`.
 */
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { PROCEDURAL_BACKEND_VERSION, ProceduralBackend } from "./backends/procedural.ts";
import { createVisualDefinition, PgSceneCache } from "./visual-task.ts";

runWorkerProcess({
  component: "gpu-worker",
  // A short lease kept alive by heartbeats (every vt/3): a crashed worker's job is back within 30 s.
  vtSeconds: 30,
  definition: ({ sql, store, ffmpeg }) =>
    createVisualDefinition({ store, cache: new PgSceneCache(sql), backend: new ProceduralBackend({ ffmpegPath: ffmpeg }) }),
  describe: () => ({ backend: PROCEDURAL_BACKEND_VERSION }),
});
