/**
 * gpu-worker: pulls `visual_generation`, makes each scene with the first of its dimension's
 * backends that this worker has and that gives a clip (or finds it in the scene cache), and
 * reports by signed callback. Run with `bun gpu-worker/main.ts`.
 */
import { createLogger } from "../shared/logging/logger.ts";
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { createVisualBackends } from "./backends/registry.ts";
import { createVisualDefinition, PgSceneClaims } from "./visual-task.ts";

let configured: string[] = [];

runWorkerProcess({
  component: "gpu-worker",
  // A short lease kept alive by heartbeats (every vt/3): a crashed worker's job is back within 30 s.
  vtSeconds: 30,
  definition: ({ sql, store, ffmpeg }) => {
    const { backends } = createVisualBackends({ ffmpegPath: ffmpeg, logger: createLogger("gpu-worker") });
    configured = [...backends.values()].map((b) => b.version);
    return createVisualDefinition({ store, claims: new PgSceneClaims(sql), backends });
  },
  describe: () => ({ backends: configured }),
});
