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
import { type AdaptComparison, CATEGORY_LEVELS, type CategoryLevel } from "../contracts/adapt.ts";
import { type AdaptConfig, type Candidate, candidates, type PastMove, round } from "./comparisons.ts";
import { evidenceSeries, type VideoEvidence } from "./evidence.ts";
import { criticalT, welch } from "./welch.ts";

/** Family-wise false-move rate of one week's comparisons of a dimension. */
const WEEKLY_ALPHA = 0.05;
const WEEK_MS = 7 * 24 * 3600 * 1000;

function lastMove(history: readonly PastMove[], parameter: string): PastMove | undefined {
  return history.filter((m) => m.parameter === parameter).sort((x, y) => y.decided_at.getTime() - x.decided_at.getTime())[0];
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

/** A comparison tested: its arms and, when it decided, the direction and the value it moves to. */
interface Verdict {
  c: Candidate;
  arms: AdaptComparison["arms"];
  difference: number | null;
  t: number | null;
  critical: number | null;
  /** Set when the comparison concluded without deciding; otherwise it decided (direction, after). */
  outcome: string | null;
  direction: 1 | -1;
  after: number | string | null;
  df: number;
  alpha: number;
  reversing: boolean;
}

const mean = (xs: number[]) => xs.length ? round(xs.reduce((x, y) => x + y, 0) / xs.length) : null;
const on = (platform: string | null) => platform === null ? "" : ` on ${platform}`;
const WHAT_IT_DRAWS: Record<AdaptComparison["metric"], string> = {
  retention_pp: "retains",
  log_engaged_views: "draws engaged views",
  log_views: "draws views",
};

function test(c: Candidate, s: AdaptConfig["adapt"], alpha: number, history: readonly PastMove[], now: Date): Verdict {
  const arms = [{ label: c.labels[0], n: c.a.length, mean: mean(c.a) }, { label: c.labels[1], n: c.b.length, mean: mean(c.b) }];
  const verdict: Verdict = { c, arms, difference: null, t: null, critical: null, outcome: null, direction: 1, after: null, df: 0, alpha, reversing: false };
  if (c.a.length < s.min_sample || c.b.length < s.min_sample) return { ...verdict, outcome: `not enough videos: each arm needs ${s.min_sample}` };
  const result = welch(c.a, c.b)!;
  const direction: 1 | -1 = result.difference > 0 ? 1 : -1;
  // The opposite of a recent move needs much stronger evidence: no see-sawing on noise.
  const last = lastMove(history, c.parameter);
  const lastDirection = last && last.reverted_at === null ? moveDirection(last) : 0;
  const recent = last !== undefined && now.getTime() - last.decided_at.getTime() < s.cooldown_weeks * WEEK_MS;
  const reversing = recent && lastDirection === -direction;
  const testAlpha = reversing ? alpha / 100 : alpha;
  const critical = criticalT(testAlpha, result.df);
  const minEffect = reversing ? 2 * c.minEffect : c.minEffect;
  const tested = {
    ...verdict,
    difference: round(result.difference),
    t: Number.isFinite(result.t) ? round(result.t) : result.t > 0 ? 1e9 : -1e9,
    critical: round(critical),
    direction,
    df: round(result.df),
    alpha: round(testAlpha),
    reversing,
  };
  if (Math.abs(result.difference) < minEffect) return { ...tested, outcome: `difference under the minimum effect (${round(minEffect)})` };
  if (Math.abs(result.t) < critical) {
    return { ...tested, outcome: `noise can explain it (|t| < ${round(critical)}${reversing ? ", the stricter bar of a reversal within the cooldown" : ""})` };
  }
  const after = direction > 0 ? c.up : c.down;
  if (after === null) return { ...tested, outcome: `${c.labels[direction > 0 ? 1 : 0]} is better, but the parameter is at its bound` };
  return { ...tested, after };
}

/**
 * The week's decisions for one dimension. `now` dates the cooldown. The comparisons run on each
 * series of the evidence (a platform each, or every platform pooled: adapt.platforms) and share the
 * week's alpha; a parameter moves once, on the first platform that decides it, and not at all when
 * another platform decides the opposite way.
 */
export function decideAdaptations(input: { config: AdaptConfig; evidence: readonly VideoEvidence[]; history: readonly PastMove[]; now: Date }): Decisions {
  const s = input.config.adapt;
  const list: Candidate[] = [];
  const skipped = new Map<string, AdaptComparison>();
  for (const series of evidenceSeries(s.platforms, input.evidence)) {
    const found = candidates(input.config, series, input.history);
    list.push(...found.list);
    for (const k of found.skipped) if (!skipped.has(k.parameter)) skipped.set(k.parameter, k);
  }
  // A parameter's comparisons side by side, in the order the parameters were first met.
  const order = new Map<string, number>();
  for (const c of list) if (!order.has(c.parameter)) order.set(c.parameter, order.size);
  list.sort((x, y) => order.get(x.parameter)! - order.get(y.parameter)!);

  const tested = list.filter((c) => c.a.length >= s.min_sample && c.b.length >= s.min_sample);
  const alpha = WEEKLY_ALPHA / Math.max(1, tested.length);
  const verdicts = list.map((c) => test(c, s, alpha, input.history, input.now));

  // Platforms that decide a parameter opposite ways move nothing: their audiences disagree.
  const decisive = verdicts.filter((v) => v.outcome === null);
  for (const v of decisive) {
    const same = decisive.filter((o) => o.c.parameter === v.c.parameter);
    if (same.some((o) => o.direction !== v.direction)) {
      v.outcome = `platforms disagree (${same.map((o) => `${o.c.platform}: ${o.c.labels[o.direction > 0 ? 1 : 0]} better`).join(", ")}): no move`;
    }
  }

  const moves: Move[] = [];
  const comparisons: AdaptComparison[] = [...skipped.values()];
  const movedGroups = new Set<string>();
  for (const v of verdicts) {
    const { c, arms } = v;
    const report = (outcome: string) =>
      comparisons.push({
        parameter: c.parameter,
        platform: c.platform,
        metric: c.metric,
        arms,
        difference: v.difference,
        t: v.t,
        critical_t: v.critical,
        outcome,
      });
    if (v.outcome !== null) {
      report(v.outcome);
      continue;
    }
    const moved = moves.find((m) => m.parameter === c.parameter);
    if (moved) {
      // Another platform agrees with the move already made.
      (moved.evidence.agreeing as string[]).push(c.platform ?? "pooled");
      report(`agrees: moved on ${moved.evidence.platform}'s figures`);
      continue;
    }
    // One move per group a week: two sources or categories moved at once would confound next week's reading.
    if (movedGroups.has(c.group) && c.group !== c.parameter) {
      report("another parameter of its group moved this week");
      continue;
    }
    movedGroups.add(c.group);
    const better = c.labels[v.direction > 0 ? 1 : 0];
    const reason = `${better} ${WHAT_IT_DRAWS[c.metric]} better${on(c.platform)} ` +
      `(${arms[0]!.label}: ${arms[0]!.mean} over ${arms[0]!.n}, ${arms[1]!.label}: ${arms[1]!.mean} over ${arms[1]!.n}; t = ${v.t}, critical ${v.critical}): ` +
      `${c.parameter} ${c.before} -> ${v.after}`;
    report(`move ${c.before} -> ${v.after}`);
    moves.push({
      parameter: c.parameter,
      before: c.before,
      after: v.after!,
      reason,
      evidence: {
        platform: c.platform ?? "pooled",
        agreeing: [],
        metric: c.metric,
        arms,
        difference: v.difference,
        t: v.t,
        df: v.df,
        critical_t: v.critical,
        alpha: v.alpha,
        reversing: v.reversing,
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
