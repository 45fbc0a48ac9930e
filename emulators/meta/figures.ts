/**
 * The figures the Meta emulator's insights report for a published Reel (Instagram or Facebook),
 * seeded so that the same (seed, media id, age) always gives the same numbers, drawn the way the
 * YouTube Analytics emulator draws its own (youtube-analytics/figures.ts, whose `seeded` is reused):
 *
 * - plays accrue from publication: lifetime plays P (log-uniform, ~300 to ~45,000, seeded), of which
 *   a Reel `t` days old holds P * (1 - e^(-t/2)): 0 when published, never falling;
 * - replays, reach, likes, comments, shares and saves are seeded shares of the plays (5-35 %,
 *   55-90 %, 2-10 %, 0.1-0.5 %, 0.1-1 %, 0.2-2 %), so they grow with them;
 * - the average watch time is a seeded 30-80 % of the video's length (0 before the first play),
 *   the total watch time that times the plays.
 *
 * Ages are on the emulator clock.
 */
import { DAY_MS } from "../../shared/time.ts";
import { seeded } from "../youtube-analytics/figures.ts";

const VIEW_DECAY_DAYS = 2;

export interface ReelFigures {
  plays: number;
  replays: number;
  reach: number;
  likes: number;
  comments: number;
  shares: number;
  saved: number;
  /** Milliseconds. */
  avg_watch_ms: number;
  total_watch_ms: number;
}

export function reelFigures(seed: string, mediaId: string, durationS: number, ageMs: number): ReelFigures {
  const lifetime = 300 * Math.exp(5 * seeded(seed, mediaId, "plays"));
  const plays = Math.floor(lifetime * (1 - Math.exp(-Math.max(0, ageMs) / DAY_MS / VIEW_DECAY_DAYS)));
  const share = (what: string, min: number, span: number) => Math.floor(plays * (min + span * seeded(seed, mediaId, what)));
  const avg = plays === 0 ? 0 : Math.round(durationS * 1000 * (0.3 + 0.5 * seeded(seed, mediaId, "watch")));
  return {
    plays,
    replays: share("replays", 0.05, 0.3),
    reach: share("reach", 0.55, 0.35),
    likes: share("likes", 0.02, 0.08),
    comments: share("comments", 0.001, 0.004),
    shares: share("shares", 0.001, 0.009),
    saved: share("saved", 0.002, 0.018),
    avg_watch_ms: avg,
    total_watch_ms: avg * plays,
  };
}
