import { z } from "zod";

/**
 * The operator API of the `pipeline` Edge Function (functions/pipeline/operator-routes.ts) and what
 * the `mdame` CLI reads back from it: recent runs, dead letters, retrying one, aborting a run.
 */

const uuid = z.string().uuid();

/** How a run stands; the last three are terminal. */
export const RunState = z.enum(["running", "completed", "failed", "rolled_back"]);
export type RunState = z.infer<typeof RunState>;

export const TERMINAL_RUN_STATES: readonly RunState[] = ["completed", "failed", "rolled_back"];

/** Answer of POST /pipeline/runs. */
export const TriggeredRun = z.object({
  run_id: uuid,
  status: RunState,
  created: z.boolean(),
  status_url: z.string(),
}).strict();
export type TriggeredRun = z.infer<typeof TriggeredRun>;

/** One line of GET /pipeline/runs. */
export const RunSummary = z.object({
  id: uuid,
  status: RunState,
  trigger_kind: z.string(),
  run_date: z.string(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
}).strict();
export type RunSummary = z.infer<typeof RunSummary>;

/** GET /pipeline/runs?limit=n: newest first. */
export const RunList = z.object({ runs: z.array(RunSummary) }).strict();
export type RunList = z.infer<typeof RunList>;

/** Query of the list routes. */
export const ListQuery = (defaultLimit: number) =>
  z.object({ limit: z.coerce.number().int().min(1).max(500).default(defaultLimit) }).strict();

/** One row of mdame.list_dead_letters. */
export const DeadLetter = z.object({
  id: z.number().int().positive(),
  queue_name: z.string(),
  msg_id: z.number().int(),
  /** How many times the message was read before it was dead-lettered. */
  read_ct: z.number().int(),
  payload: z.unknown(),
  last_error: z.string(),
  unit_id: uuid.nullable(),
  created_at: z.string(),
  retried_at: z.string().nullable(),
  /** The message the retry queued, once retried. */
  retried_msg_id: z.number().int().nullable(),
}).strict();
export type DeadLetter = z.infer<typeof DeadLetter>;

/** GET /pipeline/dead-letters?limit=n: newest first. */
export const DeadLetterList = z.object({ dead_letters: z.array(DeadLetter) }).strict();
export type DeadLetterList = z.infer<typeof DeadLetterList>;

/** Answer of POST /pipeline/dead-letters/:id/retry (mdame.retry_dead_letter). */
export const DeadLetterRetry = z.object({
  dead_letter_id: z.number().int().positive(),
  queue_name: z.string(),
  /** The new message, queued with the dead letter's payload. */
  msg_id: z.number().int(),
  unit_id: uuid.nullable(),
  run_id: uuid.nullable(),
}).strict();
export type DeadLetterRetry = z.infer<typeof DeadLetterRetry>;

/** Body of POST /pipeline/runs/:id/abort. */
export const AbortRunBody = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();
export type AbortRunBody = z.infer<typeof AbortRunBody>;

/** Answer of mdame.abort_run: the run afterwards, and what the abort let go of. */
export const AbortRunResult = z.object({
  run: z.object({ id: uuid, status: RunState, error: z.string().nullable() }).passthrough(),
  cancelled_units: z.number().int().nonnegative(),
  /** Asset keys no other unit needs any more; the route deletes them from storage. */
  released_assets: z.array(z.string()),
}).strict();
export type AbortRunResult = z.infer<typeof AbortRunResult>;

/** Answer of POST /pipeline/runs/:id/abort. */
export const AbortedRun = AbortRunResult.extend({
  /** How many released assets were deleted from storage. */
  removed_assets: z.number().int().nonnegative(),
  /** Released assets storage refused to delete (they stay until removed by hand). */
  unremoved_assets: z.array(z.object({ key: z.string(), error: z.string() }).strict()),
}).strict();
export type AbortedRun = z.infer<typeof AbortedRun>;
