import { describe, expect, test } from "bun:test";
import { UsageError } from "../../scripts/script-args.ts";
import { parseScaleArgs } from "../../scripts/bench/scale/args.ts";
import { burstSize, dueMinutes, localTime, MINUTES_PER_DAY, planScaleDimensions, SCALE_LANGUAGES } from "../../scripts/bench/scale/plan.ts";
import { scaleDimensionConfig } from "../../scripts/bench/scale/setup.ts";
import { DimensionConfig } from "../../shared/contracts/dimension.ts";

const DAY = new Date("2026-12-05T00:00:00Z");

describe("the scale bench's dimensions", () => {
  test("spread over the engine day, with a burst due in one minute", () => {
    const plan = planScaleDimensions(100, 7, DAY);
    expect(plan.dimensions).toHaveLength(100);
    const burst = plan.dimensions.filter((d) => d.burst);
    expect(burst).toHaveLength(10);
    expect(new Set(burst.map((d) => d.due_minute))).toEqual(new Set([plan.burst_minute]));
    const spread = plan.dimensions.filter((d) => !d.burst).map((d) => d.due_minute);
    expect(new Set(spread).size).toBe(90);
    for (const minute of spread) expect(minute >= 0 && minute < MINUTES_PER_DAY).toBe(true);
    // Every quarter of the day has its share of starts.
    for (let q = 0; q < 4; q++) expect(spread.filter((m) => Math.floor(m / 360) === q).length).toBeGreaterThanOrEqual(20);
  });

  test("in every language, each with its geo, its voices and zones", () => {
    const plan = planScaleDimensions(30, 3, DAY);
    expect(new Set(plan.dimensions.map((d) => d.language))).toEqual(new Set(SCALE_LANGUAGES.map((l) => l.language)));
    for (const d of plan.dimensions) {
      const lang = SCALE_LANGUAGES.find((l) => l.language === d.language)!;
      expect(d.trend_geo).toBe(lang.trend_geo);
      expect(lang.voices).toContain(d.tts_voice);
      expect(lang.zones).toContain(d.time_zone);
    }
    expect(new Set(plan.dimensions.map((d) => d.time_zone)).size).toBeGreaterThan(3);
  });

  test("run_time is the due moment read in the dimension's own zone", () => {
    for (const d of planScaleDimensions(40, 11, DAY).dimensions) {
      expect(d.run_time).toBe(localTime(new Date(DAY.getTime() + d.due_minute * 60_000), d.time_zone));
    }
    expect(localTime(new Date("2026-12-05T00:30:00Z"), "Asia/Jakarta")).toBe("07:30");
    expect(localTime(new Date("2026-12-05T03:00:00Z"), "America/Los_Angeles")).toBe("19:00");
  });

  test("is the same for the same seed, and ids sort in creation order", () => {
    expect(planScaleDimensions(12, 5, DAY)).toEqual(planScaleDimensions(12, 5, DAY));
    expect(planScaleDimensions(12, 5, DAY).dimensions.map((d) => d.id).slice(0, 3)).toEqual(["scale-01", "scale-02", "scale-03"]);
  });

  test("one dimension has no burst; a day that does not start at midnight is refused", () => {
    expect(burstSize(1)).toBe(0);
    expect(burstSize(2)).toBe(1);
    expect(burstSize(1000)).toBe(100);
    expect(planScaleDimensions(1, 1, DAY).dimensions[0]!.burst).toBe(false);
    expect(() => planScaleDimensions(5, 1, new Date("2026-12-05T01:00:00Z"))).toThrow(RangeError);
    expect(() => dueMinutes(3, 4, 0, 0)).toThrow(RangeError);
  });

  test("each planned configuration is one the API takes", () => {
    for (const d of planScaleDimensions(6, 2, DAY).dimensions) {
      const parsed = DimensionConfig.safeParse(scaleDimensionConfig(d, "http://127.0.0.1:54330"));
      expect(parsed.success ? "" : JSON.stringify(parsed.error.issues)).toBe("");
    }
  });
});

describe("the scale bench's arguments", () => {
  test("defaults and bounds", () => {
    const options = parseScaleArgs(["--dimensions", "100"]);
    expect(options).toEqual({ dimensions: 100, dayMinutes: 10, timeoutMinutes: 25, seed: 1, portOffset: 1200, write: false });
    expect(parseScaleArgs(["--dimensions", "1000"]).dayMinutes).toBe(100);
    expect(parseScaleArgs(["--dimensions", "5"]).dayMinutes).toBe(6);
    expect(parseScaleArgs(["--dimensions", "1000", "--day-minutes", "240"]).dayMinutes).toBe(240);
    expect(parseScaleArgs(["--dimensions", "10", "--day-minutes", "6", "--write"]).timeoutMinutes).toBe(19);
    expect(() => parseScaleArgs([])).toThrow(UsageError);
    expect(() => parseScaleArgs(["--dimensions", "0"])).toThrow("--dimensions must be from 1 to 5000");
    expect(() => parseScaleArgs(["--dimensions", "ten"])).toThrow("whole number");
    expect(() => parseScaleArgs(["--dimensions", "5", "--days", "2"])).toThrow(UsageError);
  });
});
