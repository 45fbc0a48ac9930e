/**
 * The ops dashboard's views (functions/pipeline/operator/ops-routes.ts serves them,
 * docs/reference/ops-api.md), with an example of each answer.
 */
import { z } from "@hono/zod-openapi";
import { ListQuery } from "../../contracts/operator.ts";
import { OpsOverviewQuery, OpsScheduleName } from "../../contracts/ops.ts";
import { WORK_UNIT_STAGES } from "../../contracts/work-unit.ts";
import { bodies } from "../components.ts";
import { capitalized, errors, ok, routesOf, serviceErrors } from "../kit.ts";

export const PublicationId = z.string().uuid();
export const OpsVideosQuery = ListQuery(20);
/** The routes that take no query parameter refuse any (400). */
export const OpsNoQuery = z.object({}).strict();
/**
 * Any text is taken as a schedule's name: one outside the engine's whitelist is absent (404),
 * malformed or not, so the handler checks it with OpsScheduleName; the document shows its pattern.
 */
const ScheduleNameParam = z.string().openapi({ pattern: (z.toJSONSchema(OpsScheduleName) as { pattern?: string }).pattern });

const RUN_ID = "7f3c2a10-5b6d-4e8f-9a0b-1c2d3e4f5a6b";
const UNIT_ID = "2b4d6f80-1a3c-4e5f-8a7b-9c0d1e2f3a4b";
const PUBLICATION_ID = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b";
const ACCOUNT_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";

const stages = WORK_UNIT_STAGES;
const funnel = { script: 0, safety: 0, plan: 0, media: 1, render: 1, awaiting_review: 0, publish: 0, deferred: 0, published: 3, rejected: 1, failed: 0 };

const video = {
  id: PUBLICATION_ID,
  unit_id: UNIT_ID,
  run_id: RUN_ID,
  dimension_id: "tech-explained",
  platform: "youtube",
  channel_handle: "@tech-explained",
  external_id: "dQw4w9WgXcQ",
  url: "https://www.youtube.com/shorts/dQw4w9WgXcQ",
  title: "Why your phone battery ages",
  status: "published",
  privacy_status: "public",
  deferred_reason: null,
  created_at: "2026-12-02T06:40:12.000Z",
  published_at: "2026-12-02T07:02:55.000Z",
};

const opsExamples = {
  overview: {
    today: "2026-12-02",
    engine_now: "2026-12-02T08:15:00.000Z",
    dimensions: [{
      dimension_id: "tech-explained",
      display_name: "Tech Explained",
      run: {
        id: RUN_ID,
        status: "running",
        trigger_kind: "cron",
        run_date: "2026-12-02",
        created_at: "2026-12-02T06:00:00.000Z",
        finished_at: null,
        error: null,
      },
      ingest_status: "ingested",
      topics_seen: 14,
      units_created: 6,
      funnel: stages.map((stage) => ({ stage, units: funnel[stage] })),
    }],
    counts: {
      runs: [{ state: "running", count: 1 }],
      work_units: [{ state: "media", count: 1 }, { state: "render", count: 1 }, { state: "published", count: 3 }, { state: "rejected", count: 1 }],
      stage_tasks: [{ state: "waiting", count: 0 }, { state: "leased", count: 1 }, { state: "retrying", count: 0 }, { state: "delayed", count: 0 }, {
        state: "dead_lettered",
        count: 0,
      }],
      worker_jobs: [{ state: "waiting", count: 2 }, { state: "leased", count: 1 }, { state: "delayed", count: 0 }, { state: "dead_lettered", count: 1 }],
    },
    failures: [{
      kind: "dead_letter",
      id: "41",
      run_id: RUN_ID,
      unit_id: UNIT_ID,
      dimension_id: "tech-explained",
      stage: "render",
      reason: "read 4 times without a result (limit 3): the worker stopped before reporting each time",
      at: "2026-12-02T07:40:00.000Z",
      retried: false,
    }],
  },
  queues: {
    now: "2026-12-02T08:15:00.000Z",
    queues: [
      {
        queue_name: "render",
        depth: 3,
        visible: 2,
        invisible: 1,
        leased: 1,
        oldest_msg_age_s: 412,
        newest_msg_age_s: 35,
        total_messages: 118,
        workers: [
          {
            worker_id: "render-runner-render-box-1-4121-9f3a1c",
            host: "render-box-1",
            pid: 4121,
            concurrency: 2,
            jobs_held: 1,
            started_at: "2026-12-02T06:00:02.000Z",
            last_beat_at: "2026-12-02T08:14:51.000Z",
            last_beat_age_s: 9,
            status: "live",
          },
          {
            worker_id: "render-runner-render-box-2-733-04be7d",
            host: "render-box-2",
            pid: 733,
            concurrency: 2,
            jobs_held: 2,
            started_at: "2026-12-02T06:00:05.000Z",
            last_beat_at: "2026-12-02T07:58:40.000Z",
            last_beat_age_s: 980,
            status: "stale",
          },
        ],
      },
      {
        queue_name: "stage_tasks",
        depth: 1,
        visible: 0,
        invisible: 1,
        leased: 1,
        oldest_msg_age_s: 12,
        newest_msg_age_s: 12,
        total_messages: 2304,
        workers: [],
      },
    ],
    leases: { stage_tasks: { held: 1, stale: 0 }, worker_jobs: { held: 1, stale: 0 }, scene_claims: { held: 0, stale: 1 } },
    stale_leases: [{
      kind: "scene_claim",
      holder: "gpu-worker-1",
      subject: `${"a".repeat(64)}/pexels`,
      unit_id: null,
      expired_at: "2026-12-02T08:05:00.000Z",
      expired_for_s: 600,
    }],
    lease_holders: [
      { kind: "stage_runner", worker_id: "edge-8f2c", leases_held: 1, latest_lease_until: "2026-12-02T08:15:30.000Z", live: true, source: "work_unit_lease" },
    ],
  },
  videos: { videos: [video] },
  video: {
    video,
    quality: {
      passed: true,
      integrated_lufs: -14.1,
      true_peak_dbtp: -1.4,
      duration_s: 41.5,
      checks: [{ check: "integrated_loudness", passed: true, value: -14.1, unit: "LUFS", bound: "-14 +-1 LUFS", reason: null }],
      failures: [],
    },
    render: {
      key: `renders/${UNIT_ID}.mp4`,
      duration_s: 41.5,
      width: 1080,
      height: 1920,
      size_bytes: 18_402_113,
      signed_url: `https://abcdefghijklmnop.supabase.co/storage/v1/object/sign/mdame-prod/renders/${UNIT_ID}.mp4?token=eyJhbGciOi...`,
      expires_at: "2026-12-02T09:15:00.000Z",
    },
    scenes: [{
      scene_index: 0,
      status: "ready",
      duration_s: 6.2,
      narration: "Every charge wears the cell a little.",
      backend: "pexels/8123456",
      backend_name: "pexels",
      asset_key: `scenes/${"b".repeat(64)}.mp4`,
      cache_hit: false,
      credit: { provider: "Pexels", author: "Jane Doe", source_url: "https://www.pexels.com/video/8123456/" },
    }],
    analytics: [{
      window_days: 3,
      fetched_at: "2026-12-05T09:00:00.000Z",
      period_start: "2026-12-02",
      period_end: "2026-12-05",
      views: 1840,
      engaged_views: 1402,
      average_view_duration_s: 27.4,
      average_view_percentage: 66.1,
      likes: 73,
      comments: null,
      shares: null,
      retention: [{ ratio: 0, watch_ratio: 1 }, { ratio: 0.5, watch_ratio: 0.68 }],
    }],
  },
  quota: {
    quota_day: "2026-12-02",
    resets_at: "2026-12-03T08:00:00.000Z",
    youtube: [
      { oauth_client_id: "default", bucket: "uploads", used: 4, reserved: 1, limit: 100, remaining: 95 },
      { oauth_client_id: "default", bucket: "units", used: 260, reserved: 0, limit: 10000, remaining: 9740 },
      { oauth_client_id: "default", bucket: "analytics", used: 6, reserved: 0, limit: 10000, remaining: 9994 },
    ],
    tiktok: [],
    accounts: [{
      id: ACCOUNT_ID,
      dimension_id: "tech-explained",
      platform: "youtube",
      channel_handle: "@tech-explained",
      status: "active",
      health_reason: null,
      health_since: null,
      oauth_client_id: "default",
      granted_scopes: ["https://www.googleapis.com/auth/youtube.upload", "https://www.googleapis.com/auth/youtube.readonly"],
      missing_scopes: ["https://www.googleapis.com/auth/yt-analytics.readonly"],
      upload_cap_24h: 15,
      uploads_24h: 4,
      upload_cap_full_until: null,
    }],
  },
  schedules: {
    cron_available: true,
    run_details_readable: true,
    schedules: [{
      name: "mdame-tick",
      schedule: "* * * * *",
      active: true,
      command: "select mdame.tick()",
      last_run: { status: "succeeded", start_time: "2026-12-02T08:15:00.031Z", end_time: "2026-12-02T08:15:00.104Z", return_message: "SELECT 1" },
      next_run_at: "2026-12-02T08:16:00.000Z",
      runnable: true,
    }],
  },
  ran: { name: "mdame-publish-drain", function: "mdame.drain_deferred_publications()", result: 2, ran_at: "2026-12-02T08:15:12.410Z" },
};

const route = routesOf("ops");

/**
 * `GET /pipeline/ops/{name}`, operationId `ops<Name>`: one of the dashboard's views, its query
 * checked (400), its answer or the service-role errors.
 */
const view = <N extends string, Q extends z.ZodObject, A extends ReturnType<typeof ok>>(name: N, summary: string, query: Q, answer: A) =>
  route({
    method: "get",
    path: `/pipeline/ops/${name}`,
    operationId: `ops${capitalized(name)}`,
    summary,
    request: { query },
    responses: { 200: answer, ...serviceErrors },
  });

export const opsRoutes = {
  opsOverview: view(
    "overview",
    "Today's run of each active dimension with its units' funnel, counts by state, the latest failures (mdame.ops_overview)",
    OpsOverviewQuery,
    ok("The overview", bodies.OpsOverview, "a day under way", opsExamples.overview),
  ),
  opsQueues: view(
    "queues",
    "Each pgmq queue's depth, ages and pull workers (their heartbeats), leases held and stale, the stage runners' and scene generators' latest leases (mdame.ops_queues)",
    OpsNoQuery,
    ok("The queues", bodies.OpsQueues, "a render in progress", opsExamples.queues),
  ),
  opsVideos: view(
    "videos",
    "Recent publications, newest first, with their public links (mdame.ops_videos)",
    OpsVideosQuery,
    ok("The publications", bodies.OpsVideoList, "one published Short", opsExamples.videos),
  ),
  opsVideo: route({
    method: "get",
    path: "/pipeline/ops/videos/{id}",
    operationId: "opsVideo",
    summary: "One publication: quality gate, scenes and credits, analytics, and a signed URL of its render valid for an hour",
    request: { params: z.object({ id: PublicationId.describe("The publication's id (a uuid)") }) },
    responses: {
      200: ok("The publication", bodies.OpsVideoDetail, "a published Short", opsExamples.video),
      ...serviceErrors,
      404: errors.notFound("publication", { error: `no publication ${PUBLICATION_ID}` }),
    },
  }),
  opsQuota: view(
    "quota",
    "Today's YouTube quota buckets, TikTok rate windows and each account's health (mdame.ops_quota)",
    OpsNoQuery,
    ok("Quota and accounts", bodies.OpsQuota, "one channel", opsExamples.quota),
  ),
  opsSchedules: view(
    "schedules",
    "The engine's pg_cron jobs, their last and next runs (mdame.ops_schedules)",
    OpsNoQuery,
    ok("The schedules", bodies.OpsScheduleList, "the tick", opsExamples.schedules),
  ),
  opsRunSchedule: route({
    method: "post",
    path: "/pipeline/ops/schedules/{name}/run",
    operationId: "opsRunSchedule",
    summary: "Run an engine schedule's function now, by a fixed whitelist (mdame.run_engine_job); the job's command text is never executed",
    request: { params: z.object({ name: ScheduleNameParam.describe("The schedule's name (mdame-...)") }) },
    responses: {
      200: ok("What ran", bodies.OpsScheduleRunNow, "the deferred-publication drain", opsExamples.ran),
      401: serviceErrors[401],
      500: serviceErrors[500],
      404: errors.notFound("engine schedule", { error: "no engine schedule mdame-nope" }),
    },
  }),
};
