/**
 * gpu-worker: pulls `visual_generation`, makes each scene with the first of its dimension's
 * backends that this worker has and that gives a clip (or finds it in the scene cache), and
 * reports by signed callback. Run with `bun gpu-worker/main.ts`. GPU_CONCURRENCY scenes at once
 * (gpu-concurrency.ts, default 1); each scene in flight holds its own lease and heartbeats.
 */
import process from "node:process";
import { createLogger } from "../shared/logging/logger.ts";
import { runWorkerProcess } from "../shared/worker/run-worker-process.ts";
import { sizingOrExit } from "../shared/worker/worker-sizing.ts";
import { createVisualBackends } from "./backends/registry.ts";
import { gpuConcurrency } from "./gpu-concurrency.ts";
import { createVisualDefinition, PgSceneClaims } from "./visual-task.ts";

const concurrency = sizingOrExit("gpu-worker", () => gpuConcurrency(process.env));
let configured: string[] = [];

runWorkerProcess({
  component: "gpu-worker",
  concurrency,
  definition: ({ sql, store, ffmpeg }) => {
    const { backends } = createVisualBackends({ ffmpegPath: ffmpeg, logger: createLogger("gpu-worker") });
    configured = [...backends.values()].map((b) => b.version);
    return createVisualDefinition({ store, claims: new PgSceneClaims(sql), backends, spendSql: sql });
  },
  describe: () => ({ backends: configured }),
});
