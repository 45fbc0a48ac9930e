import { availableParallelism } from "node:os";
import { z } from "zod";
import { parseSizingEnv, sizingVariable } from "../shared/worker/worker-sizing.ts";

/**
 * How many renders one render-runner works on at once, and how many FFmpeg threads each gets.
 *
 * A render is one FFmpeg process whose x264 encoder scales with threads only so far, and whose
 * job also has single-threaded stretches (fetching inputs, the audio measuring passes, probing,
 * storing the result). Two renders side by side keep the cores busy through those stretches, so
 * by default a runner takes two renders at once (more on machines with many cores) and splits
 * the cores between them instead of letting each FFmpeg start a thread per core.
 */
const RenderWorkerEnv = z.object({
  /** Renders worked on at once. Default: 2, or a quarter of the cores on machines with more than 8. */
  RENDER_CONCURRENCY: sizingVariable("RENDER_CONCURRENCY", 32),
  /** FFmpeg encoder and filter threads per render. Default: the cores divided among the renders. */
  RENDER_FFMPEG_THREADS: sizingVariable("RENDER_FFMPEG_THREADS", 64),
});

interface RenderConcurrency {
  concurrency: number;
  threadsPerRender: number;
  cores: number;
}

/** The runner's sizing from its environment (unset or empty variables take the defaults) and core count. */
export function renderConcurrency(env: Record<string, string | undefined>, cores: number = availableParallelism()): RenderConcurrency {
  const parsed = parseSizingEnv(RenderWorkerEnv, env);
  const usable = Math.max(1, Math.floor(cores));
  const concurrency = parsed.RENDER_CONCURRENCY ?? (usable === 1 ? 1 : Math.max(2, Math.floor(usable / 4)));
  const threadsPerRender = parsed.RENDER_FFMPEG_THREADS ?? Math.max(1, Math.floor(usable / concurrency));
  return { concurrency, threadsPerRender, cores: usable };
}
