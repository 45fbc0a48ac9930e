/**
 * The YouTube Analytics emulator's figures (emulators/youtube-analytics/figures.ts): the same seed
 * and video give the same numbers, other seeds or videos other numbers; the figures hold together
 * as YouTube's do (engaged views and likes within views, the average percentage the curve's mean,
 * the average duration that share of the video's length); views grow with the window; nothing is
 * reported before the 48-hour lag; appeal lifts retention.
 */
import { describe, expect, test } from "bun:test";
import { ANALYTICS_LAG_MS, retentionCurve, type VideoFacts, videoTotals } from "../../emulators/youtube-analytics/figures.ts";

const DAY_MS = 86_400_000;
const uploadedAtMs = Date.parse("2026-11-20T15:30:00Z");
const facts = (over: Partial<VideoFacts> = {}): VideoFacts => ({ seed: "unit", videoId: "abcDEF12345", durationS: 42, appeal: 1, uploadedAtMs, ...over });
const period = (days: number, nowDays = days) => ({
  startDate: "2026-11-20",
  endDate: new Date(uploadedAtMs + days * DAY_MS).toISOString().slice(0, 10),
  nowMs: uploadedAtMs + nowDays * DAY_MS,
});

describe("youtube analytics figures", () => {
  test("are deterministic per seed and video", () => {
    expect(videoTotals(facts(), period(3))).toEqual(videoTotals(facts(), period(3))!);
    expect(retentionCurve(facts())).toEqual(retentionCurve(facts()));
    expect(videoTotals(facts({ seed: "other" }), period(3))).not.toEqual(videoTotals(facts(), period(3))!);
    expect(videoTotals(facts({ videoId: "zzzYYY98765" }), period(3))).not.toEqual(videoTotals(facts(), period(3))!);
  });

  test("hold together for many videos", () => {
    for (let i = 0; i < 200; i += 1) {
      const f = facts({ videoId: `video-${i}`, durationS: 10 + (i % 50), appeal: 0.2 + (i % 9) * 0.5 });
      const curve = retentionCurve(f);
      expect(curve).toHaveLength(100);
      expect(curve[0]![0]).toBe(0.01);
      expect(curve[99]![0]).toBe(1);
      for (let p = 1; p < curve.length; p += 1) expect(curve[p]![1]).toBeLessThanOrEqual(curve[p - 1]![1]);
      const totals = videoTotals(f, period(7))!;
      const mean = curve.reduce((sum, [, watch]) => sum + watch, 0) / curve.length;
      expect(totals.views).toBeGreaterThan(0);
      expect(totals.engagedViews).toBeLessThanOrEqual(totals.views);
      expect(totals.likes).toBeLessThanOrEqual(Math.ceil(totals.views * 0.1));
      expect(totals.averageViewPercentage).toBeCloseTo(mean * 100, 1);
      expect(totals.averageViewDuration).toBe(Math.round(mean * f.durationS));
      expect(Number.isInteger(totals.views) && Number.isInteger(totals.engagedViews) && Number.isInteger(totals.likes)).toBe(true);
    }
  });

  test("views grow with the window and stop at the days processed", () => {
    const day3 = videoTotals(facts(), period(3))!;
    const day7 = videoTotals(facts(), period(7))!;
    expect(day7.views).toBeGreaterThan(day3.views);
    // The day-3 period asked again on day 7 counts its own days only.
    expect(videoTotals(facts(), period(3, 7))!.views).toBeGreaterThanOrEqual(day3.views);
    expect(videoTotals(facts(), period(3, 7))!.views).toBeLessThan(day7.views);
  });

  test("report nothing before the 48-hour lag", () => {
    expect(videoTotals(facts(), { ...period(3), nowMs: uploadedAtMs + ANALYTICS_LAG_MS - 1 })).toBeNull();
    expect(videoTotals(facts(), { ...period(3), nowMs: uploadedAtMs + ANALYTICS_LAG_MS })).not.toBeNull();
    // A period wholly before the upload has no rows.
    expect(videoTotals(facts(), { startDate: "2026-11-01", endDate: "2026-11-10", nowMs: uploadedAtMs + 7 * DAY_MS })).toBeNull();
  });

  test("appeal lifts retention, engagement and reach", () => {
    const plain = videoTotals(facts(), period(7))!;
    const appealing = videoTotals(facts({ appeal: 3 }), period(7))!;
    expect(appealing.averageViewPercentage).toBeGreaterThan(plain.averageViewPercentage);
    expect(appealing.views).toBeGreaterThan(plain.views);
    expect(appealing.engagedViews / appealing.views).toBeGreaterThanOrEqual(plain.engagedViews / plain.views);
  });
});
