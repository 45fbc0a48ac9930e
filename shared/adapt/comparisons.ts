/**
 * The adaptive engine's comparisons (docs/reference/adaptive.md): for one series of evidence (a
 * platform's videos, or every platform's pooled), each parameter's two arms by the series' figures,
 * and the parameters' bounds and steps. shared/adapt/decide.ts tests them and decides the moves.
 */
import { type AdaptComparison, type AdaptSettings, CATEGORY_LEVELS, type CategoryLevel } from "../contracts/adapt.ts";
import type { EvidenceSeries, VideoEvidence } from "./evidence.ts";

/** Estimated speaking pace turning narration words into seconds: the length arms, scene clips sized before the voice exists, the words a prompt asks for. */
export const WORDS_PER_SECOND = 2.5;
/** Minimum effect of the engaged-views comparison: a 25% ratio, on a log scale. */
export const MIN_LOG_VIEWS_EFFECT = Math.log(1.25);
/** At most this many categories are compared in a week (the most frequent). */
const MAX_CATEGORIES = 10;

/** A recorded move (mdame.adaptations). */
export interface PastMove {
  parameter: string;
  before: unknown;
  after: unknown;
  decided_at: Date;
  reverted_at: Date | null;
}

/** The configuration in force (mdame.dimension_config): the fields the decisions read. */
export interface AdaptConfig {
  daily_limit: number;
  narration_min_words: number;
  narration_max_words: number;
  sources: { kind: string; weight: number }[];
  adapt: AdaptSettings;
}

/** A parameter's candidate comparison before the week's alpha is known. */
export interface Candidate {
  parameter: string;
  /** The platform whose figures it compares; null: pooled. */
  platform: string | null;
  group: string;
  metric: AdaptComparison["metric"];
  labels: [string, string];
  a: number[];
  b: number[];
  /** The value now, and the value one step towards arm b / arm a. */
  before: number | string;
  up: number | string | null;
  down: number | string | null;
  minEffect: number;
}

export const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** The target length's bounds: the dimension's narration range in seconds, less the exploration spread. */
export function lengthBounds(config: AdaptConfig): { min: number; max: number } {
  const spread = config.adapt.video_length.spread_s;
  return {
    min: round(config.narration_min_words / WORDS_PER_SECOND + spread),
    max: round(config.narration_max_words / WORDS_PER_SECOND - spread),
  };
}

function stepWithin(value: number, step: number, min: number, max: number, direction: 1 | -1): number | null {
  const next = round(direction > 0 ? Math.min(value + step, max) : Math.max(value - step, min));
  return (direction > 0 ? next > value : next < value) ? next : null;
}

function isPinned(settings: AdaptSettings, parameter: string, group: string): boolean {
  return settings.pinned.includes(parameter) || settings.pinned.includes(group);
}

function categoryLevel(settings: AdaptSettings, category: string): CategoryLevel {
  if (settings.topic_categories.favoured.includes(category)) return "favoured";
  if (settings.topic_categories.avoided.includes(category)) return "avoided";
  return "neutral";
}

/** Videos made since the parameter last changed (a move, or the revert of one). */
export function since(evidence: readonly VideoEvidence[], history: readonly PastMove[], parameter: string): VideoEvidence[] {
  const times = history.filter((m) => m.parameter === parameter).flatMap((m) => [m.decided_at.getTime(), m.reverted_at?.getTime() ?? 0]);
  const last = Math.max(0, ...times);
  return evidence.filter((v) => v.made_at.getTime() > last);
}

const logViews = (videos: readonly VideoEvidence[]) => videos.map((v) => Math.log1p(v.views));

/** The comparisons of one series: each parameter's two arms, by the series' figures. */
export function candidates(config: AdaptConfig, series: EvidenceSeries, history: readonly PastMove[]): { list: Candidate[]; skipped: AdaptComparison[] } {
  const s = config.adapt;
  const evidence = series.videos;
  const platform = series.platform;
  const list: Candidate[] = [];
  const skipped: AdaptComparison[] = [];
  const skip = (parameter: string, metric: AdaptComparison["metric"], outcome: string) =>
    skipped.push({ parameter, platform: null, metric, arms: [], difference: null, t: null, critical_t: null, outcome });
  // The figure the retention comparisons weigh: the view percentage where the series has one, else views.
  const byRetention = series.retentionMetric === "retention_pp";
  const retention = (videos: readonly VideoEvidence[]) => byRetention ? videos.map((v) => v.retention!) : logViews(videos);
  const retentionMetric = series.retentionMetric;
  const retentionEffect = byRetention ? s.min_effect_pp : MIN_LOG_VIEWS_EFFECT;
  /** The videos `inArm` picks (arm b, `label`) against the others since the parameter last changed (arm a, `rest`), on retention; unless pinned. */
  const againstRest = (
    parameter: string,
    group: string,
    [rest, label]: [string, string],
    inArm: (video: VideoEvidence) => boolean,
    move: Pick<Candidate, "before" | "up" | "down">,
  ) => {
    if (isPinned(s, parameter, group)) {
      skip(parameter, retentionMetric, "pinned");
      return;
    }
    const videos = since(evidence, history, parameter);
    list.push({
      parameter,
      platform,
      group,
      metric: retentionMetric,
      labels: [rest, label],
      a: retention(videos.filter((v) => !inArm(v))),
      b: retention(videos.filter(inArm)),
      ...move,
      minEffect: retentionEffect,
    });
  };

  // Video length: only while a target is set (the units then alternate between two lengths).
  const target = s.video_length.target_s;
  if (isPinned(s, "video_length", "video_length")) skip("video_length", retentionMetric, "pinned");
  else if (target === null) skip("video_length", retentionMetric, "no target set: lengths are not explored (adapt.video_length.target_s)");
  else {
    const videos = since(evidence, history, "video_length").filter((v) => v.length_target_s !== null && Math.abs(v.length_target_s - target) < 1e-6);
    const bounds = lengthBounds(config);
    list.push({
      parameter: "video_length",
      platform,
      group: "video_length",
      metric: retentionMetric,
      labels: [`short (${round(target - s.video_length.spread_s)} s)`, `long (${round(target + s.video_length.spread_s)} s)`],
      a: retention(videos.filter((v) => v.length_arm === "short")),
      b: retention(videos.filter((v) => v.length_arm === "long")),
      before: target,
      up: stepWithin(target, s.video_length.step_s, bounds.min, bounds.max, 1),
      down: stepWithin(target, s.video_length.step_s, bounds.min, bounds.max, -1),
      minEffect: retentionEffect,
    });
  }

  // Hook threshold: hooks one step above the bar against those just over it.
  const hook = s.hook_threshold;
  if (isPinned(s, "hook_threshold", "hook_threshold")) skip("hook_threshold", retentionMetric, "pinned");
  else {
    const videos = since(evidence, history, "hook_threshold").filter((v) => v.hook_score !== null && Math.abs(v.hook_threshold - hook.value) < 1e-6);
    const bar = round(hook.value + hook.step);
    list.push({
      parameter: "hook_threshold",
      platform,
      group: "hook_threshold",
      metric: retentionMetric,
      labels: [`hook < ${bar}`, `hook >= ${bar}`],
      a: retention(videos.filter((v) => v.hook_score! < bar)),
      b: retention(videos.filter((v) => v.hook_score! >= bar)),
      before: hook.value,
      up: stepWithin(hook.value, hook.step, hook.min, hook.max, 1),
      down: stepWithin(hook.value, hook.step, hook.min, hook.max, -1),
      minEffect: retentionEffect,
    });
  }

  // Source weights: each source kind against the others.
  const kinds = [...new Set(config.sources.map((x) => x.kind))];
  if (kinds.length >= 2) {
    for (const kind of kinds) {
      const weight = config.sources.find((x) => x.kind === kind)!.weight;
      againstRest(`source_weight.${kind}`, "source_weights", ["other sources", kind], (v) => v.source === kind, {
        before: weight,
        up: stepWithin(weight, s.source_weights.step, s.source_weights.min, s.source_weights.max, 1),
        down: stepWithin(weight, s.source_weights.step, s.source_weights.min, s.source_weights.max, -1),
      });
    }
  }

  // Topic categories: the most frequent, and those already favoured or avoided, each against the rest.
  const counts = new Map<string, number>();
  for (const v of evidence) for (const c of new Set(v.categories)) counts.set(c, (counts.get(c) ?? 0) + 1);
  const frequent = [...counts.entries()].filter(([, n]) => n >= s.min_sample).sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).slice(0, MAX_CATEGORIES)
    .map(([c]) => c);
  const categories = [...new Set([...frequent, ...s.topic_categories.favoured, ...s.topic_categories.avoided])].sort();
  for (const category of categories) {
    const level = categoryLevel(s, category);
    const index = CATEGORY_LEVELS.indexOf(level);
    againstRest(`topic_category.${category}`, "topic_categories", ["other categories", category], (v) => v.categories.includes(category), {
      before: level,
      up: CATEGORY_LEVELS[index + 1] ?? null,
      down: index > 0 ? CATEGORY_LEVELS[index - 1]! : null,
    });
  }

  // Daily volume: per-video engaged views of full days against lighter days; only within bounds the operator set.
  const volume = s.daily_volume;
  if (isPinned(s, "daily_volume", "daily_volume")) skip("daily_volume", series.viewsMetric, "pinned");
  else if (volume.min === null && volume.max === null) {
    skip("daily_volume", series.viewsMetric, "no bounds set: the volume stays at daily_limit (adapt.daily_volume.min/max)");
  } else {
    const current = config.daily_limit;
    const videos = since(evidence, history, "daily_volume").filter((v) => v.daily_volume === current);
    list.push({
      parameter: "daily_volume",
      platform,
      group: "daily_volume",
      metric: series.viewsMetric,
      labels: [`days under ${current}`, `days at ${current}`],
      a: logViews(videos.filter((v) => v.day_units < current)),
      b: logViews(videos.filter((v) => v.day_units >= current)),
      before: current,
      up: stepWithin(current, volume.step, volume.min ?? current, volume.max ?? current, 1),
      down: stepWithin(current, volume.step, volume.min ?? current, volume.max ?? current, -1),
      minEffect: MIN_LOG_VIEWS_EFFECT,
    });
  }
  return { list, skipped };
}
