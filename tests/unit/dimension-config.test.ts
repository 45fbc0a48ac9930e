/**
 * The dimension configuration contract (shared/contracts/dimension.ts): what a config file may say,
 * and that every bad field is named, all at once, in words a person can act on.
 */
import { describe, expect, test } from "bun:test";
import { DimensionConfig, DimensionPatch, describeIssues } from "../../shared/contracts/dimension.ts";

const GOOD = {
  id: "tech-explained",
  display_name: "Tech Explained",
  language: "en" as const,
  tts_voice: "en-US-AriaNeural",
  trend_geo: "US",
  style: { palette: ["#0b132b", "#5bc0be"], motion: "drift" as const },
};

const problems = (value: unknown) => {
  const result = DimensionConfig.safeParse(value);
  if (result.success) throw new Error("accepted");
  return describeIssues(result.error.issues);
};

describe("DimensionConfig", () => {
  test("a minimal config gets the documented defaults", () => {
    expect(DimensionConfig.parse(GOOD)).toEqual({
      ...GOOD,
      style: { ...GOOD.style, caption_font: "DejaVu Sans" },
      tts_rate: "+0%",
      safety_profile: { blocked_terms: [] },
      daily_limit: 1,
      narration_min_words: 95,
      narration_max_words: 150,
      music: null,
    });
  });

  test("each bad field is named with what it must be, all in one answer", () => {
    const lines = problems({
      id: "Tech Explained",
      display_name: "",
      language: "fr",
      tts_voice: "Aria",
      tts_rate: "10%",
      trend_geo: "usa",
      style: { palette: ["#fff"], motion: "spin" },
      safety_profile: { blocked_terms: [" "] },
      daily_limit: 2.5,
      narration_min_words: 20,
      narration_max_words: 500,
      colour: "blue",
    });
    const fields = lines.map((l) => l.split(":")[0]);
    expect(fields).toEqual([
      "id", "display_name", "language", "tts_voice", "tts_rate", "trend_geo", "style.palette.0", "style.palette", "style.motion",
      "safety_profile.blocked_terms.0", "daily_limit", "narration_min_words", "narration_max_words", "colour",
    ]);
    expect(lines).toContain("language: must be one of en, id");
    expect(lines).toContain("daily_limit: must be a whole number");
    expect(lines).toContain("narration_min_words: must be 60 to 180");
    expect(lines).toContain("colour: unknown field");
  });

  test("a missing field is reported as required", () => {
    expect(problems({ id: "x1" })).toEqual([
      "display_name: is required", "language: must be one of en, id", "tts_voice: is required", "trend_geo: is required", "style: is required",
    ]);
  });

  test("rules between fields: the voice speaks the dimension's language, the narration range is at least 10 words", () => {
    expect(problems({ ...GOOD, language: "id" })).toEqual(["tts_voice: speaks en, but the dimension's language is id"]);
    expect(problems({ ...GOOD, narration_min_words: 120, narration_max_words: 125 }))
      .toEqual(["narration_max_words: must be at least 10 more than narration_min_words (120)"]);
    expect(DimensionConfig.safeParse({ ...GOOD, narration_min_words: 120, narration_max_words: 130 }).success).toBe(true);
  });

  test("the bounds match the table's: daily limit 0-50, narration 60-180, rate a signed percentage", () => {
    for (const ok of [{ daily_limit: 0 }, { daily_limit: 50 }, { narration_min_words: 60, narration_max_words: 180 }, { tts_rate: "-15%" }]) {
      expect(DimensionConfig.safeParse({ ...GOOD, ...ok }).success).toBe(true);
    }
    for (const bad of [{ daily_limit: 51 }, { daily_limit: -1 }, { narration_max_words: 181 }, { tts_rate: "+100%" }, { trend_geo: "U" }]) {
      expect(DimensionConfig.safeParse({ ...GOOD, ...bad }).success).toBe(false);
    }
  });
});

describe("DimensionPatch", () => {
  test("takes any fields but the id, and at least one", () => {
    expect(DimensionPatch.parse({ daily_limit: 3 })).toEqual({ daily_limit: 3 });
    expect(describeIssues(DimensionPatch.safeParse({}).error!.issues)).toEqual(["(config): names no field to change"]);
    expect(describeIssues(DimensionPatch.safeParse({ id: "other" }).error!.issues)).toContain("id: unknown field");
  });
});
