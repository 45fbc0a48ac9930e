/** The adaptive decisions across platforms (adapt.platforms): each platform on its own figures, or pooled. */
import { describe, expect, test } from "bun:test";
import { AdaptSettings } from "../../shared/contracts/adapt.ts";
import type { AdaptConfig } from "../../shared/adapt/comparisons.ts";
import { decideAdaptations } from "../../shared/adapt/decide.ts";
import { evidenceSeries, type VideoEvidence } from "../../shared/adapt/evidence.ts";

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

/**
 * n short and n long videos at target 50 on one platform: YouTube's with retention around the given
 * means, the others' with views around shortViews / longViews (a fixed ±10% spread) and no retention.
 */
function videos(platform: string, n: number, arms: { short: number; long: number }, offset = 0): VideoEvidence[] {
  return Array.from({ length: 2 * n }, (_, i) => {
    const mean = i % 2 === 0 ? arms.short : arms.long;
    const wobble = i % 4 < 2 ? 1.1 : 0.9;
    return {
      unit_id: `u${offset + i}`,
      made_at: new Date(NOW.getTime() - (offset + i + 1) * 3600_000),
      platform,
      retention: platform === "youtube" ? mean + (wobble > 1 ? 2 : -2) : null,
      views: platform === "youtube" ? 100 : Math.round(mean * wobble),
      hook_score: null,
      hook_threshold: 0.72,
      source: "google_trends",
      categories: [],
      length_arm: i % 2 === 0 ? "short" as const : "long" as const,
      length_target_s: 50,
      daily_volume: 3,
      day_units: 3,
    };
  });
}

describe("adapt.platforms: separate (the default)", () => {
  test("a TikTok-only dimension adapts on its views", () => {
    const { moves, comparisons } = decideAdaptations({
      config: config(),
      evidence: videos("tiktok", 10, { short: 2000, long: 800 }),
      history: [],
      now: NOW,
    });
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ parameter: "video_length", before: 50, after: 47 });
    expect(moves[0]!.reason).toContain("draws views better on tiktok");
    expect(moves[0]!.evidence).toMatchObject({ platform: "tiktok", metric: "log_views" });
    expect(comparisons.find((c) => c.parameter === "video_length")).toMatchObject({ platform: "tiktok", metric: "log_views" });
  });

  test("each platform is compared on its own figures: YouTube's retention, TikTok's views", () => {
    const { comparisons } = decideAdaptations({
      config: config(),
      evidence: [...videos("youtube", 10, { short: 55, long: 54 }), ...videos("tiktok", 10, { short: 1000, long: 1000 })],
      history: [],
      now: NOW,
    });
    const length = comparisons.filter((c) => c.parameter === "video_length");
    expect(length.map((c) => [c.platform, c.metric])).toEqual([["tiktok", "log_views"], ["youtube", "retention_pp"]]);
  });

  test("platforms that decide opposite ways move nothing, and say so", () => {
    const { moves, comparisons } = decideAdaptations({
      config: config(),
      evidence: [...videos("youtube", 10, { short: 62, long: 50 }), ...videos("tiktok", 10, { short: 700, long: 2100 }, 100)],
      history: [],
      now: NOW,
    });
    expect(moves).toEqual([]);
    const length = comparisons.filter((c) => c.parameter === "video_length");
    expect(length).toHaveLength(2);
    for (const c of length) expect(c.outcome).toContain("platforms disagree (tiktok: long (54 s) better, youtube: short (46 s) better)");
  });

  test("platforms that agree move the parameter once, the others named as agreeing", () => {
    const { moves, comparisons } = decideAdaptations({
      config: config(),
      evidence: [...videos("youtube", 10, { short: 62, long: 50 }), ...videos("tiktok", 10, { short: 2100, long: 700 }, 100)],
      history: [],
      now: NOW,
    });
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ parameter: "video_length", after: 47, evidence: { platform: "tiktok", agreeing: ["youtube"] } });
    expect(comparisons.find((c) => c.platform === "youtube" && c.parameter === "video_length")!.outcome).toBe("agrees: moved on tiktok's figures");
  });

  test("every platform's comparisons share the week's alpha", () => {
    const one = decideAdaptations({ config: config(), evidence: videos("youtube", 10, { short: 56, long: 50 }), history: [], now: NOW });
    const two = decideAdaptations({
      config: config(),
      evidence: [...videos("youtube", 10, { short: 56, long: 50 }), ...videos("tiktok", 10, { short: 1000, long: 1000 }, 100)],
      history: [],
      now: NOW,
    });
    const critical = (r: typeof one) => r.comparisons.find((c) => c.platform === "youtube" && c.parameter === "video_length")!.critical_t!;
    expect(critical(two)).toBeGreaterThan(critical(one));
  });
});

describe("adapt.platforms: pooled", () => {
  test("a video's views on every platform are added up and compared as one", () => {
    const evidence = [...videos("instagram", 10, { short: 900, long: 300 }), ...videos("tiktok", 10, { short: 1200, long: 400 })];
    const series = evidenceSeries("pooled", evidence);
    expect(series).toHaveLength(1);
    expect(series[0]!.videos).toHaveLength(20);
    expect(series[0]!.videos.find((v) => v.unit_id === "u0")!.views).toBe(Math.round(900 * 1.1) + Math.round(1200 * 1.1));

    const { moves, comparisons } = decideAdaptations({ config: config({ platforms: "pooled" }), evidence, history: [], now: NOW });
    expect(comparisons.find((c) => c.parameter === "video_length")).toMatchObject({ platform: null, metric: "log_views" });
    expect(moves).toHaveLength(1);
    expect(moves[0]!.evidence).toMatchObject({ platform: "pooled" });
    expect(moves[0]!.reason).not.toContain(" on ");
  });

  test("pooled, two platforms that would disagree apart move by their summed views", () => {
    const evidence = [...videos("youtube", 10, { short: 62, long: 50 }), ...videos("tiktok", 10, { short: 700, long: 2100 })];
    const { comparisons } = decideAdaptations({ config: config({ platforms: "pooled" }), evidence, history: [], now: NOW });
    expect(comparisons.filter((c) => c.parameter === "video_length")).toHaveLength(1);
  });
});

test("no evidence at all: each comparison still says it lacks videos", () => {
  const { comparisons } = decideAdaptations({ config: config(), evidence: [], history: [], now: NOW });
  expect(comparisons.find((c) => c.parameter === "video_length")!.outcome).toContain("each arm needs 8");
});
