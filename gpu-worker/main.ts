/**
 * gpu-worker: pulls `visual_generation`, draws each scene (or finds it in the scene cache) and
 * reports by signed callback. Run with `bun gpu-worker/main.ts`.
 */
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { PROCEDURAL_BACKEND_VERSION, ProceduralBackend } from "./backends/procedural.ts";
import { createVisualDefinition, PgSceneCache } from "./visual-task.ts";

runWorkerProcess({
  component: "gpu-worker",
  // A 6-s procedural clip takes a few seconds; a GPU backend may take a minute.
  vtSeconds: 120,
  definition: ({ sql, store, ffmpeg }) =>
    createVisualDefinition({ store, cache: new PgSceneCache(sql), backend: new ProceduralBackend({ ffmpegPath: ffmpeg }) }),
  describe: () => ({ backend: PROCEDURAL_BACKEND_VERSION }),
});
