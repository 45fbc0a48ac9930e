/**
 * How the adaptive parameters in force shape one run (docs/reference/adaptive.md): the length each unit
 * explores, the narration range that length asks for, and the topic ranking by favoured and
 * avoided categories. Pure.
 */
import type { AdaptSettings } from "../contracts/adapt.ts";
import { WORDS_PER_SECOND } from "./comparisons.ts";

/** What a unit records of the parameters it was made with (work_units.topic.adapt). */
export interface UnitParams {
  /** The run's target length and this unit's arm of the exploration around it. */
  target_s: number;
  length_arm: "short" | "long";
  video_length_s: number;
}

/**
 * The exploration: with a target set, the units of a run alternate short, long, short, ... at
 * target -/+ spread (so every run feeds both arms); without one, no unit has a length of its own.
 */
export function unitLength(settings: AdaptSettings, index: number): UnitParams | null {
  const target = settings.video_length.target_s;
  if (target === null) return null;
  const arm = index % 2 === 0 ? "short" : "long";
  const spread = settings.video_length.spread_s;
  return { target_s: target, length_arm: arm, video_length_s: arm === "short" ? target - spread : target + spread };
}

/**
 * The narration range (words) of a unit with its own length: +-2 s of speech around it, inside the
 * dimension's range and at least the 10 words wide the script prompt needs.
 */
export function narrationWordsFor(lengthS: number, range: { min: number; max: number }): { min: number; max: number } {
  const center = Math.round(lengthS * WORDS_PER_SECOND);
  const half = Math.max(5, Math.round(2 * WORDS_PER_SECOND));
  let min = Math.max(range.min, center - half);
  let max = Math.min(range.max, center + half);
  if (max - min < 10) {
    if (min === range.min) max = Math.min(range.max, min + 10);
    else min = Math.max(range.min, max - 10);
  }
  return { min, max };
}

/**
 * Topics re-ranked by category: a topic of a favoured category scores x(1 + boost), of an avoided
 * one x(1 - boost) (favoured wins when it has both). The order is otherwise kept.
 */
export function rankByCategory<T extends { score: number; categories: readonly string[] }>(topics: readonly T[], settings: AdaptSettings): T[] {
  const { favoured, avoided, boost } = settings.topic_categories;
  if (favoured.length === 0 && avoided.length === 0) return [...topics];
  const factor = (t: T) => t.categories.some((c) => favoured.includes(c)) ? 1 + boost : t.categories.some((c) => avoided.includes(c)) ? 1 - boost : 1;
  return topics.map((t, i) => ({ t, i, s: t.score * factor(t) })).sort((x, y) => y.s - x.s || x.i - y.i).map((x) => x.t);
}
