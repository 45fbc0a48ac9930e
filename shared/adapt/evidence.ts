/**
 * The adaptive engine's evidence (docs/reference/adaptive.md): one published video on one platform,
 * and how a dimension's videos are split into the series the decisions compare arms in
 * (`adapt.platforms`): a series per platform, each on its own figures, or one series of every
 * platform's views added up per video.
 */
import type { ADAPT_PLATFORM_MODES } from "../contracts/adapt.ts";

/** One published video on one platform as the decisions read it (mdame.get_adaptation_evidence). */
export interface VideoEvidence {
  unit_id: string;
  made_at: Date;
  /** The platform these figures are from. */
  platform: string;
  /** YouTube's average_view_percentage of its latest analytics window; null where the platform reports none. */
  retention: number | null;
  /** Engaged views where the platform reports them (YouTube), else views, of its latest window. */
  views: number;
  hook_score: number | null;
  /** The run's hook threshold when the video was made. */
  hook_threshold: number;
  source: string | null;
  categories: string[];
  /** The unit's length arm and target when the run explored lengths; null otherwise. */
  length_arm: "short" | "long" | null;
  length_target_s: number | null;
  /** The run's daily volume, and how many units that day made. */
  daily_volume: number;
  day_units: number;
}

/**
 * The videos one set of comparisons reads, and the figure each comparison weighs: the retention
 * comparisons weigh the average view percentage where every video of the series has one (YouTube),
 * else the views on a log scale (TikTok, Instagram and Facebook report no comparable percentage).
 */
export interface EvidenceSeries {
  /** The platform, or null for every platform pooled. */
  platform: string | null;
  videos: VideoEvidence[];
  retentionMetric: "retention_pp" | "log_views";
  viewsMetric: "log_engaged_views" | "log_views";
}

function series(platform: string | null, videos: VideoEvidence[]): EvidenceSeries {
  const retained = videos.length > 0 && videos.every((v) => v.retention !== null);
  const engaged = platform === "youtube";
  return { platform, videos, retentionMetric: retained ? "retention_pp" : "log_views", viewsMetric: engaged ? "log_engaged_views" : "log_views" };
}

/**
 * The series of a dimension's evidence. `separate`: one per platform with figures, in name order.
 * `pooled`: one, a row per video with its views on every platform added up (retention is then not
 * weighed: only YouTube reports it). No evidence at all: one empty series, so each comparison still
 * says it lacks videos.
 */
export function evidenceSeries(mode: (typeof ADAPT_PLATFORM_MODES)[number], evidence: readonly VideoEvidence[]): EvidenceSeries[] {
  if (evidence.length === 0) return [{ platform: null, videos: [], retentionMetric: "retention_pp", viewsMetric: "log_engaged_views" }];
  if (mode === "pooled") {
    const units = new Map<string, VideoEvidence>();
    for (const v of evidence) {
      const seen = units.get(v.unit_id);
      units.set(v.unit_id, seen ? { ...seen, views: seen.views + v.views } : { ...v, platform: "all", retention: null });
    }
    return [{ platform: null, videos: [...units.values()], retentionMetric: "log_views", viewsMetric: "log_views" }];
  }
  const platforms = [...new Set(evidence.map((v) => v.platform))].sort();
  return platforms.map((p) => series(p, evidence.filter((v) => v.platform === p)));
}
