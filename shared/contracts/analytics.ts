import { z } from "zod";
import { timestamp } from "./columns.ts";

/**
 * GET /pipeline/runs/:id/analytics (`mdame status`): the YouTube Analytics figures fetched for a
 * run's published videos, one entry per video and window (3 or 7 days after publication).
 */
export const RunVideoAnalytics = z.object({
  unit_id: z.string().uuid(),
  publication_id: z.string().uuid(),
  /** The YouTube video id. */
  external_id: z.string().nullable(),
  channel_handle: z.string(),
  window_days: z.union([z.literal(3), z.literal(7)]),
  views: z.number().int().nonnegative(),
  engaged_views: z.number().int().nonnegative(),
  /** Average share of the video watched, percent (a Short watched again can pass 100). */
  average_view_percentage: z.number().nonnegative(),
  average_view_duration_s: z.number().nonnegative(),
  likes: z.number().int().nonnegative(),
  fetched_at: timestamp,
}).strict();
export type RunVideoAnalytics = z.infer<typeof RunVideoAnalytics>;

export const RunAnalyticsList = z.object({ analytics: z.array(RunVideoAnalytics) }).strict();
export type RunAnalyticsList = z.infer<typeof RunAnalyticsList>;
