import { z } from "zod";
import { count, timestamp, uuid } from "./columns.ts";
import { QualityReport } from "./quality.ts";
import { Platform } from "./account.ts";
import { DimensionId } from "./dimension-id.ts";
import { RunSummary } from "./operator.ts";
import { WorkUnitStage } from "./work-unit.ts";
import { YouTubeBucket } from "./youtube-project.ts";

/**
 * The operator's JSON API for the ops dashboard: the `GET /pipeline/ops/...` routes of the
 * `pipeline` Edge Function (functions/pipeline/operator/ops-routes.ts, docs/reference/ops-api.md), each behind
 * the service-role bearer. The server builds every answer through these schemas and the dashboard
 * parses it with the same ones. Timestamps are ISO 8601 text (UTC); "today" is the engine clock's
 * date (mdame.engine_now(), UTC), so a demo or soak that moves the clock moves the overview with it.
 */

/** How many of something are in one state (a run status, a unit stage, a queue message state). */
export const OpsStateCount = z.object({ state: z.string(), count }).strict();
export type OpsStateCount = z.infer<typeof OpsStateCount>;

// ---------------------------------------------------------------------------------------------
// GET /pipeline/ops/overview?failures=20

/** Query of GET /ops/overview: how many recent failures to list (1-200, default 20). */
export const OpsOverviewQuery = z.object({ failures: z.coerce.number().int().min(1).max(200).default(20) }).strict();
export type OpsOverviewQuery = z.infer<typeof OpsOverviewQuery>;

/** One active dimension today: the latest run of today's date that covers it, and its units' funnel. */
const OpsDimensionToday = z.object({
  dimension_id: DimensionId,
  display_name: z.string(),
  /** The run as GET /pipeline/runs lists it; null when no run of today covers the dimension yet. */
  run: RunSummary.nullable(),
  /** How far that run got with the dimension (mdame.run_dimensions.status): queued, ingesting, ingested, failed. */
  ingest_status: z.string().nullable(),
  topics_seen: count,
  units_created: count,
  /** The run's units of this dimension per stage, every stage of WORK_UNIT_STAGES in that order (zeros included). */
  funnel: z.array(z.object({ stage: WorkUnitStage, units: count }).strict()),
}).strict();
type OpsDimensionToday = z.infer<typeof OpsDimensionToday>;

/** One recent failure: a failed unit, a failed run or a dead letter, with its reason and when. */
export const OpsFailure = z.object({
  kind: z.enum(["unit", "run", "dead_letter"]),
  /** The unit's or run's uuid, or the dead letter's id (decimal text). */
  id: z.string(),
  run_id: uuid.nullable(),
  unit_id: uuid.nullable(),
  dimension_id: DimensionId.nullable(),
  /** The unit's stage when it failed, or the dead letter's queue; null for a run. */
  stage: z.string().nullable(),
  reason: z.string(),
  at: timestamp,
  /** A dead letter only: whether the operator retried it already. */
  retried: z.boolean().nullable(),
}).strict();
export type OpsFailure = z.infer<typeof OpsFailure>;

/** Answer of GET /ops/overview. */
export const OpsOverview = z.object({
  /** The engine clock's date (UTC) the overview is about, and the clock's instant. */
  today: z.string(),
  engine_now: timestamp,
  dimensions: z.array(OpsDimensionToday),
  counts: z.object({
    /** Today's runs per status. */
    runs: z.array(OpsStateCount),
    /** The units of today's runs per stage. */
    work_units: z.array(OpsStateCount),
    /**
     * The stage_tasks queue's messages: `waiting` (visible, including a claim that ran out), `leased` (a runner's claim holds it),
     * `retrying` (a failed attempt's backoff), `delayed` (not yet visible, never read), and `dead_lettered` (not retried).
     */
    stage_tasks: z.array(OpsStateCount),
    /**
     * The worker queues' (visual_generation, render) messages: `waiting`, `leased`, `delayed`, `dead_lettered`. A job in a
     * retry's backoff counts as `leased`: pgmq records no reader, and a backoff and a heartbeat both only move its visibility.
     */
    worker_jobs: z.array(OpsStateCount),
  }).strict(),
  /** The most recent failures, newest first. */
  failures: z.array(OpsFailure),
}).strict();
export type OpsOverview = z.infer<typeof OpsOverview>;

// ---------------------------------------------------------------------------------------------
// GET /pipeline/ops/queues

/**
 * A pull worker (gpu-worker, render-runner) that beat for a queue within the last day
 * (mdame.worker_heartbeats, database clock). `live`: it beat within three of its beat intervals;
 * `stale`: it did not (crashed, killed, or cut off from the database); `stopped`: it stopped cleanly.
 */
export const OpsQueueWorker = z.object({
  /** `<name>-<host>-<pid>-<random>`, unique per process; its callbacks carry it too. */
  worker_id: z.string(),
  host: z.string(),
  pid: z.number().int().positive(),
  /** Jobs it works on at once (GPU_CONCURRENCY, RENDER_CONCURRENCY). */
  concurrency: z.number().int().positive(),
  /** Jobs it held at its last beat (0 once stopped). */
  jobs_held: count,
  started_at: timestamp,
  last_beat_at: timestamp,
  /** Seconds since its last beat. */
  last_beat_age_s: z.number().int(),
  status: z.enum(["live", "stale", "stopped"]),
}).strict();
type OpsQueueWorker = z.infer<typeof OpsQueueWorker>;

/** One pgmq queue of the engine (pgmq.metrics_all(), plus how many messages are leased right now). */
export const OpsQueue = z.object({
  queue_name: z.string(),
  /** Messages in the queue, visible or not. */
  depth: count,
  /** Messages a reader could take now. */
  visible: count,
  /** Messages invisible right now: leased by a reader (read_ct > 0) or sent with a delay. */
  invisible: count,
  /** Of the invisible ones, those read at least once: held by a reader, or waiting out a retry's backoff. */
  leased: count,
  /** Age of the oldest message in seconds; null when the queue is empty. */
  oldest_msg_age_s: z.number().int().nullable(),
  newest_msg_age_s: z.number().int().nullable(),
  /** Messages ever sent to the queue. */
  total_messages: count,
  /** Its pull workers, live ones first (at most 200); empty for a queue the pipeline drains (stage_tasks, analytics_fetches). */
  workers: z.array(OpsQueueWorker),
}).strict();
export type OpsQueue = z.infer<typeof OpsQueue>;

/**
 * Leases of one kind: held now, and expired but not taken back yet (nothing reclaimed them). A stage
 * task in a retry's backoff is neither; a worker job in one counts as held (pgmq records no reader,
 * and a backoff and a heartbeat both only move its visibility).
 */
const OpsLeaseCounts = z.object({ held: count, stale: count }).strict();
type OpsLeaseCounts = z.infer<typeof OpsLeaseCounts>;

/** An expired lease nothing has reclaimed yet. */
const OpsStaleLease = z.object({
  kind: z.enum(["stage_task", "worker_job", "scene_claim"]),
  /** stage_task: the unit's lease holder (`<worker>/<msg_id>/<read_ct>`); scene_claim: the claim's holder; worker_job: null (pgmq records no reader). */
  holder: z.string().nullable(),
  /** stage_task: the unit id; worker_job: `<queue>/<msg_id>`; scene_claim: `<scene_hash>/<backend>`. */
  subject: z.string(),
  unit_id: uuid.nullable(),
  expired_at: timestamp,
  /** Seconds since it expired (database clock). */
  expired_for_s: z.number().int().nonnegative(),
}).strict();
type OpsStaleLease = z.infer<typeof OpsStaleLease>;

/**
 * The last sign of life of a worker that leaves no heartbeat row: a stage runner (the pipeline
 * Edge Function's claims) or a scene generator (a gpu-worker's scene claims, by holder). Their
 * heartbeats only extend their leases (extend_stage_lease moves the unit's lease_expires_at,
 * claim_scene_generation the claim's lease_until), so this is derived from the latest lease the
 * worker holds or held: `latest_lease_until` is the furthest lease expiry it set (its last
 * heartbeat or claim was that minus its lease length). The pull workers themselves are listed per
 * queue (OpsQueue.workers), from their beats.
 */
const OpsWorkerActivity = z.object({
  kind: z.enum(["stage_runner", "scene_generator"]),
  worker_id: z.string(),
  /** Leases it holds now (unexpired). */
  leases_held: count,
  /** The furthest lease expiry it set; null when nothing of it is recorded. */
  latest_lease_until: timestamp.nullable(),
  /** Whether that lease is still running (database clock). */
  live: z.boolean(),
  source: z.enum(["work_unit_lease", "scene_generation_claim"]),
}).strict();
type OpsWorkerActivity = z.infer<typeof OpsWorkerActivity>;

/** Answer of GET /ops/queues. */
export const OpsQueues = z.object({
  /** The database clock (leases and message ages use it, not the engine clock). */
  now: timestamp,
  queues: z.array(OpsQueue),
  leases: z.object({
    stage_tasks: OpsLeaseCounts,
    worker_jobs: OpsLeaseCounts,
    scene_claims: OpsLeaseCounts,
  }).strict(),
  /** Expired, unreclaimed leases, longest expired first (at most 100). */
  stale_leases: z.array(OpsStaleLease),
  /** Stage runners' and scene generators' latest leases. */
  lease_holders: z.array(OpsWorkerActivity),
}).strict();
export type OpsQueues = z.infer<typeof OpsQueues>;

// ---------------------------------------------------------------------------------------------
// GET /pipeline/ops/videos?limit=20 and GET /pipeline/ops/videos/:id

/** One publication of a video on one platform account. */
export const OpsVideo = z.object({
  /** The publication's id: what GET /ops/videos/:id takes. */
  id: uuid,
  unit_id: uuid,
  run_id: uuid,
  dimension_id: DimensionId,
  platform: Platform,
  channel_handle: z.string(),
  /** The platform's video id; null before the upload finished. */
  external_id: z.string().nullable(),
  /** The public page of the video (YouTube Shorts / TikTok); null without a video id. */
  url: z.string().nullable(),
  /** The script's title, else the topic's. */
  title: z.string().nullable(),
  /** pending, uploading, published, deferred or failed. */
  status: z.string(),
  privacy_status: z.string().nullable(),
  deferred_reason: z.string().nullable(),
  created_at: timestamp,
  published_at: timestamp.nullable(),
}).strict();
export type OpsVideo = z.infer<typeof OpsVideo>;

/** Answer of GET /ops/videos: the most recent publications, newest first (published_at, else created_at). */
export const OpsVideoList = z.object({ videos: z.array(OpsVideo) }).strict();
export type OpsVideoList = z.infer<typeof OpsVideoList>;

/** One scene of the video: which backend made its clip and what the clip's credit says. */
export const OpsScene = z.object({
  scene_index: count,
  status: z.string(),
  duration_s: z.number(),
  narration: z.string(),
  /** The backend that made the clip (e.g. `pexels/...`, `procedural-ffmpeg/...`); null while queued. */
  backend: z.string().nullable(),
  /** The backend's family as the cache names it (pexels, procedural, ...). */
  backend_name: z.string().nullable(),
  asset_key: z.string().nullable(),
  cache_hit: z.boolean().nullable(),
  /** The clip's credit from the scene cache (stock attribution: author, source URL, licence...); null when none. */
  credit: z.record(z.string(), z.unknown()).nullable(),
}).strict();
export type OpsScene = z.infer<typeof OpsScene>;

/** One analytics window of the video (mdame.video_analytics): YouTube's figures, or TikTok's (null where the platform reports none). */
const OpsAnalyticsWindow = z.object({
  window_days: z.number().int(),
  fetched_at: timestamp,
  period_start: z.string(),
  period_end: z.string(),
  views: count,
  engaged_views: count.nullable(),
  average_view_duration_s: z.number().nullable(),
  average_view_percentage: z.number().nullable(),
  likes: count,
  comments: count.nullable(),
  shares: count.nullable(),
  /** [{ratio, watch_ratio}] in ratio order; empty for a platform that reports no retention. */
  retention: z.array(z.object({ ratio: z.number(), watch_ratio: z.number() }).strict()),
}).strict();
type OpsAnalyticsWindow = z.infer<typeof OpsAnalyticsWindow>;

/** The rendered file and a time-limited link the browser can play. */
export const OpsRender = z.object({
  /** Storage key of the render; null when the unit has no video. */
  key: z.string().nullable(),
  duration_s: z.number().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  size_bytes: z.number().int().nullable(),
  /** A signed Storage URL (GET, Range requests answered 206); null when the store cannot sign (local directory) or there is no key. */
  signed_url: z.string().nullable(),
  /** When the signed URL stops working; null without one. */
  expires_at: timestamp.nullable(),
}).strict();
export type OpsRender = z.infer<typeof OpsRender>;

/** Answer of GET /ops/videos/:id: the publication, its quality gate, scenes, analytics and render. */
export const OpsVideoDetail = z.object({
  video: OpsVideo,
  /** The quality gate's measures of the render; null when none were recorded. */
  quality: QualityReport.nullable(),
  render: OpsRender,
  scenes: z.array(OpsScene),
  /** The latest analytics windows, day 3 then day 7. */
  analytics: z.array(OpsAnalyticsWindow),
}).strict();
export type OpsVideoDetail = z.infer<typeof OpsVideoDetail>;

/** How long the render's signed URL of GET /ops/videos/:id stays valid. */
export const OPS_RENDER_URL_TTL_S = 3600;

// ---------------------------------------------------------------------------------------------
// GET /pipeline/ops/quota

/** One YouTube quota bucket of one Google project for the current quota day. */
const OpsYouTubeBucket = z.object({
  oauth_client_id: z.string(),
  /** uploads (videos.insert calls), units (Data API units), analytics (Analytics queries). */
  bucket: YouTubeBucket,
  /** Settled calls (and corrections) of the day. */
  used: count,
  /** Calls reserved and not yet settled or released. */
  reserved: count,
  limit: count,
  remaining: z.number().int(),
}).strict();
type OpsYouTubeBucket = z.infer<typeof OpsYouTubeBucket>;

/** One TikTok rate window of one account (calls in the last `window_s` on the engine clock). */
const OpsTikTokWindow = z.object({
  account_id: uuid,
  channel_handle: z.string(),
  call_kind: z.string(),
  used: count,
  limit: count,
  window_s: z.number().int().positive(),
}).strict();
type OpsTikTokWindow = z.infer<typeof OpsTikTokWindow>;

/** OAuth scopes publishing and analytics need, per platform (what `mdame connect` asks for). */
export const OPS_REQUIRED_SCOPES = {
  youtube: [
    "https://www.googleapis.com/auth/youtube.upload",
    "https://www.googleapis.com/auth/youtube.readonly",
    "https://www.googleapis.com/auth/yt-analytics.readonly",
  ],
  tiktok: ["video.publish"],
  // Instagram API with Facebook Login's content publishing (IG User Media, Content Publishing Limit).
  instagram: ["instagram_basic", "instagram_content_publish", "pages_show_list", "pages_read_engagement"],
  // The Reels Publishing API's list.
  facebook: ["pages_show_list", "pages_read_engagement", "pages_manage_posts"],
} as const satisfies Record<Platform, readonly string[]>;

/** One dimension account's health. */
export const OpsAccountHealth = z.object({
  id: uuid,
  dimension_id: DimensionId,
  platform: Platform,
  channel_handle: z.string(),
  /** active; paused (deactivated by the operator); needs_reconnect (the grant was refused); not_connected (no credentials stored). */
  status: z.enum(["active", "paused", "needs_reconnect", "not_connected"]),
  health_reason: z.string().nullable(),
  health_since: timestamp.nullable(),
  oauth_client_id: z.string(),
  /** Null when connected before scopes were recorded. */
  granted_scopes: z.array(z.string()).nullable(),
  /** OPS_REQUIRED_SCOPES the grant lacks; empty when unknown (granted_scopes null). */
  missing_scopes: z.array(z.string()),
  upload_cap_24h: count,
  /** Uploads in the last 24 hours (engine clock). */
  uploads_24h: count,
  upload_cap_full_until: timestamp.nullable(),
}).strict();
export type OpsAccountHealth = z.infer<typeof OpsAccountHealth>;

/** Answer of GET /ops/quota. */
export const OpsQuota = z.object({
  /** YouTube's quota day (Pacific date of the engine clock) and when its buckets fill again. */
  quota_day: z.string(),
  resets_at: timestamp,
  youtube: z.array(OpsYouTubeBucket),
  tiktok: z.array(OpsTikTokWindow),
  accounts: z.array(OpsAccountHealth),
}).strict();
export type OpsQuota = z.infer<typeof OpsQuota>;

// ---------------------------------------------------------------------------------------------
// GET /pipeline/ops/schedules and POST /pipeline/ops/schedules/:name/run

/** A run of a pg_cron job (cron.job_run_details). */
const OpsScheduleRun = z.object({
  status: z.string(),
  start_time: timestamp.nullable(),
  end_time: timestamp.nullable(),
  /** What the job's command answered, cut to 500 characters. */
  return_message: z.string().nullable(),
}).strict();
type OpsScheduleRun = z.infer<typeof OpsScheduleRun>;

/** One of the engine's pg_cron jobs (`mdame-*`). */
export const OpsSchedule = z.object({
  name: z.string(),
  /** The cron expression, evaluated in UTC. */
  schedule: z.string(),
  active: z.boolean(),
  /** The job's SQL command, cut to 200 characters. */
  command: z.string(),
  /** The last run; null when none was recorded or cron.job_run_details is not readable. */
  last_run: OpsScheduleRun.nullable(),
  /** The next time the expression fires (UTC); null when the job is inactive or the expression is not understood. */
  next_run_at: timestamp.nullable(),
  /** Whether POST /ops/schedules/:name/run can run it. */
  runnable: z.boolean(),
}).strict();
export type OpsSchedule = z.infer<typeof OpsSchedule>;

/** Answer of GET /ops/schedules. */
export const OpsScheduleList = z.object({
  /** False when pg_cron is not installed (no cron.job). */
  cron_available: z.boolean(),
  /** False when cron.job_run_details could not be read (then every last_run is null). */
  run_details_readable: z.boolean(),
  schedules: z.array(OpsSchedule),
}).strict();
export type OpsScheduleList = z.infer<typeof OpsScheduleList>;

/** A schedule name as the run-now route takes it. */
export const OpsScheduleName = z.string().regex(/^mdame-[a-z0-9-]{1,60}$/, "a schedule name is mdame-<name>");

/** Answer of POST /ops/schedules/:name/run: which function ran and what it returned. */
export const OpsScheduleRunNow = z.object({
  name: z.string(),
  /** The engine function the job calls, e.g. `mdame.tick()`. */
  function: z.string(),
  /** Its result as JSON (null for a function returning nothing). */
  result: z.unknown(),
  ran_at: timestamp,
}).strict();
export type OpsScheduleRunNow = z.infer<typeof OpsScheduleRunNow>;
