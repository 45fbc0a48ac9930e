/**
 * Insights of published Reels, figures from figures.ts (seeded, growing with age on the emulator
 * clock), each metric answered `{name, period: "lifetime", values: [{value}], title, description,
 * id}` in `{data: [...]}`, as Graph answers insights:
 *
 * - `GET /{v}/{ig-media-id}/insights?metric=a,b` (instagram_basic, instagram_manage_insights):
 *   the Instagram Media Insights metrics for REELS: `views` (plays, replays included), `reach`,
 *   `likes`, `comments`, `shares`, `saved`, `total_interactions`, `ig_reels_avg_watch_time` and
 *   `ig_reels_video_view_total_time` (ms). `plays`, `clips_replays_count`,
 *   `ig_reels_aggregated_all_plays_count`, `impressions` and `video_views` are deprecated (v22.0,
 *   then every version from April 21, 2025) and refused like any unknown metric: code 100
 *   "metric[i] must be one of the following values: ...". `metric` is required.
 * - `GET /{v}/{video-id}/video_insights[?metric=a,b]` (pages_read_engagement, with a token of the
 *   Page): the Reels metrics of the Video Insights API, `blue_reels_play_count`,
 *   `fb_reels_total_plays`, `fb_reels_replay_count`, `post_impressions_unique` (reach),
 *   `post_video_avg_time_watched`, `post_video_view_time` (ms), `post_video_likes_by_reaction_type`
 *   (`{REACTION_LIKE, REACTION_LOVE, REACTION_WOW, REACTION_HAHA}`) and `post_video_social_actions`
 *   (`{COMMENT, SHARE}`); all of them when `metric` is absent; `period` lifetime only. A Reel not
 *   published yet has no data: `{data: []}`.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { gate, managesPage } from "./auth.ts";
import { isPublished, reelTimeline } from "./fb-reels.ts";
import { type ReelFigures, reelFigures } from "./figures.ts";
import { invalidParameter, readParams, unsupportedRequest } from "./graph.ts";
import { igAccountOf } from "./ig-containers.ts";
import type { FbReel, IgMedia } from "./model.ts";

type Metric = [title: string, description: string, value: (f: ReelFigures) => unknown];

const IG_METRICS: Record<string, Metric> = {
  views: ["Views", "The number of times the reel was played, replays included.", (f) => f.plays + f.replays],
  reach: ["Accounts reached", "The number of unique accounts that saw the reel at least once.", (f) => f.reach],
  likes: ["Likes", "The number of likes on the reel.", (f) => f.likes],
  comments: ["Comments", "The number of comments on the reel.", (f) => f.comments],
  shares: ["Shares", "The number of shares of the reel.", (f) => f.shares],
  saved: ["Saved", "The number of saves of the reel.", (f) => f.saved],
  total_interactions: ["Interactions", "Likes, saves, comments and shares of the reel.", (f) => f.likes + f.saved + f.comments + f.shares],
  ig_reels_avg_watch_time: ["Average watch time", "The average time spent playing the reel, in milliseconds.", (f) => f.avg_watch_ms],
  ig_reels_video_view_total_time: ["Watch time", "The total time the reel was played, replays included, in milliseconds.", (f) => f.total_watch_ms],
};

function reactions(likes: number) {
  return {
    REACTION_LIKE: Math.floor(likes * 0.8),
    REACTION_LOVE: Math.floor(likes * 0.15),
    REACTION_WOW: Math.floor(likes * 0.03),
    REACTION_HAHA: Math.floor(likes * 0.02),
  };
}

const FB_METRICS: Record<string, Metric> = {
  blue_reels_play_count: ["Plays", "The number of times the reel started to play, replays excluded.", (f) => f.plays],
  fb_reels_total_plays: ["Total plays", "The number of times the reel started to play, replays included.", (f) => f.plays + f.replays],
  fb_reels_replay_count: ["Replays", "The number of times the reel was played again by the same person.", (f) => f.replays],
  post_impressions_unique: ["Reach", "The number of people who saw the reel.", (f) => f.reach],
  post_video_avg_time_watched: ["Average time watched", "The average time the reel was watched, in milliseconds.", (f) => f.avg_watch_ms],
  post_video_view_time: ["Total time watched", "The total time the reel was watched, in milliseconds.", (f) => f.total_watch_ms],
  post_video_likes_by_reaction_type: ["Reactions by type", "The reactions to the reel, by type.", (f) => reactions(f.likes)],
  post_video_social_actions: ["Comments and shares", "The comments on the reel and its shares.", (f) => ({ COMMENT: f.comments, SHARE: f.shares })],
};

function answer(id: string, edge: string, names: string[], metrics: Record<string, Metric>, figures: ReelFigures | undefined): Response {
  if (!figures) return jsonResponse({ data: [] });
  return jsonResponse({
    data: names.map((name) => {
      const [title, description, value] = metrics[name]!;
      return { name, period: "lifetime", values: [{ value: value(figures) }], title, description, id: `${id}/${edge}/${name}/lifetime` };
    }),
  });
}

/** The metric names asked for, or the refusal naming the first unknown one. */
function requested(list: string | undefined, metrics: Record<string, Metric>, required: boolean): string[] | Response {
  if (list === undefined || list.trim() === "") return required ? invalidParameter("(#100) The parameter metric is required") : Object.keys(metrics);
  const names = list.split(",").map((m) => m.trim()).filter(Boolean);
  const bad = names.findIndex((m) => !Object.hasOwn(metrics, m));
  if (bad >= 0) return invalidParameter(`(#100) metric[${bad}] must be one of the following values: ${Object.keys(metrics).join(", ")}`);
  return names;
}

export async function igInsights(req: Request, url: URL, media: IgMedia, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, {
    scopes: ["instagram_basic", "instagram_manage_insights"],
    permissionCode: 10,
    rateContext: "instagram",
    businessId: media.ig_user_id,
  });
  if (caller instanceof Response) return caller;
  if (req.method !== "GET" || !igAccountOf(caller, media.ig_user_id)) return unsupportedRequest(req.method, media.id);
  const names = requested(params.metric, IG_METRICS, true);
  if (names instanceof Response) return names;
  if (params.period !== undefined && params.period !== "lifetime") return invalidParameter("(#100) period must be lifetime for media insights.");
  const figures = reelFigures(caller.store.settings().seed, media.id, media.duration_s, caller.now - media.published_at);
  return answer(media.id, "insights", names, IG_METRICS, figures);
}

export async function fbInsights(req: Request, url: URL, reel: FbReel, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: ["pages_read_engagement"], permissionCode: 200, rateContext: "page", businessId: reel.page_id });
  if (caller instanceof Response) return caller;
  if (req.method !== "GET" || !managesPage(caller, reel.page_id)) return unsupportedRequest(req.method, reel.video_id);
  const names = requested(params.metric, FB_METRICS, false);
  if (names instanceof Response) return names;
  if (params.period !== undefined && params.period !== "lifetime") return invalidParameter("(#100) Reels insights are reported for period lifetime only.");
  const settings = caller.store.settings();
  const { publishAt } = reelTimeline(reel, settings, caller.now);
  const figures = isPublished(reel, settings, caller.now) && reel.verdict?.ok
    ? reelFigures(settings.seed, reel.video_id, reel.verdict.duration_s, caller.now - publishAt!)
    : undefined;
  return answer(reel.video_id, "video_insights", names, FB_METRICS, figures);
}
