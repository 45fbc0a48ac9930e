import { z } from "zod";
import { count, timestamp, uuid } from "./columns.ts";
import { MusicTrackRecord } from "./callbacks.ts";
import { QualityReport } from "./quality.ts";
import { oneLine } from "./text.ts";
import { DimensionId } from "./dimension-id.ts";

/**
 * The HTTP API of the `pipeline` Edge Function (functions/pipeline/app.ts and operator-routes.ts)
 * and what the `mdame` CLI reads back from it: triggering a run and following it, the tick, recent
 * runs, dead letters, retrying one, aborting a run. The server builds each answer through these
 * schemas and the clients parse it with the same ones.
 */

/** How a run stands; the last three are terminal. */
export const RunState = z.enum(["running", "completed", "failed", "rolled_back"]);
export type RunState = z.infer<typeof RunState>;

export const TERMINAL_RUN_STATES: readonly RunState[] = ["completed", "failed", "rolled_back"];

/** Body of POST /pipeline/runs: without a key, today's trigger; with one, the run that key names. */
export const TriggerRunBody = z.object({
  dimension: oneLine(z.string().min(1).max(100)).optional(),
  idempotency_key: oneLine(z.string().min(8).max(200)).optional(),
}).strict();
export type TriggerRunBody = z.infer<typeof TriggerRunBody>;

/** Answer of POST /pipeline/runs. */
export const TriggeredRun = z.object({
  run_id: uuid,
  status: RunState,
  created: z.boolean(),
  status_url: z.string(),
}).strict();
export type TriggeredRun = z.infer<typeof TriggeredRun>;

/** Answer of GET /pipeline/health. */
export const PipelineHealth = z.object({ ok: z.literal(true), env: z.string() }).strict();
export type PipelineHealth = z.infer<typeof PipelineHealth>;

/**
 * A run as mdame.get_run_status and mdame.abort_run show it (`mdame.pipeline_runs` without its
 * idempotency key), timestamps as JSON text.
 */
export const RunRecord = z.object({
  id: uuid,
  env: z.string(),
  run_date: z.string(),
  trigger_kind: z.string(),
  /** The one dimension a manual trigger named, or null for all active ones. */
  dimension_filter: z.string().nullable(),
  status: RunState,
  error: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  finished_at: timestamp.nullable(),
}).strict();
export type RunRecord = z.infer<typeof RunRecord>;

/** A whole row of `mdame.pipeline_runs`, its idempotency key included, timestamps as JSON text. */
export const KeyedRunRecord = RunRecord.extend({ idempotency_key: z.string() }).strict();
export type KeyedRunRecord = z.infer<typeof KeyedRunRecord>;

/** How far a run got with one of its dimensions (`mdame.run_dimensions` without the run id). */
export const RunDimensionStatus = z.object({
  dimension_id: DimensionId,
  status: z.enum(["ingesting", "ingested", "failed"]),
  topics_seen: count,
  units_created: count,
  updated_at: timestamp,
  /** The hash of the configuration the run started the dimension with, and that configuration. */
  config_hash: z.string().nullable(),
  config: z.record(z.string(), z.unknown()).nullable(),
}).strict();
export type RunDimensionStatus = z.infer<typeof RunDimensionStatus>;

/** A unit's rendered video as the render reported it (mdame.work_units.video). */
const UnitVideo = z.object({
  video_key: z.string(),
  duration_s: z.number(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  size_bytes: z.number().int().optional(),
  /** Time FFmpeg took; null when the video was already stored and only reported again. */
  render_ms: z.number().nullable().optional(),
  /** The music bed and its licence; absent for voice only. */
  music: MusicTrackRecord.nullable().optional(),
  /** The cover stored beside the video (the Shorts thumbnail); absent when the render-runner made none. */
  cover_key: z.string().optional(),
}).strict();
type UnitVideo = z.infer<typeof UnitVideo>;

/** A publication of a unit on one account. */
export const UnitPublication = z.object({
  platform: z.string(),
  /**
   * pending, uploading, published, deferred (waiting for its account; docs/reference/distribution.md),
   * skipped (the account will not take this video: skip_reason) or failed.
   */
  status: z.string(),
  external_id: z.string().nullable(),
  /** Why a deferred publication waits: quota_spent, channel_cap, rate_limited or needs_reconnect. */
  deferred_reason: z.string().nullable(),
  /** When a deferred publication is tried again (null: once its account is reconnected). */
  not_before: timestamp.nullable(),
  /** The privacy the platform gave the upload; private when public was asked means the platform locked it. */
  privacy_status: z.string().nullable(),
  /** Why a skipped publication's account will not take the video (a Facebook Reel past 90 s, a privacy the platform cannot give). */
  skip_reason: z.string().nullable(),
}).strict();
export type UnitPublication = z.infer<typeof UnitPublication>;

/** One work unit of a run, as the status shows it. */
export const UnitStatus = z.object({
  id: uuid,
  dimension_id: DimensionId,
  stage: z.string(),
  /** The script's title, else the topic's. */
  title: z.string().nullable(),
  error: z.string().nullable(),
  updated_at: timestamp,
  scenes_ready: count,
  scenes_total: count,
  video: UnitVideo.nullable(),
  /** The quality gate's report on the video. */
  quality: QualityReport.nullable(),
  publications: z.array(UnitPublication),
}).strict();
export type UnitStatus = z.infer<typeof UnitStatus>;

/** Answer of GET /pipeline/runs/:id (mdame.get_run_status): the run, its dimensions and its units. */
export const RunStatus = z.object({
  run: RunRecord,
  dimensions: z.array(RunDimensionStatus),
  units: z.array(UnitStatus),
}).strict();
export type RunStatus = z.infer<typeof RunStatus>;

/** Body of POST /pipeline/tick: why it was called (a wake's reason, `poll`); nothing else is read. */
export const TickBody = z.object({ reason: oneLine(z.string().max(200)).optional() }).strict();
export type TickBody = z.infer<typeof TickBody>;

/** What mdame.tick did: the recovery pass, worker jobs dead-lettered, runs closed, stage tasks waiting. */
export const TickResult = z.object({
  recovery: z.object({ requeued: count, failed: count }).strict(),
  dead_lettered: count,
  runs_closed: count,
  stage_tasks_visible: count,
}).strict();
export type TickResult = z.infer<typeof TickResult>;

/** Answer of POST /pipeline/tick: the tick, then the stage tasks drained after it. */
export const TickAnswer = z.object({
  tick: TickResult,
  processed: count,
  failed: count,
  /** The drain stopped claiming at its wall or CPU budget (docs/reference/supabase-wiring.md): work may remain, call again. */
  more: z.boolean(),
}).strict();
export type TickAnswer = z.infer<typeof TickAnswer>;

/** One line of GET /pipeline/runs. */
export const RunSummary = RunRecord.pick({ id: true, status: true, trigger_kind: true, run_date: true, created_at: true, finished_at: true, error: true });
export type RunSummary = z.infer<typeof RunSummary>;

/** GET /pipeline/runs?limit=n: newest first. */
export const RunList = z.object({ runs: z.array(RunSummary) }).strict();
export type RunList = z.infer<typeof RunList>;

/** Query of the list routes. */
export const ListQuery = (defaultLimit: number) => z.object({ limit: z.coerce.number().int().min(1).max(500).default(defaultLimit) }).strict();

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
  created_at: timestamp,
  retried_at: timestamp.nullable(),
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
export const AbortRunBody = z.object({ reason: oneLine(z.string().trim().min(1).max(500)).optional() }).strict();
export type AbortRunBody = z.infer<typeof AbortRunBody>;

/** Answer of mdame.abort_run: the run afterwards, and what the abort let go of. */
export const AbortRunResult = z.object({
  run: KeyedRunRecord,
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
