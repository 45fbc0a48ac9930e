/**
 * How a published Reel did, as the closed loop reads it through Graph (plain fetch, graph.ts):
 *
 * - Instagram: `GET /{ig-media-id}/insights?metric=views,reach,likes,comments,shares,saved,ig_reels_avg_watch_time`
 *   (instagram_manage_insights), each metric `{name, values: [{value}]}`; the average watch time is
 *   in milliseconds. `views` counts replays (it replaced the deprecated `plays` in 2025).
 * - Facebook: `GET /{video-id}/video_insights?metric=blue_reels_play_count,post_impressions_unique,
 *   post_video_avg_time_watched,post_video_likes_by_reaction_type,post_video_social_actions` with
 *   the Page's token (pages_read_engagement): plays, reach, the average time watched (ms), the
 *   reactions by type (summed as likes) and the comments and shares.
 *
 * A Reel without figures yet answers no data: null. Refusals throw MetaGraphError (graph.ts).
 */
import { z } from "zod";
import { graphCall, type GraphHost } from "./graph.ts";
import type { PostCounts } from "../../contracts/analytics.ts";

const Insight = z.looseObject({
  name: z.string(),
  values: z.array(z.looseObject({ value: z.union([z.number(), z.record(z.string(), z.number())]) })).default([]),
});
const Insights = z.looseObject({ data: z.array(Insight).default([]) });

/** One Reel's figures, as counts (the average watch time in seconds, from Meta's milliseconds). */
export type ReelInsights = PostCounts;

const INSTAGRAM_METRICS = ["views", "reach", "likes", "comments", "shares", "saved", "ig_reels_avg_watch_time"] as const;
const FACEBOOK_METRICS = [
  "blue_reels_play_count",
  "post_impressions_unique",
  "post_video_avg_time_watched",
  "post_video_likes_by_reaction_type",
  "post_video_social_actions",
] as const;

/** The lifetime value of each of `metrics` Graph answers at `path`, by name: a number, or a breakdown by key. */
async function readInsights(
  input: { host: GraphHost; token: string; signal?: AbortSignal },
  path: string,
  metrics: readonly string[],
  what: string,
): Promise<Map<string, number | Record<string, number>>> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path,
    params: { metric: metrics.join(",") },
    token: input.token,
    answer: Insights,
    what,
    signal: input.signal,
  });
  return new Map(answer.data.flatMap((m) => (m.values.length > 0 ? [[m.name, m.values.at(-1)!.value] as const] : [])));
}

const numberOf = (value: number | Record<string, number> | undefined): number | null => (typeof value === "number" && value >= 0 ? value : null);
const sumOf = (value: number | Record<string, number> | undefined): number | null =>
  value === undefined ? null : typeof value === "number" ? value : Object.values(value).reduce((sum, n) => sum + n, 0);
const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 10) / 100);

/** An Instagram Reel's insights; null when Instagram has none for it yet. */
export async function instagramReelInsights(input: { host: GraphHost; token: string; mediaId: string; signal?: AbortSignal }): Promise<ReelInsights | null> {
  const values = await readInsights(input, `${input.mediaId}/insights`, INSTAGRAM_METRICS, "read the Instagram Reel's insights");
  const views = numberOf(values.get("views"));
  const likes = numberOf(values.get("likes"));
  if (views === null || likes === null) return null;
  return {
    views,
    likes,
    comments: numberOf(values.get("comments")) ?? 0,
    shares: numberOf(values.get("shares")) ?? 0,
    reach: numberOf(values.get("reach")),
    saved: numberOf(values.get("saved")),
    averageViewDurationS: seconds(numberOf(values.get("ig_reels_avg_watch_time"))),
  };
}

/** A Facebook Reel's video insights, read with its Page's token; null when Facebook has none for it yet. */
export async function facebookReelInsights(input: { host: GraphHost; pageToken: string; videoId: string; signal?: AbortSignal }): Promise<ReelInsights | null> {
  const values = await readInsights(
    { ...input, token: input.pageToken },
    `${input.videoId}/video_insights`,
    FACEBOOK_METRICS,
    "read the Facebook Reel's insights",
  );
  const plays = numberOf(values.get("blue_reels_play_count"));
  if (plays === null) return null;
  const social = values.get("post_video_social_actions");
  const action = (key: string) => (typeof social === "object" && typeof social[key] === "number" ? social[key] : 0);
  return {
    views: plays,
    likes: sumOf(values.get("post_video_likes_by_reaction_type")) ?? 0,
    comments: action("COMMENT"),
    shares: action("SHARE"),
    reach: numberOf(values.get("post_impressions_unique")),
    saved: null,
    averageViewDurationS: seconds(numberOf(values.get("post_video_avg_time_watched"))),
  };
}
