import { z } from "zod";
import { parseSizingEnv, sizingVariable } from "../shared/worker/worker-sizing.ts";

/**
 * How many scenes one gpu-worker makes at once. One by default: a ComfyUI backend renders one
 * clip at a time on its GPU, and a second job would only queue behind the first inside ComfyUI
 * while its lease runs. A worker whose dimensions use stock or procedural backends (network and
 * FFmpeg bound, not GPU bound) can take several at once.
 */
const GpuWorkerEnv = z.object({
  /** Scenes made at once. Default 1. */
  GPU_CONCURRENCY: sizingVariable("GPU_CONCURRENCY", 32),
});

/** The worker's concurrency from its environment (unset or empty: 1). */
export function gpuConcurrency(env: Record<string, string | undefined>): number {
  return parseSizingEnv(GpuWorkerEnv, env).GPU_CONCURRENCY ?? 1;
}
