/**
 * The YouTube Analytics fetches (docs/reference/analytics.md): scheduled hourly by SQL, claimed from the
 * analytics_fetches queue by the pipeline's tick, recorded (an upsert per publication and window)
 * or retried and given up; and what a run's status shows of them.
 */
import { z } from "zod";
import { type PostCounts, RunVideoAnalytics } from "../../contracts/analytics.ts";
import { Platform } from "../../contracts/account.ts";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow } from "./query.ts";

/** The windows fetched, 3 or 7 days after publication, as the API names them. */
const AnalyticsWindow = RunVideoAnalytics.shape.window_days;
type AnalyticsWindow = z.infer<typeof AnalyticsWindow>;

/** A claimed fetch: its queue message and what the fetch needs. */
export const ClaimedAnalyticsFetch = z.object({
  msg_id: z.coerce.number().int(),
  read_ct: z.number().int(),
  publication_id: z.string().uuid(),
  platform: Platform,
  window_days: AnalyticsWindow,
  /** Claims so far, this one included. */
  attempts: z.number().int().positive(),
  external_id: z.string().nullable(),
  published_at: z.date().nullable(),
  unit_id: z.string().uuid(),
  run_id: z.string().uuid(),
  account_id: z.string().uuid(),
  dimension_id: z.string(),
  channel_handle: z.string(),
  /** The account's id on its platform (an Instagram user id, a Facebook Page id); null when none was recorded. */
  channel_id: z.string().nullable(),
  /** The account's Google project; null for a TikTok account. */
  oauth_client_id: z.string().nullable(),
  credentials_enc: z.string().nullable(),
  /** Active, healthy and holding credentials. */
  account_ready: z.boolean(),
  /** mdame.engine_now() at the claim. */
  engine_now: z.date(),
}).strict();
export type ClaimedAnalyticsFetch = z.infer<typeof ClaimedAnalyticsFetch>;

/** A row of mdame.analytics_fetches. */
const AnalyticsFetch = z.object({
  publication_id: z.string().uuid(),
  window_days: AnalyticsWindow,
  status: z.enum(["queued", "fetched", "given_up"]),
  msg_id: z.coerce.number().int().nullable(),
  attempts: z.number().int().nonnegative(),
  due_at: z.date(),
  enqueued_at: z.date(),
  last_error: z.string().nullable(),
  finished_at: z.date().nullable(),
}).strict();
type AnalyticsFetch = z.infer<typeof AnalyticsFetch>;

const numeric = z.union([z.string(), z.number()]).transform(Number).pipe(z.number().finite());
const bigCount = z.union([z.string(), z.number(), z.bigint()]).transform(Number).pipe(z.number().int().nonnegative());

/** A row of mdame.video_analytics. */
const VideoAnalyticsRow = z.object({
  id: z.string().uuid(),
  publication_id: z.string().uuid(),
  window_days: AnalyticsWindow,
  fetched_at: z.date(),
  period_start: z.coerce.date(),
  period_end: z.coerce.date(),
  views: bigCount,
  engaged_views: bigCount.nullable(),
  average_view_duration_s: numeric.nullable(),
  average_view_percentage: numeric.nullable(),
  likes: bigCount,
  retention: z.array(z.object({ ratio: z.number(), watch_ratio: z.number() }).strict()).nullable(),
  platform: Platform,
  comments: bigCount.nullable(),
  shares: bigCount.nullable(),
  reach: bigCount.nullable(),
  saved: bigCount.nullable(),
}).strict();
type VideoAnalyticsRow = z.infer<typeof VideoAnalyticsRow>;

/** The figures of one fetch, as record_video_analytics takes them. */
interface VideoAnalyticsFigures {
  publicationId: string;
  windowDays: AnalyticsWindow;
  periodStart: string;
  periodEnd: string;
  views: number;
  engagedViews: number;
  averageViewDurationS: number;
  averageViewPercentage: number;
  likes: number;
  retention: Array<{ ratio: number; watch_ratio: number }>;
  /** The queue message, archived with the row written. */
  msgId: number | null;
}

/** Claims up to `qty` visible fetches for `vtSeconds`. */
export function claimAnalyticsFetches(sql: Queryable, qty: number, vtSeconds: number): Promise<ClaimedAnalyticsFetch[]> {
  return manyRows("claim_analytics_fetches", ClaimedAnalyticsFetch, sql`select * from mdame.claim_analytics_fetches(${qty}::integer, ${vtSeconds}::integer)`);
}

/** A post's counts at one window (TikTok, Instagram, Facebook), as record_counted_video_analytics takes them; a figure the platform does not report is null. */
interface CountedFigures extends PostCounts {
  publicationId: string;
  windowDays: AnalyticsWindow;
  periodStart: string;
  periodEnd: string;
  msgId: number | null;
}

/** Writes (or replaces) a post's counts at the window, marks the fetch fetched and archives its message. */
export function recordCountedVideoAnalytics(sql: Queryable, f: CountedFigures): Promise<VideoAnalyticsRow> {
  return oneRow(
    "record_counted_video_analytics",
    VideoAnalyticsRow,
    sql`
    select * from mdame.record_counted_video_analytics(${f.publicationId}::uuid, ${f.windowDays}::integer, ${f.periodStart}::date,
      ${f.periodEnd}::date, ${f.views}::bigint, ${f.likes}::bigint, ${f.comments}::bigint, ${f.shares}::bigint, ${f.reach}::bigint,
      ${f.saved}::bigint, ${f.averageViewDurationS}::numeric, ${f.msgId}::bigint)`,
  );
}

/** Writes (or replaces) the window's figures, marks the fetch fetched and archives its message. */
export function recordVideoAnalytics(sql: Queryable, f: VideoAnalyticsFigures): Promise<VideoAnalyticsRow> {
  return oneRow(
    "record_video_analytics",
    VideoAnalyticsRow,
    sql`
    select * from mdame.record_video_analytics(${f.publicationId}::uuid, ${f.windowDays}::integer, ${f.periodStart}::date,
      ${f.periodEnd}::date, ${f.views}::bigint, ${f.engagedViews}::bigint, ${f.averageViewDurationS}::numeric,
      ${f.averageViewPercentage}::numeric, ${f.likes}::bigint, ${sql.json(f.retention as never)}::jsonb, ${f.msgId}::bigint)`,
  );
}

/** Makes the fetch's message visible again after `delaySeconds`, or gives the fetch up for good. */
export function retryAnalyticsFetch(
  sql: Queryable,
  p: { publicationId: string; windowDays: AnalyticsWindow; msgId: number; delaySeconds: number; reason: string; giveUp: boolean },
): Promise<AnalyticsFetch> {
  return oneRow(
    "retry_analytics_fetch",
    AnalyticsFetch,
    sql`
    select * from mdame.retry_analytics_fetch(${p.publicationId}::uuid, ${p.windowDays}::integer, ${p.msgId}::bigint,
      ${p.delaySeconds}::integer, ${p.reason}::text, ${p.giveUp}::boolean)`,
  );
}

/** One fetched window of a run's published video: the entry the API answers (RunVideoAnalytics), its figures and time as video_analytics stores them. */
const RunAnalytics = RunVideoAnalytics.extend(
  VideoAnalyticsRow.pick({
    views: true,
    engaged_views: true,
    average_view_percentage: true,
    average_view_duration_s: true,
    likes: true,
    comments: true,
    shares: true,
    fetched_at: true,
  }).shape,
).strict();
type RunAnalytics = z.infer<typeof RunAnalytics>;

export function getRunAnalytics(sql: Queryable, runId: string): Promise<RunAnalytics[]> {
  return manyRows("get_run_analytics", RunAnalytics, sql`select * from mdame.get_run_analytics(${runId}::uuid)`);
}
