/**
 * The adaptive engine on synthetic seeded weeks (scripts/eval/adapt-simulation-model.ts): where one
 * choice truly retains better it converges there and stays in bounds; under pure noise it makes
 * almost no move and never see-saws.
 */
import { describe, expect, test } from "bun:test";
import { type Scenario, simulate } from "../../scripts/eval/adapt-simulation-model.ts";
import { lengthBounds } from "../../shared/adapt/comparisons.ts";

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

describe("adaptive engine simulation", () => {
  for (const scenario of ["shorter_retains", "source_a_beats_b", "category_favoured"] as Scenario[]) {
    test(`${scenario}: converges to the better choice within 26 weeks and never leaves its bounds`, () => {
      for (const seed of SEEDS) {
        const run = simulate(scenario, seed, 26);
        expect({ seed, converged: run.weeksToConverge !== null }).toEqual({ seed, converged: true });
        expect(run.boundsViolations).toBe(0);
        expect(run.reversals).toBe(0);
      }
    });
  }

  test("shorter_retains: the target walks down one step at a time to the lower bound", () => {
    const run = simulate("shorter_retains", 1, 26);
    const lengthMoves = run.moves.filter((m) => m.parameter === "video_length");
    for (const m of lengthMoves) {
      expect(m.after).toBeLessThan(m.before as number);
      expect((m.before as number) - (m.after as number)).toBeLessThanOrEqual(3);
    }
    const bounds = lengthBounds({
      daily_limit: 3,
      narration_min_words: 95,
      narration_max_words: 150,
      sources: [],
      adapt: { video_length: { spread_s: 4 } } as never,
    });
    expect(run.weeks.at(-1)!.target_s).toBe(bounds.min);
  });

  test("source_a_beats_b: the better source ends weighted above the other", () => {
    for (const seed of SEEDS) {
      const last = simulate("source_a_beats_b", seed, 26).weeks.at(-1)!;
      expect(last.weights.hacker_news!).toBeGreaterThan(last.weights.reddit!);
    }
  });

  test("pure noise: almost no move over 26 weeks, and no reversal", () => {
    const runs = Array.from({ length: 40 }, (_, i) => simulate("noise", 100 + i, 26));
    const moves = runs.reduce((n, r) => n + r.moves.length, 0);
    expect(moves / runs.length).toBeLessThan(1);
    expect(runs.filter((r) => r.moves.length === 0).length).toBeGreaterThanOrEqual(20);
    expect(runs.reduce((n, r) => n + r.reversals + r.boundsViolations, 0)).toBe(0);
    // The same target for 26 weeks in most runs: noise does not walk the length around.
    expect(runs.filter((r) => r.weeks.at(-1)!.target_s === 50).length).toBeGreaterThanOrEqual(30);
  });

  test("on TikTok alone, or on YouTube and TikTok each by its own figures or pooled, the shorter length still wins", () => {
    for (
      const audience of [{ platforms: ["tiktok"], mode: "separate" }, { platforms: ["youtube", "tiktok"], mode: "separate" }, {
        platforms: ["youtube", "tiktok"],
        mode: "pooled",
      }] as const
    ) {
      const runs = SEEDS.map((seed) => simulate("shorter_retains", seed, 26, { platforms: [...audience.platforms], mode: audience.mode }));
      expect(runs.filter((r) => r.weeksToConverge !== null).length, JSON.stringify(audience)).toBe(SEEDS.length);
    }
  });

  test("pure noise on two platforms compared apart: no likelier to move than on one", () => {
    const runs = Array.from({ length: 40 }, (_, i) => simulate("noise", 100 + i, 26, { platforms: ["youtube", "tiktok"], mode: "separate" }));
    expect(runs.reduce((n, r) => n + r.moves.length, 0) / runs.length).toBeLessThan(1);
    expect(runs.filter((r) => r.moves.length === 0).length).toBeGreaterThanOrEqual(20);
    expect(runs.reduce((n, r) => n + r.reversals + r.boundsViolations, 0)).toBe(0);
  });

  test("the same seed gives the same weeks", () => {
    expect(simulate("noise", 7, 10)).toEqual(simulate("noise", 7, 10));
  });
});
