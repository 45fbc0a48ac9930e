/**
 * TikTok Display API `POST /v2/video/query/?fields=...` with `{filters: {video_ids}}`, spoken with
 * fetch (scope `video.list`): the public counters of the account's own posts, by post id (the id
 * the status fetch reports in `publicaly_available_post_id`). Runs in Deno and Bun.
 *
 * TikTok takes at most 20 ids a call and answers only the videos that are the token's user's and
 * published; any other id is simply absent from the answer, never an error. queryVideoFigures
 * asks for any number of ids, 20 a call in order, and answers the videos TikTok returned.
 *
 * Failures are content-posting.ts's: TikTok's refusals throw TikTokApiError with its code
 * (`scope_not_authorized` when the grant lacks video.list, `rate_limit_exceeded` past 600 calls a
 * minute), retriable on 429 and 5xx; a dropped connection or an answer without TikTok's envelope
 * throws ProviderUnavailableError. classifyTikTokRefusal (refusals.ts) reads them as it reads the
 * publish calls'.
 */
import { z } from "zod";
import { callApi } from "./content-posting.ts";

/** TikTok's cap on `filters.video_ids` per call. */
export const MAX_VIDEO_IDS_PER_QUERY = 20;
/** The Video Object's fields asked for: what measuring a post needs. */
const FIELDS = ["id", "create_time", "title", "duration", "view_count", "like_count", "comment_count", "share_count"] as const;
const POST_ID = /^\d{1,20}$/;

const count = z.number().int().nonnegative();

/** One video of the answer; ids are int64 (quoted by callApi when they come bare), counts whole numbers. */
const VideoFiguresAnswer = z.looseObject({
  id: z.union([z.string().regex(POST_ID), z.number().int().nonnegative()]).transform(String),
  create_time: z.number().int().nonnegative(),
  title: z.string().optional(),
  duration: count,
  view_count: count,
  like_count: count,
  comment_count: count,
  share_count: count,
});

const QueryAnswer = z.looseObject({
  videos: z.array(VideoFiguresAnswer).default([]),
  cursor: z.number().optional(),
  has_more: z.boolean().optional(),
});

/** A post's public counters as TikTok reports them at the time of the call. */
export interface TikTokVideoFigures {
  /** The post id (int64, as a decimal string). */
  id: string;
  /** When the video was posted. */
  createTime: Date;
  title: string | null;
  /** Seconds. */
  durationS: number;
  viewCount: number;
  likeCount: number;
  commentCount: number;
  shareCount: number;
}

/**
 * The counters of the posts `postIds` (decimal post ids; repeats asked once), in the order TikTok
 * answers them, batch after batch. A post TikTok does not return (not the user's, not published,
 * removed) is absent from the result. Throws RangeError, before any call, for an id that is not a
 * decimal number.
 */
export async function queryVideoFigures(input: {
  accessToken: string;
  baseUrl?: string;
  postIds: readonly string[];
  signal?: AbortSignal;
}): Promise<TikTokVideoFigures[]> {
  const ids = [...new Set(input.postIds)];
  const bad = ids.findIndex((id) => !POST_ID.test(id));
  if (bad >= 0) throw new RangeError(`post ids are decimal numbers of 1..20 digits; #${bad + 1} is not`);
  const figures: TikTokVideoFigures[] = [];
  for (let first = 0; first < ids.length; first += MAX_VIDEO_IDS_PER_QUERY) {
    const batch = ids.slice(first, first + MAX_VIDEO_IDS_PER_QUERY);
    const answer = await callApi({
      accessToken: input.accessToken,
      baseUrl: input.baseUrl,
      signal: input.signal,
      path: `/v2/video/query/?fields=${FIELDS.join(",")}`,
      body: { filters: { video_ids: batch } },
      data: QueryAnswer,
      what: `query video figures (${batch.length} ids)`,
    });
    for (const video of answer.videos) {
      if (!batch.includes(video.id)) continue;
      figures.push({
        id: video.id,
        createTime: new Date(video.create_time * 1000),
        title: video.title ?? null,
        durationS: video.duration,
        viewCount: video.view_count,
        likeCount: video.like_count,
        commentCount: video.comment_count,
        shareCount: video.share_count,
      });
    }
  }
  return figures;
}
