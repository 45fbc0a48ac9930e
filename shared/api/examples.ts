/**
 * Example bodies of the routes (shared/api/routes). Each one passes its contract and the JSON
 * Schema written from it (tests/unit/openapi.test.ts parses every one), so a contract that changes
 * under an example fails that test rather than leaving the document wrong.
 */
import { DimensionConfig, type DimensionConfigInput } from "../contracts/dimension.ts";

const RUN_ID = "3f1c4c1e-0a1b-4c2d-8e3f-405162738495";
const UNIT_ID = "8b0f2d6a-51c4-4e7b-9a3e-2c7d1f9e4b10";
const SCENE_ID = "c2a9e4f1-7d3b-4a6e-8f10-5b2c9d8e7a61";
const ACCOUNT_ID = "5d7e9f10-2b3c-4d5e-8f6a-7b8c9d0e1f2a";
const PUBLICATION_ID = "e4f5a6b7-c8d9-4e0f-9a1b-2c3d4e5f6a7b";
const ADAPTATION_ID = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d";
const DIMENSION = "tech-explained";
const SECOND_CLIENT = "210987654321-second.apps.googleusercontent.com";
const SHA = "9f2c1a7e5b3d8c4f6a0e1b2d3c4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";
const AT = "2026-12-01T06:00:04.120Z";
const LATER = "2026-12-01T06:42:17.905Z";

/** The run of the examples, under way (then aborted). */
const run = {
  id: RUN_ID,
  env: "prod",
  run_date: "2026-12-01",
  trigger_kind: "manual",
  dimension_filter: null,
  status: "running",
  error: null,
  created_at: AT,
  updated_at: LATER,
  finished_at: null,
};

/** The second Google project of the examples, as registered (then with channels connected through it). */
const secondProject = {
  name: "second",
  oauth_client_id: SECOND_CLIENT,
  client: "registered",
  upload_calls_per_day: 100,
  api_units_per_day: 10000,
  analytics_queries_per_day: 10000,
  stats_units_per_day: 10000,
  accounts: 0,
  active_accounts: 0,
  planned_uploads_per_day: 0,
  uploads_today: 0,
  created_at: AT,
};

/** The move the adaptive engine proposes in the examples, and records as an adaptation. */
const move = {
  dimension_id: DIMENSION,
  parameter: "hook_threshold",
  before: 0.6,
  after: 0.65,
  reason: "hooks above 0.65 kept viewers 6.1 points longer",
  evidence: { n: 14 },
  week_start: "2026-11-23",
};

export const examples = {
  health: { ok: true, env: "prod" },

  triggerToday: {},
  triggerKeyed: { dimension: DIMENSION, idempotency_key: "backfill-2026-12-01-tech" },
  triggered: { run_id: RUN_ID, status: "running", created: true, status_url: `https://abcd1234.supabase.co/functions/v1/pipeline/runs/${RUN_ID}` },

  runStatus: {
    run,
    dimensions: [{
      dimension_id: DIMENSION,
      status: "ingested",
      topics_seen: 14,
      units_created: 1,
      updated_at: AT,
      config_hash: "b7e2c41d09aa",
      config: { daily_limit: 1 },
    }],
    units: [{
      id: UNIT_ID,
      dimension_id: DIMENSION,
      stage: "render",
      title: "Why your phone battery ages",
      error: null,
      updated_at: LATER,
      scenes_ready: 6,
      scenes_total: 6,
      video: null,
      quality: null,
      publications: [],
    }],
  },

  tickPoll: { reason: "poll" },
  tick: { tick: { recovery: { requeued: 0, failed: 0 }, dead_lettered: 0, runs_closed: 1, stage_tasks_visible: 3 }, processed: 3, failed: 0, more: false },

  runs: {
    runs: [
      { id: RUN_ID, status: "completed", trigger_kind: "cron", run_date: "2026-12-01", created_at: AT, finished_at: LATER, error: null },
    ],
  },

  deadLetters: {
    dead_letters: [{
      id: 12,
      queue_name: "render",
      msg_id: 345,
      read_ct: 5,
      payload: { unit_id: UNIT_ID },
      last_error: "ffmpeg exited with code 1",
      unit_id: UNIT_ID,
      created_at: AT,
      retried_at: null,
      retried_msg_id: null,
    }],
  },
  deadLetterRetry: { dead_letter_id: 12, queue_name: "render", msg_id: 377, unit_id: UNIT_ID, run_id: RUN_ID },

  abortBody: { reason: "wrong topic list" },
  aborted: {
    run: { ...run, status: "rolled_back", error: "aborted: wrong topic list", finished_at: LATER, idempotency_key: "manual:2026-12-01:tech-explained" },
    cancelled_units: 1,
    released_assets: [`scenes/${SHA}.mp4`],
    removed_assets: 1,
    unremoved_assets: [],
  },

  account: {
    id: ACCOUNT_ID,
    dimension_id: DIMENSION,
    platform: "youtube",
    channel_handle: "@techexplained",
    channel_id: "UCabcdefghijklmnopqrstuv",
    active: true,
    has_credentials: true,
    oauth_client_id: "default",
    youtube_project: "default",
    upload_cap_24h: 6,
    health: "ok",
    health_reason: null,
    health_since: null,
    connected_at: AT,
    created_at: AT,
  },
  connectYouTube: {
    dimension_id: DIMENSION,
    platform: "youtube",
    channel_handle: "@techexplained",
    channel_id: "UCabcdefghijklmnopqrstuv",
    refresh_token: "1//0g-example-refresh-token",
    oauth_client_id: "default",
    granted_scopes: ["https://www.googleapis.com/auth/youtube.upload"],
  },
  connectTikTok: {
    dimension_id: DIMENSION,
    platform: "tiktok",
    channel_handle: "techexplained",
    channel_id: "_000Qx-example-open-id",
    refresh_token: "rft.example-refresh-token",
    oauth_client_id: "awexampleclientkey",
  },
  connectInstagram: {
    dimension_id: DIMENSION,
    platform: "instagram",
    channel_handle: "@techexplained",
    channel_id: "17841400000000001",
    refresh_token: "EAAB-example-long-lived-user-token",
    oauth_client_id: "100000000000001",
    granted_scopes: ["instagram_basic", "instagram_content_publish", "pages_show_list", "pages_read_engagement"],
  },
  removedAccount: { account_id: ACCOUNT_ID, deleted: false, publications: 3 },

  registerProject: {
    name: "second",
    oauth_client_id: SECOND_CLIENT,
    client_secret: "GOCSPX-example-client-secret",
    upload_calls_per_day: 100,
  },
  youtubeProject: secondProject,
  youtubeProjects: {
    projects: [
      { ...secondProject, accounts: 12, active_accounts: 12, planned_uploads_per_day: 24, uploads_today: 7 },
      {
        name: "default",
        oauth_client_id: "123456789012-abc.apps.googleusercontent.com",
        client: "environment",
        upload_calls_per_day: 100,
        api_units_per_day: 10000,
        analytics_queries_per_day: 10000,
        stats_units_per_day: 10000,
        accounts: 40,
        active_accounts: 38,
        planned_uploads_per_day: 76,
        uploads_today: 30,
        created_at: AT,
      },
    ],
  },
  youtubeProjectClient: { name: "second", oauth_client_id: SECOND_CLIENT, client_secret: "GOCSPX-example-client-secret" },
  removedProject: { name: "second", oauth_client_id: SECOND_CLIENT },

  rotateBatch: { limit: 10, after: null, dry_run: true },
  rotation: {
    ring: { current: "1a2b3c4d", previous: ["9f8e7d6c"] },
    dry_run: true,
    total: 2,
    done: 2,
    batch: [
      { account_id: ACCOUNT_ID, dimension_id: DIMENSION, channel_handle: "@techexplained", outcome: "would_reseal", from_kid: "9f8e7d6c" },
      { account_id: PUBLICATION_ID, dimension_id: DIMENSION, channel_handle: "techexplained", outcome: "current", from_kid: "1a2b3c4d" },
    ],
    next: null,
    projects: [{ name: "second", oauth_client_id: SECOND_CLIENT, outcome: "would_reseal", from_kid: "9f8e7d6c" }],
  },
  keys: {
    ring: { current: "1a2b3c4d", previous: ["9f8e7d6c"] },
    accounts: 2,
    by_key: [{ kid: "1a2b3c4d", standing: "current", accounts: 2 }],
    unused_previous: ["9f8e7d6c"],
  },

  alerts: {
    alerts: [{
      id: "0d1e2f3a-4b5c-4d6e-8f7a-8b9c0d1e2f3a",
      kind: "run_failed",
      dimension_id: DIMENSION,
      summary: "Run of 2026-12-01 failed: no topic passed the safety gate",
      details: { run_id: RUN_ID },
      photo_key: null,
      status: "sent",
      occurrences: 1,
      attempts: 1,
      next_attempt_at: AT,
      last_error: null,
      created_at: AT,
      last_raised_at: AT,
      sent_at: LATER,
      chat_id: "-1001234567890",
      message_ids: [4211],
      delivered_by: "edge",
      net_request_id: null,
      net_posted_at: null,
    }],
    delivery: { configured: true, default_chat: true },
  },

  analytics: {
    analytics: [{
      unit_id: UNIT_ID,
      publication_id: PUBLICATION_ID,
      platform: "youtube",
      external_id: "dQw4w9WgXcQ",
      channel_handle: "@techexplained",
      window_days: 3,
      views: 1840,
      engaged_views: 1212,
      average_view_percentage: 78.4,
      average_view_duration_s: 33.1,
      likes: 96,
      comments: null,
      shares: null,
      fetched_at: LATER,
    }],
  },

  weeklyReports: { week_start: "2026-11-23", reports: [] },

  adaptDryRun: { dimension: DIMENSION, dry_run: true },
  adaptAnswer: {
    reports: [{
      dimension_id: DIMENSION,
      dry_run: true,
      videos: 14,
      moves: [{ id: null, ...move }],
      comparisons: [{
        parameter: "hook_threshold",
        platform: "youtube",
        metric: "retention_pp",
        arms: [{ label: "score >= 0.65", n: 8, mean: 71.2 }, { label: "score < 0.65", n: 6, mean: 65.1 }],
        difference: 6.1,
        t: 2.31,
        critical_t: 1.78,
        outcome: "raise",
      }],
    }],
  },
  adaptation: {
    id: ADAPTATION_ID,
    ...move,
    decided_at: AT,
    applied: true,
    reverted_at: null,
  },
  pin: { dimension: DIMENSION, parameter: "hook_threshold" },
  pins: { dimension_id: DIMENSION, pinned: ["hook_threshold"] },

  callbackScene: {
    kind: "visual_generation.completed",
    msg_id: 901,
    scene_id: SCENE_ID,
    scene_hash: SHA,
    asset_key: `scenes/${SHA}.mp4`,
    backend: "procedural",
    cache_hit: false,
    worker_id: "gpu-worker-1",
  },
  callbackRender: {
    kind: "render.completed",
    msg_id: 902,
    unit_id: UNIT_ID,
    video_key: `renders/${SHA}.mp4`,
    duration_s: 42.5,
    width: 1080,
    height: 1920,
    size_bytes: 8_312_004,
    render_ms: 18_240,
    quality: {
      passed: true,
      integrated_lufs: -14.2,
      true_peak_dbtp: -1.6,
      duration_s: 42.5,
      checks: [{ check: "integrated_loudness", passed: true, value: -14.2, unit: "LUFS", bound: "-14 +-1 LUFS", reason: null }],
      failures: [],
    },
    music: null,
    worker_id: "render-runner-1",
  },
  callbackFailed: {
    kind: "render.failed",
    msg_id: 903,
    unit_id: UNIT_ID,
    error: { message: "ffmpeg exited with code 1", retriable: true },
    worker_id: "render-runner-1",
  },
  callbackScenePassed: { ok: true, scene_status: "ready" },
  callbackRendered: { ok: true, unit_stage: "publish" },
  callbackRetry: { ok: true, outcome: "retry" },

  openapi: { openapi: "3.1.1", info: { title: "MD-AME Edge Functions", version: "0.1.0" }, paths: {} },
} as const;

/** A dimension configuration file as `mdame dimension add` sends it: what is left out takes its default. */
export const dimensionConfig: DimensionConfigInput = {
  id: DIMENSION,
  display_name: "Tech Explained",
  language: "en",
  tts_voice: "en-US-AriaNeural",
  trend_geo: "US",
  style: { palette: ["#0b132b", "#5bc0be"], motion: "drift" },
};

/** The stored dimension the routes answer with: the configuration with its defaults, and its state. */
export const dimension = {
  ...DimensionConfig.parse(dimensionConfig),
  active: true,
  created_at: AT,
  updated_at: LATER,
  accounts: 2,
  active_accounts: 2,
};

export const dimensionPatch = { daily_limit: 2, publishing: { publish_time: "18:00" } };

/** The bodies of error answers, one per cause the routes answer (shared/http/error-handler.ts). */
export const errorExamples = {
  invalid: { error: "invalid request", issues: [{ code: "too_big", path: ["limit"], message: "Too big: expected number to be <=500" }] },
  unauthorized: { error: "a service-role bearer token is required" },
  webhookRefused: { error: "webhook refused: webhook-timestamp outside the tolerance" },
  runNotFound: { error: `no run ${RUN_ID}` },
  dimensionNotFound: { error: `no dimension ${DIMENSION}` },
  accountNotFound: { error: `no account ${ACCOUNT_ID}` },
  deadLetterNotFound: { error: "no dead letter 12" },
  projectNotFound: { error: "no YouTube project third (registered: default, second); add one with `mdame youtube-project add --name third --client-id <id>`" },
  wrongState: { error: "dead letter 12 was already retried as message 377" },
  tooLarge: { error: "the body is larger than this endpoint accepts" },
  internal: { error: "internal error", error_id: "6f0e2d4c-1b3a-4c5d-9e8f-7a6b5c4d3e2f" },
  environment: { error: "this database belongs to the staging environment, not prod" },
} as const;
