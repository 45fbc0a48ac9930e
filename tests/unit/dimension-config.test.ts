/**
 * The dimension configuration contract (shared/contracts/dimension.ts): what a config file may say,
 * and that every bad field is named, all at once, in words a person can act on.
 */
import { describe, expect, test } from "bun:test";
import { describeIssues, DimensionConfig, DimensionPatch } from "../../shared/contracts/dimension.ts";
import { DEFAULT_ADAPT } from "../../shared/contracts/adapt.ts";

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
      tts_fallback_voice: null,
      safety_profile: { blocked_terms: [], blocked_categories: ["financial-advice"], strictness: "standard" },
      visuals: { backends: ["procedural"], pexels_blocklist: [] },
      daily_limit: 1,
      narration_min_words: 95,
      narration_max_words: 150,
      subject: { keywords: [], categories: [], excluded_terms: [] },
      sources: [{ kind: "google_trends", weight: 1 }],
      min_score: 0,
      llm: {},
      captions: { profile: "platforms" },
      music: null,
      alerts: null,
      review: null,
      publishing: {
        category_id: "27",
        privacy_status: "public",
        time_zone: "UTC",
        publish_time: null,
        run_time: null,
        made_for_kids: false,
        contains_synthetic_media: true,
        default_audio_language: null,
      },
      adapt: DEFAULT_ADAPT,
      similarity: { threshold: 0.5, compare_last: 60, max_regenerations: 2 },
      budget: null,
    });
  });

  test("captions take a platform profile; an unknown one is named with the choices", () => {
    expect(DimensionConfig.parse({ ...GOOD, captions: { profile: "tiktok" } }).captions).toEqual({ profile: "tiktok" });
    expect(DimensionConfig.parse({ ...GOOD, captions: {} }).captions).toEqual({ profile: "platforms" });
    expect(DimensionConfig.parse({ ...GOOD, captions: { profile: "intersection" } }).captions).toEqual({ profile: "intersection" });
    expect(problems({ ...GOOD, captions: { profile: "vine" } })).toEqual([
      "captions.profile: must be one of platforms, intersection, youtube_shorts, tiktok, reels",
    ]);
    expect(problems({ ...GOOD, captions: { profile: "reels", size: 90 } })).toEqual(["captions.size: unknown field"]);
  });

  test("each bad field is named with what it must be, all in one answer", () => {
    const lines = problems({
      id: "Tech Explained",
      display_name: "",
      language: "français",
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
      "id",
      "display_name",
      "language",
      "tts_voice",
      "tts_rate",
      "trend_geo",
      "style.palette.0",
      "style.palette",
      "style.motion",
      "safety_profile.blocked_terms.0",
      "daily_limit",
      "narration_min_words",
      "narration_max_words",
      "colour",
    ]);
    expect(lines).toContain("language: must be a BCP-47 language tag like en, ru-RU or ja-JP");
    expect(lines).toContain("tts_voice: must be a neural voice name like en-US-AriaNeural (its locale first)");
    expect(lines).toContain("daily_limit: must be a whole number");
    expect(lines).toContain("narration_min_words: must be 60 to 180");
    expect(lines).toContain("colour: unknown field");
  });

  test("a missing field is reported as required", () => {
    expect(problems({ id: "x1" })).toEqual([
      "display_name: is required",
      "language: is required",
      "tts_voice: is required",
      "trend_geo: is required",
      "style: is required",
    ]);
  });

  test("rules between fields: the voice speaks the dimension's language, the narration range is at least 10 words", () => {
    expect(problems({ ...GOOD, language: "id" })).toEqual(["tts_voice: speaks en-US, but the dimension's language is id"]);
    expect(problems({ ...GOOD, language: "en-GB" })).toEqual(["tts_voice: speaks en-US, but the dimension's language is en-GB"]);
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

describe("DimensionConfig safety_profile", () => {
  test("categories to block and a strictness, with valid defaults for a profile stored before them", () => {
    const parsed = DimensionConfig.parse({
      ...GOOD,
      safety_profile: { blocked_terms: ["casino"], blocked_categories: ["politics", "religion"], strictness: "strict" },
    });
    expect(parsed.safety_profile).toEqual({ blocked_terms: ["casino"], blocked_categories: ["politics", "religion"], strictness: "strict" });
    expect(DimensionConfig.parse({ ...GOOD, safety_profile: { blocked_terms: [] } }).safety_profile)
      .toEqual({ blocked_terms: [], blocked_categories: ["financial-advice"], strictness: "standard" });
  });

  test("an unknown category or strictness is named", () => {
    const lines = problems({ ...GOOD, safety_profile: { blocked_categories: ["weather"], strictness: "paranoid" } });
    expect(lines.some((l) => l.startsWith("safety_profile.blocked_categories.0: must be one of politics"))).toBe(true);
    expect(lines).toContain("safety_profile.strictness: must be one of lenient, standard, strict");
  });
});

describe("tts_fallback_voice", () => {
  test("is a Gemini prebuilt voice or null (the language's default)", () => {
    expect(DimensionConfig.parse({ ...GOOD, tts_fallback_voice: "Puck" }).tts_fallback_voice).toBe("Puck");
    expect(DimensionConfig.parse({ ...GOOD, tts_fallback_voice: null }).tts_fallback_voice).toBeNull();
    const bad = DimensionConfig.safeParse({ ...GOOD, tts_fallback_voice: "en-US-AriaNeural" });
    expect(bad.success).toBe(false);
    expect(describeIssues(bad.error!.issues)[0]).toStartWith("tts_fallback_voice: must be a Gemini TTS voice");
  });
});

describe("any language", () => {
  const RUSSIAN = { ...GOOD, id: "nauka-korotko", language: "ru-RU", tts_voice: "ru-RU-SvetlanaNeural", trend_geo: "RU" };

  test("a language is any BCP-47 tag, stored in its canonical form", () => {
    expect(DimensionConfig.parse(RUSSIAN).language).toBe("ru-RU");
    expect(DimensionConfig.parse({ ...RUSSIAN, language: "RU-ru" }).language).toBe("ru-RU");
    expect(DimensionConfig.parse({ ...GOOD, language: "ja", tts_voice: "ja-JP-NanamiNeural" }).language).toBe("ja");
    expect(DimensionConfig.parse({ ...GOOD, language: "zh-hant-tw", tts_voice: "zh-TW-HsiaoChenNeural" }).language).toBe("zh-Hant-TW");
  });

  test("what is not a language tag is refused: words, private use, extensions, und", () => {
    for (const language of ["russian", "x-klingon", "en-US-u-ca-buddhist", "und", "", "e"]) {
      expect(problems({ ...GOOD, language })).toContain("language: must be a BCP-47 language tag like en, ru-RU or ja-JP");
    }
  });

  test("the voice must speak the language, its script and its region when the tag names them", () => {
    expect(problems({ ...RUSSIAN, tts_voice: "uk-UA-PolinaNeural" })).toEqual(["tts_voice: speaks uk-UA, but the dimension's language is ru-RU"]);
    expect(DimensionConfig.safeParse({ ...GOOD, language: "en", tts_voice: "en-GB-RyanNeural" }).success).toBe(true);
    expect(problems({ ...GOOD, language: "zh-Hant", tts_voice: "zh-CN-XiaoxiaoNeural" }))
      .toEqual(["tts_voice: speaks zh-CN, written in another script than zh-Hant"]);
    expect(DimensionConfig.safeParse({ ...GOOD, language: "zh-CN", tts_voice: "zh-CN-shaanxi-XiaoniNeural" }).success).toBe(true);
  });
});
