/**
 * Synthetic weeks for the adaptive engine (docs/reference/adaptive.md): a seeded model of one dimension's
 * production and audience, run through the real decisions (shared/adapt/decide.ts) and the real
 * exploration and ranking (shared/adapt/apply.ts). Each day makes `daily_limit` videos from a pool
 * of candidate topics (two sources, three categories); each video's retention is a base, plus the
 * scenario's true effect, plus Gaussian noise. Every Sunday the decisions read the last 8 weeks and
 * their moves are applied to the next week.
 */
import { AdaptSettings, CATEGORY_LEVELS, type CategoryLevel } from "../../shared/contracts/adapt.ts";
import { rankByCategory, unitLength } from "../../shared/adapt/apply.ts";
import { type AdaptConfig, lengthBounds, type PastMove } from "../../shared/adapt/comparisons.ts";
import { decideAdaptations, moveDirection } from "../../shared/adapt/decide.ts";
import type { VideoEvidence } from "../../shared/adapt/evidence.ts";
import { seededRandom } from "../soak/plan.ts";

export type Scenario = "shorter_retains" | "source_a_beats_b" | "category_favoured" | "noise";
export const SCENARIOS: Scenario[] = ["shorter_retains", "source_a_beats_b", "category_favoured", "noise"];

const DAY_MS = 24 * 3600 * 1000;
const WEEK_MS = 7 * DAY_MS;
const EVIDENCE_WEEKS = 8;
const CATEGORIES = ["science", "culture", "sport"];
const NOISE_SD = 8;

function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function trueEffect(scenario: Scenario, video: { length_s: number; source: string; category: string }): number {
  switch (scenario) {
    case "shorter_retains":
      return -0.8 * (video.length_s - 40);
    case "source_a_beats_b":
      return video.source === "hacker_news" ? 6 : 0;
    case "category_favoured":
      return video.category === "science" ? 7 : 0;
    case "noise":
      return 0;
  }
}

export interface WeekState {
  week: number;
  target_s: number | null;
  hook_threshold: number;
  weights: Record<string, number>;
  levels: Record<string, CategoryLevel>;
  moves: number;
}

export interface SimulationResult {
  scenario: Scenario;
  seed: number;
  weeks: WeekState[];
  moves: { week: number; parameter: string; before: number | string; after: number | string }[];
  /**
   * Weeks until the better choice held to the end: the shortest target (one step from the lower
   * bound or on it), source A weighted above B, the better category favoured; null if it never did.
   */
  weeksToConverge: number | null;
  boundsViolations: number;
  /** Moves that undid, within the cooldown, a move of the same parameter. */
  reversals: number;
}

function initialConfig(scenario: Scenario): AdaptConfig {
  return {
    daily_limit: 3,
    narration_min_words: 95,
    narration_max_words: 150,
    sources: [{ kind: "hacker_news", weight: 0.6 }, { kind: "reddit", weight: 0.6 }],
    adapt: AdaptSettings.parse({ video_length: { target_s: scenario === "noise" || scenario === "shorter_retains" ? 50 : null } }),
  };
}

function applyMove(config: AdaptConfig, parameter: string, after: number | string): void {
  if (parameter === "video_length") config.adapt.video_length.target_s = after as number;
  else if (parameter === "hook_threshold") config.adapt.hook_threshold.value = after as number;
  else if (parameter === "daily_volume") config.daily_limit = after as number;
  else if (parameter.startsWith("source_weight.")) {
    const kind = parameter.slice("source_weight.".length);
    for (const s of config.sources) if (s.kind === kind) s.weight = after as number;
  } else if (parameter.startsWith("topic_category.")) {
    const c = parameter.slice("topic_category.".length);
    const t = config.adapt.topic_categories;
    t.favoured = t.favoured.filter((x) => x !== c);
    t.avoided = t.avoided.filter((x) => x !== c);
    if (after === "favoured") t.favoured.push(c);
    if (after === "avoided") t.avoided.push(c);
  }
}

function levelOf(config: AdaptConfig, c: string): CategoryLevel {
  return config.adapt.topic_categories.favoured.includes(c) ? "favoured" : config.adapt.topic_categories.avoided.includes(c) ? "avoided" : "neutral";
}

function withinBounds(config: AdaptConfig): boolean {
  const a = config.adapt;
  const lb = lengthBounds(config);
  const target = a.video_length.target_s;
  if (target !== null && (target < lb.min - 1e-9 || target > lb.max + 1e-9)) return false;
  if (a.hook_threshold.value < a.hook_threshold.min - 1e-9 || a.hook_threshold.value > a.hook_threshold.max + 1e-9) return false;
  for (const s of config.sources) if (s.weight > a.source_weights.max + 1e-9 || s.weight < a.source_weights.min - 1e-9) return false;
  return true;
}

/**
 * Where the videos are published and how the decisions weigh the platforms (adapt.platforms). On
 * YouTube a video has retention and engaged views; elsewhere only views, log-normal around e^7 and
 * moved by the scenario's true effect (6 pp of retention = x1.65 views).
 */
export interface Audience {
  platforms: string[];
  mode: AdaptSettings["platforms"];
}
const YOUTUBE_ONLY: Audience = { platforms: ["youtube"], mode: "separate" };

/** Runs `weeks` synthetic weeks of one scenario. */
export function simulate(scenario: Scenario, seed: number, weeks = 26, audience: Audience = YOUTUBE_ONLY): SimulationResult {
  // Seeded, so a run repeats exactly.
  const random = seededRandom(seed);
  const config = initialConfig(scenario);
  config.adapt.platforms = audience.mode;
  const evidence: VideoEvidence[] = [];
  const history: PastMove[] = [];
  const states: WeekState[] = [];
  const moves: SimulationResult["moves"] = [];
  let boundsViolations = 0;
  let reversals = 0;
  const start = Date.UTC(2026, 0, 5);
  let unit = 0;

  for (let week = 0; week < weeks; week++) {
    for (let day = 0; day < 7; day++) {
      const madeAt = new Date(start + week * WEEK_MS + day * DAY_MS + 3600_000);
      const pool = Array.from({ length: 20 }, () => {
        const source = random() < 0.5 ? "hacker_news" : "reddit";
        const weight = config.sources.find((s) => s.kind === source)!.weight;
        return { source, categories: [CATEGORIES[Math.floor(random() * CATEGORIES.length)]!], score: random() * weight };
      }).sort((x, y) => y.score - x.score);
      const picked = rankByCategory(pool, config.adapt).slice(0, config.daily_limit);
      picked.forEach((topic, index) => {
        const length = unitLength(config.adapt, index);
        const lengthS = length?.video_length_s ?? 38 + random() * 22;
        const hook = config.adapt.hook_threshold.value + random() * (1 - config.adapt.hook_threshold.value);
        const effect = trueEffect(scenario, { length_s: lengthS, source: topic.source, category: topic.categories[0]! });
        const retention = 55 + effect + NOISE_SD * gaussian(random);
        const engaged = Math.round(Math.exp(6 + 0.8 * gaussian(random)));
        const id = `u${unit++}`;
        const figures = audience.platforms.map((platform) =>
          platform === "youtube"
            ? { platform, retention, views: engaged }
            : { platform, retention: null, views: Math.round(Math.exp(7 + effect / 12 + 0.8 * gaussian(random))) }
        );
        for (const figure of figures) {
          evidence.push({
            unit_id: id,
            made_at: madeAt,
            ...figure,
            hook_score: hook,
            hook_threshold: config.adapt.hook_threshold.value,
            source: topic.source,
            categories: topic.categories,
            length_arm: length?.length_arm ?? null,
            length_target_s: length?.target_s ?? null,
            daily_volume: config.daily_limit,
            day_units: picked.length,
          });
        }
      });
    }
    const now = new Date(start + (week + 1) * WEEK_MS - 3600_000);
    const recent = evidence.filter((v) => v.made_at.getTime() >= now.getTime() - EVIDENCE_WEEKS * WEEK_MS);
    const decisions = decideAdaptations({ config, evidence: recent, history, now });
    for (const move of decisions.moves) {
      const last = history.filter((h) => h.parameter === move.parameter).at(-1);
      if (last && now.getTime() - last.decided_at.getTime() < config.adapt.cooldown_weeks * WEEK_MS && moveDirection(last) === -moveDirection(move)) {
        reversals++;
      }
      applyMove(config, move.parameter, move.after);
      history.push({ parameter: move.parameter, before: move.before, after: move.after, decided_at: now, reverted_at: null });
      moves.push({ week: week + 1, parameter: move.parameter, before: move.before, after: move.after });
    }
    if (!withinBounds(config)) boundsViolations++;
    states.push({
      week: week + 1,
      target_s: config.adapt.video_length.target_s,
      hook_threshold: config.adapt.hook_threshold.value,
      weights: Object.fromEntries(config.sources.map((s) => [s.kind, s.weight])),
      levels: Object.fromEntries(CATEGORIES.map((c) => [c, levelOf(config, c)])),
      moves: decisions.moves.length,
    });
  }
  return { scenario, seed, weeks: states, moves, weeksToConverge: converged(scenario, states, config), boundsViolations, reversals };
}

/** The first week from which the scenario's better choice holds to the end. */
function converged(scenario: Scenario, states: WeekState[], config: AdaptConfig): number | null {
  const bounds = lengthBounds(config);
  const a = config.adapt;
  const at = (s: WeekState): boolean => {
    switch (scenario) {
      case "shorter_retains":
        return s.target_s !== null && Math.abs(s.target_s - bounds.min) < 1e-6 ||
          (s.target_s !== null && s.target_s - a.video_length.step_s < bounds.min - 1e-6);
      case "source_a_beats_b":
        return s.weights.hacker_news! > s.weights.reddit!;
      case "category_favoured":
        return s.levels.science === CATEGORY_LEVELS[2];
      case "noise":
        return false;
    }
  };
  if (scenario === "noise") return null;
  let first: number | null = null;
  for (const s of states) {
    if (at(s)) first ??= s.week;
    else first = null;
  }
  return first;
}
