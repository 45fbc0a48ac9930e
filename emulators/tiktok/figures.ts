/**
 * The figures the TikTok emulator's video/query (video-query.ts) reports for a post, seeded so the
 * same (seed, post id, age) always gives the same numbers, the way the YouTube Analytics emulator
 * draws its own (youtube-analytics/figures.ts, whose `seeded` draw is reused here):
 *
 * - views accrue from the moment the post is PUBLISH_COMPLETE (its `create_time`): lifetime views V
 *   (log-uniform, ~200 to ~30,000, seeded), of which a post `t` days old holds V * (1 - e^(-t/2)),
 *   so 0 at creation and never falling;
 * - likes, comments and shares are seeded shares of the views (2-10 %, 0.1-0.5 %, 0.1-1 %), so they
 *   grow with them and stay below them;
 * - an admin may pin any count or the duration (admin.ts); a pinned view count drives the unpinned
 *   engagement counts;
 * - the duration (whole seconds), width and height are measured once from the uploaded file, or a
 *   seeded 15..60 s and 1080x1920 when the file is no video ffprobe can read.
 *
 * Ages are on the emulator clock.
 */
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { DAY_MS } from "../../shared/time.ts";
import { seeded, seededDurationS } from "../youtube-analytics/figures.ts";
import type { Publish, TikTokStore } from "./store.ts";

/** Days over which the bulk of a post's views arrive (the e-folding time of its view curve). */
const VIEW_DECAY_DAYS = 2;
/** like_count, comment_count and share_count are int32 in TikTok's Video Object. */
export const INT32_MAX = 2_147_483_647;

export const COUNT_FIELDS = ["view_count", "like_count", "comment_count", "share_count"] as const;
type CountField = typeof COUNT_FIELDS[number];
export type PinnedFigures = NonNullable<Publish["pinned_figures"]>;
type PostMedia = NonNullable<Publish["media"]>;

export interface PostFigures extends Record<CountField, number> {
  /** UTC Unix epoch seconds of PUBLISH_COMPLETE. */
  create_time: number;
  /** Whole seconds. */
  duration: number;
  width: number;
  height: number;
}

/** The counts of a post `ageMs` old; `pinned` ones are reported as set. */
export function countsAt(seed: string, postId: string, ageMs: number, pinned: PinnedFigures = {}): Record<CountField, number> {
  const lifetime = 200 * Math.exp(5 * seeded(seed, postId, "reach"));
  const days = Math.max(0, ageMs) / DAY_MS;
  const views = pinned.view_count ?? Math.floor(lifetime * (1 - Math.exp(-days / VIEW_DECAY_DAYS)));
  const share = (what: string, min: number, span: number) => Math.min(INT32_MAX, Math.floor(views * (min + span * seeded(seed, postId, what))));
  return {
    view_count: views,
    like_count: pinned.like_count ?? share("likes", 0.02, 0.08),
    comment_count: pinned.comment_count ?? share("comments", 0.001, 0.004),
    share_count: pinned.share_count ?? share("shares", 0.001, 0.009),
  };
}

/** When the post became PUBLISH_COMPLETE (emulator clock, epoch ms); undefined before its last byte arrived. */
export function completedAt(publish: Publish, processingDelayMs: number): number | undefined {
  return publish.uploaded_at === undefined ? undefined : publish.uploaded_at + processingDelayMs;
}

async function measure(store: TikTokStore, publish: Publish, seed: string, postId: string): Promise<PostMedia> {
  try {
    const info = await probeMedia(store.uploadFile(publish.publish_id));
    if (info.video && info.duration_s > 0) return { duration_s: Math.max(1, Math.round(info.duration_s)), width: info.video.width, height: info.video.height };
  } catch {
    // Not a video ffprobe can read (tests upload random bytes): a seeded length instead.
  }
  return { duration_s: seededDurationS(seed, postId), width: 1080, height: 1920 };
}

/** The post's media facts, measured on first use and kept with the publish. */
async function mediaOf(store: TikTokStore, publish: Publish, seed: string, postId: string): Promise<PostMedia> {
  if (publish.media) return publish.media;
  const media = await measure(store, publish, seed, postId);
  await store.withLock(publish.publish_id, async () => {
    const current = store.getPublish(publish.publish_id);
    if (current && !current.media) await store.savePublish({ ...current, media });
  });
  return media;
}

/** Everything video/query reports about a completed post at `now`. */
export async function postFigures(store: TikTokStore, publish: Publish & { post_id: string }, now: number): Promise<PostFigures> {
  const { figures_seed: seed, processing_delay_ms: delay } = store.settings();
  const created = completedAt(publish, delay) ?? now;
  const pinned = publish.pinned_figures ?? {};
  const media = await mediaOf(store, publish, seed, publish.post_id);
  return {
    ...countsAt(seed, publish.post_id, now - created, pinned),
    create_time: Math.floor(created / 1000),
    duration: pinned.duration ?? media.duration_s,
    width: media.width,
    height: media.height,
  };
}
