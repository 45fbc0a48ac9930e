/**
 * The figures the YouTube Analytics emulator reports for one video: seeded, so the same (seed,
 * video id, appeal) always gives the same numbers, and consistent the way YouTube's are:
 *
 * - views accrue over the days after the upload (most in the first days, as a Short's do):
 *   a video's lifetime views V, of which the first t days hold V * (1 - e^(-t/2)); a date range
 *   reports the views of the whole days it covers that YouTube has processed;
 * - the retention curve, audienceWatchRatio at elapsedVideoTimeRatio 0.01..1.00, decays from the
 *   start at a rate the video's appeal slows down (an appealing Short can pass 1.0 early: rewatches);
 * - averageViewPercentage is the curve's mean (x100), averageViewDuration that share of the video's
 *   length; engagedViews are the views still watching after the first seconds (the curve at 3 s),
 *   so never more than views; likes a small seeded share of views (1-6 %, more with appeal).
 *
 * Data lags: no day is reported before 48 hours after the upload, and a day counts once it ended
 * 48 hours ago (ANALYTICS_LAG_MS), on the emulator clock.
 */
import { createHash } from "node:crypto";
import { DAY_MS, HOUR_MS } from "../../shared/time.ts";

export const ANALYTICS_LAG_MS = 48 * HOUR_MS;
/** Days over which the bulk of a Short's views arrive (the e-folding time of its view curve). */
const VIEW_DECAY_DAYS = 2;
/** Seconds after which a view counts as engaged. */
const ENGAGED_AFTER_S = 3;
const RETENTION_POINTS = 100;

export interface VideoFacts {
  seed: string;
  videoId: string;
  /** The video's length in seconds (> 0). */
  durationS: number;
  /** Multiplier on retention and engagement (1: an ordinary video), 0.1..10. */
  appeal: number;
  /** When the upload completed, epoch ms on the emulator clock. */
  uploadedAtMs: number;
}

interface ReportPeriod {
  /** `YYYY-MM-DD`, inclusive. */
  startDate: string;
  endDate: string;
  /** Now on the emulator clock, epoch ms. */
  nowMs: number;
}

export interface VideoTotals {
  views: number;
  engagedViews: number;
  /** Seconds, whole. */
  averageViewDuration: number;
  /** Percent, two decimals. */
  averageViewPercentage: number;
  likes: number;
}

/** A number in [0, 1) drawn from the seed, the video id and what it is for. */
export function seeded(seed: string, videoId: string, what: string): number {
  const digest = createHash("sha256").update(`${seed}\u0000${videoId}\u0000${what}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** The retention curve: [elapsedVideoTimeRatio, audienceWatchRatio] at 0.01..1.00. */
export function retentionCurve(facts: VideoFacts): Array<[number, number]> {
  // Ordinary Shorts keep 30-70 % of their audience to the end; appeal slows the decay.
  const decay = (0.4 + 1.0 * seeded(facts.seed, facts.videoId, "decay")) / Math.sqrt(facts.appeal);
  const start = Math.min(1.6, (0.95 + 0.1 * seeded(facts.seed, facts.videoId, "start")) * Math.pow(facts.appeal, 0.25));
  const points: Array<[number, number]> = [];
  for (let i = 1; i <= RETENTION_POINTS; i += 1) {
    const ratio = i / RETENTION_POINTS;
    points.push([round(ratio, 2), round(start * Math.exp(-decay * ratio), 4)]);
  }
  return points;
}

/** The whole days (UTC) YouTube has processed for the video by now: [first, last] as epoch-day numbers, or null. */
function processedDays(facts: VideoFacts, nowMs: number): [number, number] | null {
  if (nowMs < facts.uploadedAtMs + ANALYTICS_LAG_MS) return null;
  const first = Math.floor(facts.uploadedAtMs / DAY_MS);
  // A day is reported once it ended ANALYTICS_LAG_MS ago.
  const last = Math.floor((nowMs - ANALYTICS_LAG_MS) / DAY_MS) - 1;
  return last >= first ? [first, last] : [first, first];
}

const epochDay = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);

/** The lifetime views the video tends to. */
function lifetimeViews(facts: VideoFacts): number {
  // Log-uniform between ~150 and ~20,000 views, scaled by appeal.
  return 150 * Math.exp(4.9 * seeded(facts.seed, facts.videoId, "reach")) * facts.appeal;
}

/** Views of the first `days` days after the upload (a whole number). */
function viewsThrough(facts: VideoFacts, days: number): number {
  return days <= 0 ? 0 : Math.floor(lifetimeViews(facts) * (1 - Math.exp(-days / VIEW_DECAY_DAYS)));
}

/**
 * The totals for a period, or null when YouTube has nothing for it yet (the lag, or a period
 * before the upload or past the days processed): the report then has no rows.
 */
export function videoTotals(facts: VideoFacts, period: ReportPeriod): VideoTotals | null {
  const processed = processedDays(facts, period.nowMs);
  if (!processed) return null;
  const from = Math.max(epochDay(period.startDate), processed[0]);
  const to = Math.min(epochDay(period.endDate), processed[1]);
  if (to < from) return null;
  const first = processed[0];
  const views = viewsThrough(facts, to - first + 1) - viewsThrough(facts, from - first);
  const curve = retentionCurve(facts);
  const meanRatio = curve.reduce((sum, [, watch]) => sum + watch, 0) / curve.length;
  const engagedAt = Math.min(RETENTION_POINTS, Math.max(1, Math.ceil((ENGAGED_AFTER_S / facts.durationS) * RETENTION_POINTS)));
  const engagedShare = Math.min(1, curve[engagedAt - 1]![1]);
  const likes = likeRate(facts);
  return {
    views,
    engagedViews: Math.floor(views * engagedShare),
    averageViewDuration: Math.round(meanRatio * facts.durationS),
    averageViewPercentage: round(meanRatio * 100, 2),
    likes: Math.floor(views * likes),
  };
}

/** The share of views that like the video: 1-6 %, more with appeal, at most 10 %. */
function likeRate(facts: VideoFacts): number {
  return Math.min(0.1, (0.01 + 0.05 * seeded(facts.seed, facts.videoId, "likes")) * Math.sqrt(facts.appeal));
}

/**
 * The public counters as the Data API reads them at `nowMs` (`videos.batchGetStats`): no lag, the
 * views of the time since the upload on the same curve as the reports', likes at the same rate,
 * comments a seeded 0.1-0.6 % of views.
 */
export function countersAt(facts: VideoFacts, nowMs: number): { views: number; likes: number; comments: number } {
  const views = viewsThrough(facts, Math.max(0, nowMs - facts.uploadedAtMs) / DAY_MS);
  const commentRate = 0.001 + 0.005 * seeded(facts.seed, facts.videoId, "comments");
  return { views, likes: Math.floor(views * likeRate(facts)), comments: Math.floor(views * commentRate) };
}

/** The video's length when the upload cannot be measured: 15..60 s, seeded. */
export function seededDurationS(seed: string, videoId: string): number {
  return 15 + Math.round(45 * seeded(seed, videoId, "duration"));
}
