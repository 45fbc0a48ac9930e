import type { VisualJob } from "../../shared/contracts/queue.ts";
import type { Logger } from "../../shared/logging/logger.ts";

/** What a backend gets from the task: where to log and when to give up. */
export interface VisualBackendContext {
  logger: Logger;
  signal: AbortSignal;
}

/**
 * Draws one scene clip. `version` is part of scene_hash (DESIGN.md, "Idempotency keys"), so a
 * backend that changes what it draws must change its version.
 */
export interface VisualBackend {
  readonly version: string;
  /** Writes an H.264 MP4 of job.width x job.height at job.fps lasting job.duration_s to `outPath`. */
  generate(job: VisualJob, outPath: string, ctx: VisualBackendContext): Promise<void>;
}
