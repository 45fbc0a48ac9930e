/**
 * The one task model of both runtimes (docs/conventions.md, "Workers and tasks"): a task is a function of its
 * payload and a context, and returns an outcome. The runner around it (the Edge stage runner,
 * the Bun pull worker) owns the lease, completion, retries and dead letters, so a task never
 * archives, completes or fails its own message.
 */
import type { Logger } from "../logging/logger.ts";

/** What every task receives besides its payload, whichever runner runs it. */
export interface BaseTaskContext {
  /** Child logger carrying execution_id, dimension, stage, step_token, msg_id. */
  logger: Logger;
  /** Aborted when the runner gives the task up (its lease is lost, or the runner stops). */
  signal: AbortSignal;
  /** Extends the task's lease now (the runner also does it on a timer). Never throws. */
  heartbeat(): Promise<void>;
}

/** A task: its payload and context in, its outcome out; a throw is a failure the runner settles. */
export type Task<Payload, Context extends BaseTaskContext, Outcome> = (payload: Payload, ctx: Context) => Promise<Outcome>;
