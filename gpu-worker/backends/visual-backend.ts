import type { VisualJob } from "../../shared/contracts/queue.ts";
import type { Logger } from "../../shared/logging/logger.ts";
import type { SceneCredit, VisualBackendName } from "../../shared/contracts/visuals.ts";
import type { UsageKind } from "../../shared/contracts/spend.ts";

/** What a backend gets from the task: where to log, when to give up, and whom to tell it is alive. */
export interface VisualBackendContext {
  logger: Logger;
  signal: AbortSignal;
  /** Called as the backend makes progress (a long remote job); keeps the worker's leases alive. */
  progress?: () => void;
}

/** What a backend made besides the clip itself. */
export interface VisualResult {
  /** Attribution to store with the clip (stock media). */
  credit?: SceneCredit;
}

/**
 * Draws one scene clip. `version` names what it draws (model included) and keys the scene cache,
 * so a backend that changes what it draws must change its version.
 */
export interface VisualBackend {
  readonly name: VisualBackendName;
  readonly version: string;
  /** The provider a paid backend's calls are recorded under, and their unit kind (docs/reference/spend.md); absent: free. */
  readonly spend?: { provider: string; kind: UsageKind };
  /** Writes an H.264 MP4 of job.width x job.height at job.fps lasting job.duration_s to `outPath`. */
  generate(job: VisualJob, outPath: string, ctx: VisualBackendContext): Promise<VisualResult | void>;
}

/**
 * The backend answered but has nothing for this scene (no stock clip matched, every candidate
 * blocked): the scene goes to the next backend, and retrying this one would not help.
 */
export class NoVisualResultError extends Error {
  constructor(readonly backend: string, message: string) {
    super(message);
    this.name = "NoVisualResultError";
  }
}
