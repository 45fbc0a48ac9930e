import { z } from "zod";
import { timestamp } from "./columns.ts";
import { Platform } from "./account.ts";

/**
 * A post's figures as a platform other than YouTube reports them (TikTok's video/query, Instagram's
 * and Facebook's insights): counts, with null for what the platform does not report.
 */
export interface PostCounts {
  views: number;
  likes: number;
  comments: number;
  shares: number;
  reach: number | null;
  saved: number | null;
  /** Average watch time in seconds. */
  averageViewDurationS: number | null;
}

/**
 * GET /pipeline/runs/:id/analytics (`mdame status`): the figures fetched for a run's published
 * videos, one entry per video and window (3 or 7 days after publication): YouTube Analytics' for a
 * YouTube video (engaged views, the view averages), TikTok video/query's for a TikTok post
 * (comments, shares); a figure the platform does not report is null.
 */
export const RunVideoAnalytics = z.object({
  unit_id: z.string().uuid(),
  publication_id: z.string().uuid(),
  platform: Platform,
  /** The platform's id of the video or post. */
  external_id: z.string().nullable(),
  channel_handle: z.string(),
  window_days: z.union([z.literal(3), z.literal(7)]),
  views: z.number().int().nonnegative(),
  /** YouTube only. */
  engaged_views: z.number().int().nonnegative().nullable(),
  /** Average share of the video watched, percent (a Short watched again can pass 100); YouTube only. */
  average_view_percentage: z.number().nonnegative().nullable(),
  /** YouTube only. */
  average_view_duration_s: z.number().nonnegative().nullable(),
  likes: z.number().int().nonnegative(),
  /** TikTok only. */
  comments: z.number().int().nonnegative().nullable(),
  /** TikTok only. */
  shares: z.number().int().nonnegative().nullable(),
  fetched_at: timestamp,
}).strict();
export type RunVideoAnalytics = z.infer<typeof RunVideoAnalytics>;

export const RunAnalyticsList = z.object({ analytics: z.array(RunVideoAnalytics) }).strict();
export type RunAnalyticsList = z.infer<typeof RunAnalyticsList>;
