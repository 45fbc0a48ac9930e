import { z } from "zod";
import { timestamp } from "./columns.ts";
import { SOURCE_KINDS } from "./sources.ts";
import { DimensionId } from "./dimension-id.ts";

/**
 * The adaptive engine's part of a dimension's configuration (`adapt`, docs/reference/adaptive.md): for each
 * parameter the weekly decisions may move, its bounds, its step and whether it is pinned. The value
 * a run uses is the contract's value overlaid with the adaptations applied since
 * (mdame.dimension_config); the defaults keep the engine as it was before it adapted anything.
 */

const num = (min: number, max: number) => z.number({ message: "must be a number" }).min(min, `must be ${min} to ${max}`).max(max, `must be ${min} to ${max}`);
const whole = (min: number, max: number) => num(min, max).int("must be a whole number");

/** How the platforms' figures are weighed (adapt.platforms). */
export const ADAPT_PLATFORM_MODES = ["separate", "pooled"] as const;

/** Names of the parameters: the groups, and one per source kind or topic category. */
const ADAPT_GROUPS = ["daily_volume", "hook_threshold", "video_length", "source_weights", "topic_categories"] as const;

const CATEGORY = /^[a-z0-9][a-z0-9 &'._-]{0,59}$/;
/**
 * A parameter: `daily_volume`, `hook_threshold`, `video_length`, `source_weight.<kind>`,
 * `topic_category.<category>`; a pin may also name a whole group (`source_weights`, `topic_categories`).
 */
export const AdaptParameter = z.string().max(80, "must be at most 80 characters").refine(
  (name) =>
    (ADAPT_GROUPS as readonly string[]).includes(name) ||
    (name.startsWith("source_weight.") && (SOURCE_KINDS as readonly string[]).includes(name.slice("source_weight.".length))) ||
    (name.startsWith("topic_category.") && CATEGORY.test(name.slice("topic_category.".length))),
  {
    message: `must be ${ADAPT_GROUPS.join(", ")}, source_weight.<${SOURCE_KINDS.join("|")}> or topic_category.<category in lower case>`,
  },
);
export type AdaptParameter = z.infer<typeof AdaptParameter>;

/** Where a category sits: topics of a favoured category score higher, of an avoided one lower. */
export const CATEGORY_LEVELS = ["avoided", "neutral", "favoured"] as const;
export type CategoryLevel = (typeof CATEGORY_LEVELS)[number];

export const AdaptSettings = z.object({
  /** Videos per day (the config's daily_limit); null bounds: daily_limit itself, so it does not move until bounds are set. */
  daily_volume: z.object({
    min: whole(0, 50).nullable().default(null).describe("Fewest videos per day the engine may move to (0-50); null: daily_limit."),
    max: whole(0, 50).nullable().default(null).describe("Most videos per day the engine may move to (0-50); null: daily_limit."),
    step: whole(1, 10).default(1).describe("Videos per day one move changes (1-10)."),
  }).strict()
    .default({ min: null, max: null, step: 1 })
    .describe("Videos per day (the config's daily_limit): bounds and step; null bounds keep it at daily_limit."),
  /** The hook audit's pass score (0.72 before the engine adapted). */
  hook_threshold: z.object({
    value: num(0.5, 0.95).default(0.72).describe("The hook audit's pass score to start from (0.5-0.95), within min and max."),
    min: num(0.5, 0.95).default(0.65).describe("Lowest pass score the engine may move to (0.5-0.95)."),
    max: num(0.5, 0.95).default(0.85).describe("Highest pass score the engine may move to (0.5-0.95)."),
    step: num(0.005, 0.1).default(0.02).describe("How far one move changes the pass score (0.005-0.1)."),
  }).strict()
    .default({ value: 0.72, min: 0.65, max: 0.85, step: 0.02 })
    .describe("The hook audit's pass score, its bounds and step."),
  /**
   * Target video length in seconds, inside the dimension's own range (narration words / 2.5 words a
   * second). Null: the whole narration range, as before, and no length learning. Set, the units of a
   * run alternate between target - spread_s and target + spread_s (the exploration the decision learns from).
   */
  video_length: z.object({
    target_s: num(20, 75).nullable().default(null).describe(
      "Target video length in seconds (20-75), inside the narration range; null: the whole range, no length learning.",
    ),
    spread_s: num(2, 15).default(4).describe("A run's units alternate between target_s - spread_s and target_s + spread_s (2-15 s)."),
    step_s: num(1, 15).default(3).describe("Seconds one move changes the target (1-15)."),
  }).strict()
    .default({ target_s: null, spread_s: 4, step_s: 3 })
    .describe("Target video length in seconds, the spread explored around it and the step of a move."),
  /** Bounds and step of each source's weight (the sources' own weights are the starting values). */
  source_weights: z.object({
    min: num(0.05, 1).default(0.2).describe("Lowest weight a source may move to (0.05-1)."),
    max: num(0.05, 1).default(1).describe("Highest weight a source may move to (0.05-1)."),
    step: num(0.01, 0.5).default(0.1).describe("How far one move changes a weight (0.01-0.5)."),
  }).strict()
    .default({ min: 0.2, max: 1, step: 0.1 })
    .describe("Bounds and step of each source's weight (the sources' own weights are the starting values)."),
  /** Topic categories favoured or avoided, and by how much a topic's score moves for it (x(1 ± boost)). */
  topic_categories: z.object({
    favoured: z.array(z.string().regex(CATEGORY, "must be a lower-case category")).max(50).default([])
      .describe("Lower-case topic categories whose topics score higher."),
    avoided: z.array(z.string().regex(CATEGORY, "must be a lower-case category")).max(50).default([])
      .describe("Lower-case topic categories whose topics score lower (none also favoured)."),
    boost: num(0, 0.5).default(0.15).describe("How much a topic's score moves for its category: x(1 ± boost), 0-0.5."),
  }).strict().default({ favoured: [], avoided: [], boost: 0.15 })
    .describe("Topic categories favoured or avoided, and by how much a topic's score moves for it."),
  /** Parameters (or groups) that never move. */
  pinned: z.array(AdaptParameter).max(100).default([])
    .describe(`Parameters (or groups) that never move: ${ADAPT_GROUPS.join(", ")}, source_weight.<kind>, topic_category.<category>.`),
  /** Videos each arm needs before a comparison decides anything. */
  min_sample: whole(4, 500).default(8).describe("Videos each arm needs before a comparison decides anything (4-500)."),
  /** Smallest retention difference (percentage points of average_view_percentage) worth a move. */
  min_effect_pp: num(0.5, 50).default(3)
    .describe("Smallest retention difference worth a move, in percentage points of average_view_percentage (0.5-50)."),
  /** Weeks after a move during which the opposite move needs much stronger evidence. */
  cooldown_weeks: whole(0, 52).default(4).describe("Weeks after a move during which the opposite move needs much stronger evidence (0-52)."),
  /**
   * How the platforms' figures are weighed: `separate` compares the arms on each platform by its own
   * figures (audiences differ; a move needs one platform to decide and none to contradict it);
   * `pooled` adds each video's views on every platform and compares those.
   */
  platforms: z.enum(ADAPT_PLATFORM_MODES).default("separate").describe(
    "separate: compare the arms on each platform by its own figures (a move needs one platform to decide and none to contradict it); pooled: a video's views on every platform added up.",
  ),
}).strict();
export type AdaptSettings = z.infer<typeof AdaptSettings>;
export const DEFAULT_ADAPT: AdaptSettings = AdaptSettings.parse({});

/** Rules tying `adapt` to the rest of the config; each reported on the field to change. */
export function adaptRules(value: { adapt?: AdaptSettings; daily_limit?: number }, ctx: z.RefinementCtx): void {
  const a = value.adapt;
  if (!a) return;
  const h = a.hook_threshold;
  if (h.min > h.max) ctx.addIssue({ code: "custom", path: ["adapt", "hook_threshold", "max"], message: `must be at least min (${h.min})` });
  else if (h.value < h.min || h.value > h.max) {
    ctx.addIssue({ code: "custom", path: ["adapt", "hook_threshold", "value"], message: `must be within ${h.min}-${h.max}` });
  }
  const s = a.source_weights;
  if (s.min > s.max) ctx.addIssue({ code: "custom", path: ["adapt", "source_weights", "max"], message: `must be at least min (${s.min})` });
  const v = a.daily_volume;
  if (v.min !== null && v.max !== null && v.min > v.max) {
    ctx.addIssue({ code: "custom", path: ["adapt", "daily_volume", "max"], message: `must be at least min (${v.min})` });
  }
  if (value.daily_limit !== undefined) {
    if (v.min !== null && value.daily_limit < v.min) {
      ctx.addIssue({ code: "custom", path: ["adapt", "daily_volume", "min"], message: `must be at most daily_limit (${value.daily_limit})` });
    }
    if (v.max !== null && value.daily_limit > v.max) {
      ctx.addIssue({ code: "custom", path: ["adapt", "daily_volume", "max"], message: `must be at least daily_limit (${value.daily_limit})` });
    }
  }
  const both = a.topic_categories.favoured.filter((c) => a.topic_categories.avoided.includes(c));
  if (both.length > 0) ctx.addIssue({ code: "custom", path: ["adapt", "topic_categories", "avoided"], message: `names ${both.join(", ")}, also favoured` });
}

/** One recorded adaptation (a row of mdame.adaptations) as the operator API answers it. */
export const Adaptation = z.object({
  id: z.string().uuid(),
  dimension_id: DimensionId,
  parameter: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  reason: z.string(),
  evidence: z.record(z.string(), z.unknown()),
  week_start: z.string().nullable(),
  decided_at: timestamp,
  applied: z.boolean(),
  reverted_at: timestamp.nullable(),
}).strict();
export type Adaptation = z.infer<typeof Adaptation>;

/** One comparison the decisions made: its arms, the test and what it concluded. */
export const AdaptComparison = z.object({
  parameter: z.string(),
  /** The platform whose figures were compared; null: every platform's pooled, or a comparison skipped before any figure was read. */
  platform: z.string().nullable().default(null),
  /** retention_pp: YouTube's average view percentage; log_engaged_views / log_views: the views on a log scale. */
  metric: z.enum(["retention_pp", "log_engaged_views", "log_views"]),
  arms: z.array(z.object({ label: z.string(), n: z.number().int(), mean: z.number().nullable() }).strict()),
  difference: z.number().nullable(),
  t: z.number().nullable(),
  critical_t: z.number().nullable(),
  outcome: z.string(),
}).strict();
export type AdaptComparison = z.infer<typeof AdaptComparison>;

/** What one dimension's decisions came to: the moves (applied or not) and every comparison behind them. */
export const AdaptReport = z.object({
  dimension_id: DimensionId,
  dry_run: z.boolean(),
  videos: z.number().int(),
  moves: z.array(Adaptation.omit({ id: true, decided_at: true, applied: true, reverted_at: true }).extend({ id: z.string().uuid().nullable() }).strict()),
  comparisons: z.array(AdaptComparison),
}).strict();
export type AdaptReport = z.infer<typeof AdaptReport>;

/** POST /pipeline/adapt. */
export const AdaptBody = z.object({ dimension: DimensionId.optional(), dry_run: z.boolean().default(false) }).strict();
export const AdaptAnswer = z.object({ reports: z.array(AdaptReport) }).strict();
export type AdaptAnswer = z.infer<typeof AdaptAnswer>;
export const AdaptationList = z.object({ adaptations: z.array(Adaptation) }).strict();
export type AdaptationList = z.infer<typeof AdaptationList>;
/** POST /pipeline/adapt/pin and /unpin. */
export const AdaptPinBody = z.object({ dimension: DimensionId, parameter: AdaptParameter }).strict();
export const AdaptPins = z.object({ dimension_id: DimensionId, pinned: z.array(z.string()) }).strict();
export type AdaptPins = z.infer<typeof AdaptPins>;
