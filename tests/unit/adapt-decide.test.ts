/** The adaptive decisions (shared/adapt/decide.ts) on hand-made evidence: sample, effect, bounds, pins, cooldown. */
import { describe, expect, test } from "bun:test";
import { AdaptSettings } from "../../shared/contracts/adapt.ts";
import type { AdaptConfig } from "../../shared/adapt/comparisons.ts";
import { decideAdaptations } from "../../shared/adapt/decide.ts";
import type { VideoEvidence } from "../../shared/adapt/evidence.ts";
import { narrationWordsFor, rankByCategory, unitLength } from "../../shared/adapt/apply.ts";
import { criticalT, welch } from "../../shared/adapt/welch.ts";

const NOW = new Date("2026-03-01T22:30:00Z");

function config(adapt: Record<string, unknown> = {}): AdaptConfig {
  return {
    daily_limit: 3,
    narration_min_words: 95,
    narration_max_words: 150,
    sources: [{ kind: "google_trends", weight: 1 }],
    adapt: AdaptSettings.parse({ video_length: { target_s: 50 }, ...adapt }),
  };
}

/** n short and n long videos at target 50, retention around the given means (a fixed +-2 spread). */
function lengths(n: number, shortMean: number, longMean: number, target = 50): VideoEvidence[] {
  return Array.from({ length: 2 * n }, (_, i) => ({
    unit_id: `u${i}`,
    made_at: new Date(NOW.getTime() - (i + 1) * 3600_000),
    platform: "youtube",
    views: 100,
    retention: (i % 2 === 0 ? shortMean : longMean) + (i % 4 < 2 ? 2 : -2),
    hook_score: null,
    hook_threshold: 0.72,
    source: "google_trends",
    categories: [],
    length_arm: i % 2 === 0 ? "short" as const : "long" as const,
    length_target_s: target,
    daily_volume: 3,
    day_units: 3,
  }));
}

describe("decideAdaptations", () => {
  test("a clear difference with enough videos moves one step towards the better arm", () => {
    const { moves } = decideAdaptations({ config: config(), evidence: lengths(10, 60, 50), history: [], now: NOW });
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ parameter: "video_length", before: 50, after: 47 });
    expect(moves[0]!.reason).toContain("short (46 s)");
    expect(moves[0]!.evidence).toMatchObject({ metric: "retention_pp", arms: [{ n: 10, mean: 60 }, { n: 10, mean: 50 }] });
  });

  test("under the minimum sample nothing moves, and the comparison says why", () => {
    const result = decideAdaptations({ config: config(), evidence: lengths(7, 60, 50), history: [], now: NOW });
    expect(result.moves).toEqual([]);
    expect(result.comparisons.find((c) => c.parameter === "video_length")!.outcome).toContain("each arm needs 8");
  });

  test("a difference under the minimum effect moves nothing however many videos", () => {
    expect(decideAdaptations({ config: config(), evidence: lengths(200, 51, 50), history: [], now: NOW }).moves).toEqual([]);
  });

  test("never past a bound: at the lower bound the better shorter arm moves nothing", () => {
    // 95 words = 38 s, plus the 4 s spread: the target's lower bound is 42.
    const result = decideAdaptations({ config: config({ video_length: { target_s: 42 } }), evidence: lengths(10, 60, 50, 42), history: [], now: NOW });
    expect(result.moves).toEqual([]);
    expect(result.comparisons.find((c) => c.parameter === "video_length")!.outcome).toContain("at its bound");
    const near = decideAdaptations({ config: config({ video_length: { target_s: 43 } }), evidence: lengths(10, 60, 50, 43), history: [], now: NOW });
    expect(near.moves[0]).toMatchObject({ before: 43, after: 42 });
  });

  test("a pinned parameter never moves", () => {
    const result = decideAdaptations({ config: config({ pinned: ["video_length"] }), evidence: lengths(10, 60, 50), history: [], now: NOW });
    expect(result.moves).toEqual([]);
    expect(result.comparisons.find((c) => c.parameter === "video_length")!.outcome).toBe("pinned");
  });

  test("within the cooldown, the reverse of a recent move needs much stronger evidence", () => {
    const moved = new Date(NOW.getTime() - 14 * 24 * 3600_000);
    const history = [{ parameter: "video_length", before: 47, after: 50, decided_at: moved, reverted_at: null }];
    // Made after the move: short better by 5 pp, over the 3 pp minimum but under twice it.
    const evidence = lengths(10, 55, 50);
    expect(decideAdaptations({ config: config(), evidence, history: [], now: NOW }).moves).toHaveLength(1);
    const held = decideAdaptations({ config: config(), evidence, history, now: NOW });
    expect(held.moves).toEqual([]);
    // Much stronger evidence still reverses it.
    expect(decideAdaptations({ config: config(), evidence: lengths(30, 62, 50), history, now: NOW }).moves).toHaveLength(1);
    // After the cooldown the ordinary bar applies again.
    const later = new Date(NOW.getTime() - 5 * 7 * 24 * 3600_000);
    expect(decideAdaptations({ config: config(), evidence, history: [{ ...history[0]!, decided_at: later }], now: NOW }).moves).toHaveLength(1);
  });

  test("only videos made since the parameter's last move count", () => {
    const history = [{ parameter: "video_length", before: 53, after: 50, decided_at: new Date(NOW.getTime() - 3600_000 * 5), reverted_at: null }];
    const result = decideAdaptations({ config: config(), evidence: lengths(10, 60, 50), history, now: NOW });
    expect(result.comparisons.find((c) => c.parameter === "video_length")!.arms.map((a) => a.n)).toEqual([2, 2]);
  });
});

describe("the parameters in a run", () => {
  test("units alternate short and long around the target; none without a target", () => {
    const s = AdaptSettings.parse({ video_length: { target_s: 48, spread_s: 4 } });
    expect([0, 1, 2].map((i) => unitLength(s, i)?.video_length_s)).toEqual([44, 52, 44]);
    expect(unitLength(AdaptSettings.parse({}), 0)).toBeNull();
  });

  test("a unit's narration range sits around its length, inside the dimension's", () => {
    expect(narrationWordsFor(44, { min: 95, max: 150 })).toEqual({ min: 105, max: 115 });
    expect(narrationWordsFor(38, { min: 95, max: 150 })).toEqual({ min: 95, max: 105 });
    expect(narrationWordsFor(60, { min: 95, max: 150 })).toEqual({ min: 140, max: 150 });
  });

  test("favoured categories rise and avoided ones sink; no preference keeps the order", () => {
    const topics = [{ id: "a", score: 0.8, categories: ["sport"] }, { id: "b", score: 0.75, categories: ["science"] }, { id: "c", score: 0.7, categories: [] }];
    const s = AdaptSettings.parse({ topic_categories: { favoured: ["science"], avoided: ["sport"], boost: 0.15 } });
    expect(rankByCategory(topics, s).map((t) => t.id)).toEqual(["b", "c", "a"]);
    expect(rankByCategory(topics, AdaptSettings.parse({})).map((t) => t.id)).toEqual(["a", "b", "c"]);
  });
});

describe("Welch's t", () => {
  test("matches a worked example and the t table", () => {
    const r = welch([19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0], [
      28.2,
      26.6,
      20.1,
      23.3,
      25.2,
      22.1,
      17.7,
      27.6,
      20.6,
      13.7,
      23.2,
      17.5,
      20.6,
      18.0,
      23.9,
      21.6,
      24.3,
      20.4,
      23.9,
      13.3,
    ])!;
    expect(r.t).toBeCloseTo(2.2, 1);
    expect(r.df).toBeCloseTo(24.5, 0);
    expect(criticalT(0.05, 24)).toBeCloseTo(2.064, 2);
  });
});
