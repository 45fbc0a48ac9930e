import { z } from "zod";
import { count, timestamp } from "./columns.ts";
import { Platform } from "./account.ts";
import { RunVideoAnalytics } from "./analytics.ts";
import { DimensionId } from "./dimension-id.ts";
import { YouTubeBucket } from "./youtube-project.ts";
import { DAY_MS } from "../time.ts";

/**
 * The weekly report of one dimension (mdame.weekly_report): what it produced, where it lost units,
 * how long each stage took, how often the caches saved a call, the quota it used, and its best and
 * worst videos. The SQL builds it, the pipeline parses it with this schema before rendering it
 * (shared/reports/weekly-markdown.ts, weekly-charts.ts), and the operator API answers with it.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date YYYY-MM-DD");

/** A cache's lookups in the week; `hit_rate` is null when nothing was looked up. */
export const CacheFigures = z.object({
  lookups: count,
  hits: count,
  hit_rate: z.number().min(0).max(1).nullable(),
}).strict();
export type CacheFigures = z.infer<typeof CacheFigures>;

/** One video's latest analytics window (day 3 or day 7). `title` is untrusted text: escape it to show it. */
export const ReportVideo = z.object({
  publication_id: z.string().uuid(),
  platform: Platform,
  title: z.string(),
  url: z.string().url().nullable(),
  ...RunVideoAnalytics.pick({
    window_days: true,
    views: true,
    engaged_views: true,
    average_view_duration_s: true,
    average_view_percentage: true,
    likes: true,
    comments: true,
    shares: true,
  }).shape,
}).strict();
export type ReportVideo = z.infer<typeof ReportVideo>;

/** One platform's videos with analytics this week: totals, and its most and least viewed video. */
const PlatformWeek = z.object({
  platform: Platform,
  videos: count,
  views: count,
  likes: count,
  /** YouTube's: summed engaged views, and the mean of the videos' average view percentages; null elsewhere. */
  engaged_views: count.nullable(),
  average_view_percentage: z.number().nonnegative().nullable(),
  /** TikTok's: summed comments and shares; null elsewhere. */
  comments: count.nullable(),
  shares: count.nullable(),
  most_viewed: ReportVideo,
  least_viewed: ReportVideo,
}).strict();
export type PlatformWeek = z.infer<typeof PlatformWeek>;

/** One point of a retention curve: the share of the video elapsed, and the audience watching there (YouTube's). */
export const RetentionPoint = z.object({ ratio: z.number().min(0), watch_ratio: z.number().min(0) }).strict();
export type RetentionPoint = z.infer<typeof RetentionPoint>;

/** One video's views for the charts: every platform reports views, YouTube alone engaged views. */
const VideoViews = ReportVideo.pick({ publication_id: true, platform: true, title: true, views: true, engaged_views: true }).strict();

const DailyOutcomes = z.object({ date: isoDate, published: count, rejected: count, failed: count }).strict();
type DailyOutcomes = z.infer<typeof DailyOutcomes>;

const StageLatency = z.object({
  stage: z.string(),
  samples: count,
  p50_s: z.number().nonnegative(),
  p95_s: z.number().nonnegative(),
}).strict();
type StageLatency = z.infer<typeof StageLatency>;

/** Spend of one day in US dollars (the provider calls' recorded cost), for the spend chart. */
export const DailySpend = z.object({ date: isoDate, usd: z.number().nonnegative() }).strict();
export type DailySpend = z.infer<typeof DailySpend>;

/**
 * The channel-standing guard's checks of the week (docs/reference/similarity.md), by the action
 * taken, with the median and highest combined score to the closest earlier video (null when no check
 * had an earlier video to compare with).
 */
export const SimilarityWeek = z.object({
  checks: count,
  passed: count,
  regenerated: count,
  rejected: count,
  median_combined: z.number().min(0).max(1).nullable(),
  max_combined: z.number().min(0).max(1).nullable(),
}).strict();
export type SimilarityWeek = z.infer<typeof SimilarityWeek>;

export const WeeklyReport = z.object({
  dimension_id: DimensionId,
  display_name: z.string(),
  /** The IANA zone the week's days are counted in (the dimension's publishing.time_zone). */
  time_zone: z.string(),
  /** Monday of the week. */
  week_start: isoDate,
  /** Sunday of the week. */
  week_end: isoDate,
  /** When the figures were read, on the engine's clock. */
  generated_at: timestamp,
  outcomes: z.object({
    published: count,
    rejected: count,
    failed: count,
    rejected_by_reason: z.array(z.object({ reason: z.string(), count }).strict()),
    failed_by_stage: z.array(z.object({ stage: z.string(), count }).strict()),
  }).strict(),
  /** Topics the ingest stage dropped before they became units, by reason. */
  topics_rejected: z.array(z.object({ reason: z.string(), count }).strict()),
  /**
   * Review before publish (docs/guides/review.md): the decisions of the week, by the operator or by
   * expiry (`expired` counts those), and the rejections' reasons. A report of a database without
   * reviews has none.
   */
  reviews: z.object({
    approved: count,
    rejected: count,
    expired: count,
    rejections: z.array(z.object({ reason: z.string(), count }).strict()),
  }).strict().default({ approved: 0, rejected: 0, expired: 0, rejections: [] }),
  /** The seven days, Monday first. */
  daily: z.array(DailyOutcomes).length(7),
  stage_latency: z.array(StageLatency),
  cache: z.object({ scenes: CacheFigures, llm: CacheFigures, tts: CacheFigures }).strict(),
  quota: z.object({
    // analytics: the YouTube Analytics API's own queries (docs/reference/analytics.md).
    youtube: z.array(z.object({ bucket: YouTubeBucket, used: count, calls: count }).strict()),
    tiktok: z.array(z.object({ call_kind: z.string(), calls: count }).strict()),
  }).strict(),
  /** The week's recorded provider calls (docs/reference/spend.md); absent from reports stored before spend was recorded. */
  spend: z.object({
    usd: z.number().nonnegative(),
    /** The week's spend over the videos published in the week; null when none was. */
    usd_per_published_video: z.number().nonnegative().nullable(),
    by_provider: z.array(z.object({ provider: z.string(), usd: z.number().nonnegative(), calls: count, cached_calls: count }).strict()),
    /** Each day's spend, Monday first, in the dimension's time zone (the spend chart). */
    daily: z.array(DailySpend).length(7),
  }).strict().optional(),
  videos: z.object({
    /** Videos whose latest analytics window was fetched during the week. */
    count,
    best_engaged: ReportVideo.nullable(),
    worst_engaged: ReportVideo.nullable(),
    best_retention: ReportVideo.nullable(),
    worst_retention: ReportVideo.nullable(),
    /** Each platform's figures, by platform name. */
    by_platform: z.array(PlatformWeek),
    /** The week's videos, most viewed first (the twenty most viewed: mdame.weekly_report). */
    each: z.array(VideoViews),
    /** The retention curves of best_retention and worst_retention (null with no such video). */
    retention_curves: z.object({ best: z.array(RetentionPoint).nullable(), worst: z.array(RetentionPoint).nullable() }).strict(),
  }).strict(),
  /** Absent from reports stored before the guard existed. */
  similarity: SimilarityWeek.optional(),
}).strict();
export type WeeklyReport = z.infer<typeof WeeklyReport>;

/** The first and last days a four-digit date can say. */
const FIRST_DAY_MS = Date.parse("0001-01-01T00:00:00Z");
const LAST_DAY_MS = Date.parse("9999-12-31T00:00:00Z");

/**
 * A date of the week to report, as the operator API and the CLI take it: a calendar date whose
 * week, Monday to Sunday, lies within years 0001 to 9999.
 */
export const ReportDate = isoDate.superRefine((text, ctx) => {
  const day = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== text) {
    ctx.addIssue({ code: "custom", message: "not a calendar date" });
    return;
  }
  const monday = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
  if (monday < FIRST_DAY_MS || monday + 6 * DAY_MS > LAST_DAY_MS) {
    ctx.addIssue({ code: "custom", message: "its week (Monday to Sunday) must lie between 0001-01-01 and 9999-12-31" });
  }
});

/** Query of GET /pipeline/reports/weekly: any date of the week, and optionally one dimension. */
export const WeeklyReportQuery = z.object({
  week: ReportDate,
  dimension: DimensionId.optional(),
}).strict();
export type WeeklyReportQuery = z.infer<typeof WeeklyReportQuery>;

/**
 * One dimension's report as the operator API answers it: the figures and the Markdown. Its charts
 * are drawn where they are shown, from the figures (shared/reports/weekly-charts.ts), never on the
 * Edge: rasterising them passes its memory (docs/reports/benchmarks.md).
 */
export const RenderedWeeklyReport = z.object({
  report: WeeklyReport,
  markdown: z.string(),
}).strict();
export type RenderedWeeklyReport = z.infer<typeof RenderedWeeklyReport>;

/** Answer of GET /pipeline/reports/weekly: every active dimension's report (or the one asked for). */
export const WeeklyReportList = z.object({ week_start: isoDate, reports: z.array(RenderedWeeklyReport) }).strict();
export type WeeklyReportList = z.infer<typeof WeeklyReportList>;

/** The Monday of the week that holds `date` (YYYY-MM-DD). */
export function mondayOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  const back = (d.getUTCDay() + 6) % 7;
  return new Date(d.getTime() - back * DAY_MS).toISOString().slice(0, 10);
}
