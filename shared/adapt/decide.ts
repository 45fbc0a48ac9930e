/**
 * The adaptive engine's weekly decisions for one dimension (docs/reference/adaptive.md). Pure: the same
 * configuration, evidence and history give the same moves.
 *
 * Each parameter is judged by comparing two arms of the videos made since its last move:
 *
 * - video_length: the units made at target - spread (short) against target + spread (long);
 * - hook_threshold: hooks that would still pass one step up against those that would not;
 * - source_weight.<kind>: videos whose topic came from that source against the others;
 * - topic_category.<category>: videos of that category against the others;
 * - daily_volume: videos of days that made the full volume against lighter days (engaged views).
 *
 * A comparison decides only when each arm has `min_sample` videos, the difference is at least
 * the minimum effect, and Welch's t clears the critical value at 5% split over every comparison
 * of the week (Bonferroni), so pure noise moves nothing in most weeks. A move is one step, clamped
 * to the bounds; a pinned parameter never moves; within `cooldown_weeks` of a move the opposite
 * move needs alpha/100 and twice the effect.
 */
import { type AdaptComparison, type AdaptSettings, CATEGORY_LEVELS, type CategoryLevel } from "../contracts/adapt.ts";
import { criticalT, welch } from "./welch.ts";

/** Speaking pace turning narration words into seconds (functions/pipeline/stages/unit.ts has the same). */
export const WORDS_PER_SECOND = 2.5;
/** Family-wise false-move rate of one week's comparisons of a dimension. */
const WEEKLY_ALPHA = 0.05;
/** Minimum effect of the engaged-views comparison: a 25% ratio, on a log scale. */
const MIN_LOG_VIEWS_EFFECT = Math.log(1.25);
/** At most this many categories are compared in a week (the most frequent). */
const MAX_CATEGORIES = 10;
const WEEK_MS = 7 * 24 * 3600 * 1000;

/** One published video as the decisions read it (mdame.get_adaptation_evidence). */
export interface VideoEvidence {
  unit_id: string;
  made_at: Date;
  /** average_view_percentage of its latest analytics window. */
  retention: number;
  engaged_views: number;
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

export interface Move {
  parameter: string;
  before: number | string;
  after: number | string;
  reason: string;
  evidence: Record<string, unknown>;
}

interface Decisions {
  moves: Move[];
  comparisons: AdaptComparison[];
}

/** A parameter's candidate comparison before the week's alpha is known. */
interface Candidate {
  parameter: string;
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

const round = (x: number) => Math.round(x * 1e6) / 1e6;

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

function lastMove(history: readonly PastMove[], parameter: string): PastMove | undefined {
  return history.filter((m) => m.parameter === parameter).sort((x, y) => y.decided_at.getTime() - x.decided_at.getTime())[0];
}

/** Videos made since the parameter last changed (a move, or the revert of one). */
function since(evidence: readonly VideoEvidence[], history: readonly PastMove[], parameter: string): VideoEvidence[] {
  const times = history.filter((m) => m.parameter === parameter).flatMap((m) => [m.decided_at.getTime(), m.reverted_at?.getTime() ?? 0]);
  const last = Math.max(0, ...times);
  return evidence.filter((v) => v.made_at.getTime() > last);
}

const retention = (videos: readonly VideoEvidence[]) => videos.map((v) => v.retention);
const logViews = (videos: readonly VideoEvidence[]) => videos.map((v) => Math.log1p(v.engaged_views));

function candidates(config: AdaptConfig, evidence: readonly VideoEvidence[], history: readonly PastMove[]): { list: Candidate[]; skipped: AdaptComparison[] } {
  const s = config.adapt;
  const list: Candidate[] = [];
  const skipped: AdaptComparison[] = [];
  const skip = (parameter: string, metric: AdaptComparison["metric"], outcome: string) =>
    skipped.push({ parameter, metric, arms: [], difference: null, t: null, critical_t: null, outcome });
  /** The videos `inArm` picks (arm b, `label`) against the others since the parameter last changed (arm a, `rest`), on retention; unless pinned. */
  const againstRest = (
    parameter: string,
    group: string,
    [rest, label]: [string, string],
    inArm: (video: VideoEvidence) => boolean,
    move: Pick<Candidate, "before" | "up" | "down">,
  ) => {
    if (isPinned(s, parameter, group)) {
      skip(parameter, "retention_pp", "pinned");
      return;
    }
    const videos = since(evidence, history, parameter);
    list.push({
      parameter,
      group,
      metric: "retention_pp",
      labels: [rest, label],
      a: retention(videos.filter((v) => !inArm(v))),
      b: retention(videos.filter(inArm)),
      ...move,
      minEffect: s.min_effect_pp,
    });
  };

  // Video length: only while a target is set (the units then alternate between two lengths).
  const target = s.video_length.target_s;
  if (isPinned(s, "video_length", "video_length")) skip("video_length", "retention_pp", "pinned");
  else if (target === null) skip("video_length", "retention_pp", "no target set: lengths are not explored (adapt.video_length.target_s)");
  else {
    const videos = since(evidence, history, "video_length").filter((v) => v.length_target_s !== null && Math.abs(v.length_target_s - target) < 1e-6);
    const bounds = lengthBounds(config);
    list.push({
      parameter: "video_length",
      group: "video_length",
      metric: "retention_pp",
      labels: [`short (${round(target - s.video_length.spread_s)} s)`, `long (${round(target + s.video_length.spread_s)} s)`],
      a: retention(videos.filter((v) => v.length_arm === "short")),
      b: retention(videos.filter((v) => v.length_arm === "long")),
      before: target,
      up: stepWithin(target, s.video_length.step_s, bounds.min, bounds.max, 1),
      down: stepWithin(target, s.video_length.step_s, bounds.min, bounds.max, -1),
      minEffect: s.min_effect_pp,
    });
  }

  // Hook threshold: hooks one step above the bar against those just over it.
  const hook = s.hook_threshold;
  if (isPinned(s, "hook_threshold", "hook_threshold")) skip("hook_threshold", "retention_pp", "pinned");
  else {
    const videos = since(evidence, history, "hook_threshold").filter((v) => v.hook_score !== null && Math.abs(v.hook_threshold - hook.value) < 1e-6);
    const bar = round(hook.value + hook.step);
    list.push({
      parameter: "hook_threshold",
      group: "hook_threshold",
      metric: "retention_pp",
      labels: [`hook < ${bar}`, `hook >= ${bar}`],
      a: retention(videos.filter((v) => v.hook_score! < bar)),
      b: retention(videos.filter((v) => v.hook_score! >= bar)),
      before: hook.value,
      up: stepWithin(hook.value, hook.step, hook.min, hook.max, 1),
      down: stepWithin(hook.value, hook.step, hook.min, hook.max, -1),
      minEffect: s.min_effect_pp,
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
  if (isPinned(s, "daily_volume", "daily_volume")) skip("daily_volume", "log_engaged_views", "pinned");
  else if (volume.min === null && volume.max === null) {
    skip("daily_volume", "log_engaged_views", "no bounds set: the volume stays at daily_limit (adapt.daily_volume.min/max)");
  } else {
    const current = config.daily_limit;
    const videos = since(evidence, history, "daily_volume").filter((v) => v.daily_volume === current);
    list.push({
      parameter: "daily_volume",
      group: "daily_volume",
      metric: "log_engaged_views",
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

/** The week's decisions for one dimension. `now` dates the cooldown. */
export function decideAdaptations(input: { config: AdaptConfig; evidence: readonly VideoEvidence[]; history: readonly PastMove[]; now: Date }): Decisions {
  const s = input.config.adapt;
  const { list, skipped } = candidates(input.config, input.evidence, input.history);
  const tested = list.filter((c) => c.a.length >= s.min_sample && c.b.length >= s.min_sample);
  const alpha = WEEKLY_ALPHA / Math.max(1, tested.length);
  const moves: Move[] = [];
  const comparisons: AdaptComparison[] = [...skipped];
  const movedGroups = new Set<string>();

  for (const c of list) {
    const arms = [{ label: c.labels[0], n: c.a.length, mean: c.a.length ? round(c.a.reduce((x, y) => x + y, 0) / c.a.length) : null }, {
      label: c.labels[1],
      n: c.b.length,
      mean: c.b.length ? round(c.b.reduce((x, y) => x + y, 0) / c.b.length) : null,
    }];
    const report = (outcome: string, difference: number | null = null, t: number | null = null, critical: number | null = null) =>
      comparisons.push({ parameter: c.parameter, metric: c.metric, arms, difference, t, critical_t: critical, outcome });
    if (c.a.length < s.min_sample || c.b.length < s.min_sample) {
      report(`not enough videos: each arm needs ${s.min_sample}`);
      continue;
    }
    const test = welch(c.a, c.b)!;
    const direction: 1 | -1 = test.difference > 0 ? 1 : -1;
    // The opposite of a recent move needs much stronger evidence: no see-sawing on noise.
    const last = lastMove(input.history, c.parameter);
    const lastDirection = last && last.reverted_at === null ? moveDirection(last) : 0;
    const recent = last !== undefined && input.now.getTime() - last.decided_at.getTime() < s.cooldown_weeks * WEEK_MS;
    const reversing = recent && lastDirection === -direction;
    const critical = criticalT(reversing ? alpha / 100 : alpha, test.df);
    const minEffect = reversing ? 2 * c.minEffect : c.minEffect;
    const difference = round(test.difference);
    const t = Number.isFinite(test.t) ? round(test.t) : test.t > 0 ? 1e9 : -1e9;
    if (Math.abs(test.difference) < minEffect) {
      report(`difference under the minimum effect (${round(minEffect)})`, difference, t, round(critical));
      continue;
    }
    if (Math.abs(test.t) < critical) {
      report(
        `noise can explain it (|t| < ${round(critical)}${reversing ? ", the stricter bar of a reversal within the cooldown" : ""})`,
        difference,
        t,
        round(critical),
      );
      continue;
    }
    const after = direction > 0 ? c.up : c.down;
    if (after === null) {
      report(`${c.labels[direction > 0 ? 1 : 0]} is better, but the parameter is at its bound`, difference, t, round(critical));
      continue;
    }
    // One move per group a week: two sources or categories moved at once would confound next week's reading.
    if (movedGroups.has(c.group) && c.group !== c.parameter) {
      report("another parameter of its group moved this week", difference, t, round(critical));
      continue;
    }
    movedGroups.add(c.group);
    const reason = `${c.labels[direction > 0 ? 1 : 0]} ${c.metric === "retention_pp" ? "retains" : "draws engaged views"} better ` +
      `(${arms[0]!.label}: ${arms[0]!.mean} over ${arms[0]!.n}, ${arms[1]!.label}: ${arms[1]!.mean} over ${arms[1]!.n}; t = ${t}, critical ${
        round(critical)
      }): ` +
      `${c.parameter} ${c.before} -> ${after}`;
    report(`move ${c.before} -> ${after}`, difference, t, round(critical));
    moves.push({
      parameter: c.parameter,
      before: c.before,
      after,
      reason,
      evidence: {
        metric: c.metric,
        arms,
        difference,
        t,
        df: round(test.df),
        critical_t: round(critical),
        alpha: round(reversing ? alpha / 100 : alpha),
        reversing,
      },
    });
  }
  return { moves, comparisons };
}

/** +1 for a move up (a larger number, or a category towards favoured), -1 for one down. */
export function moveDirection(move: Pick<PastMove, "before" | "after">): 1 | -1 | 0 {
  const { before, after } = move;
  if (typeof before === "number" && typeof after === "number") return after > before ? 1 : after < before ? -1 : 0;
  const b = CATEGORY_LEVELS.indexOf(before as CategoryLevel);
  const a = CATEGORY_LEVELS.indexOf(after as CategoryLevel);
  if (a < 0 || b < 0) return 0;
  return a > b ? 1 : a < b ? -1 : 0;
}
