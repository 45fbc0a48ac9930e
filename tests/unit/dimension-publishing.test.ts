/**
 * A dimension's publishing settings (shared/contracts/publishing.ts): defaults, what is refused and
 * how it is named, and when the day's production starts.
 */
import { describe, expect, test } from "bun:test";
import { describeIssues, DimensionConfig, DimensionPatch } from "../../shared/contracts/dimension.ts";
import { DEFAULT_PUBLISHING, DimensionPublishing, runStart } from "../../shared/contracts/publishing.ts";
import { DimensionRow } from "../../functions/pipeline/stages/unit.ts";

const GOOD = {
  id: "sains-singkat",
  display_name: "Sains Singkat",
  language: "id",
  tts_voice: "id-ID-GadisNeural",
  trend_geo: "ID",
  style: { palette: ["#2d1e2f", "#f9ed69"], motion: "pulse" as const },
};

const problems = (publishing: unknown) => {
  const result = DimensionConfig.safeParse({ ...GOOD, publishing });
  if (result.success) throw new Error("accepted");
  return describeIssues(result.error.issues);
};

describe("publishing settings", () => {
  test("left out, or given in part, the rest take the defaults", () => {
    expect(DimensionConfig.parse(GOOD).publishing).toEqual({ ...DEFAULT_PUBLISHING });
    expect(DimensionConfig.parse({ ...GOOD, publishing: { time_zone: "Asia/Jakarta", publish_time: "18:00" } }).publishing).toEqual({
      ...DEFAULT_PUBLISHING,
      time_zone: "Asia/Jakarta",
      publish_time: "18:00",
    });
  });

  test("a time zone is an IANA name Intl knows, stored in its own spelling; offsets and unknown names are refused", () => {
    expect(DimensionPublishing.parse({ time_zone: "asia/jakarta" }).time_zone).toBe("Asia/Jakarta");
    expect(DimensionPublishing.parse({ time_zone: "America/New_York" }).time_zone).toBe("America/New_York");
    expect(problems({ time_zone: "Mars/Olympus_Mons" })).toEqual([
      'publishing.time_zone: unknown time zone "Mars/Olympus_Mons": use an IANA name like Asia/Jakarta, America/New_York or UTC',
    ]);
    expect(problems({ time_zone: "+07:00" })[0]).toStartWith('publishing.time_zone: unknown time zone "+07:00"');
  });

  test("each bad field is named with what it must be", () => {
    expect(problems({
      category_id: 27,
      privacy_status: "hidden",
      publish_time: "6pm",
      run_time: "24:00",
      made_for_kids: "no",
      contains_synthetic_media: null,
      default_audio_language: "english",
      publish_at: "18:00",
    })).toEqual([
      'publishing.category_id: must be a category id in quotes, like "27"',
      "publishing.privacy_status: must be one of public, unlisted, private",
      "publishing.publish_time: must be a 24-hour time like 18:00 or 06:30",
      "publishing.run_time: must be a 24-hour time like 18:00 or 06:30",
      "publishing.made_for_kids: must be true or false",
      "publishing.contains_synthetic_media: must be true or false",
      "publishing.default_audio_language: must be a BCP-47 language tag like en, ru-RU or ja-JP",
      "publishing.publish_at: unknown field",
    ]);
    expect(problems({ category_id: "Education" })).toEqual(['publishing.category_id: must be a YouTube category id: 1-4 digits, like "27" (Education)']);
  });

  test("a patch names only the publishing fields it changes, and no default fills the others", () => {
    expect(DimensionPatch.parse({ publishing: { publish_time: null } })).toEqual({ publishing: { publish_time: null } });
    expect(DimensionPatch.safeParse({ publishing: { privacy_status: "secret" } }).success).toBe(false);
  });
});

describe("a run's stored configuration", () => {
  test("gives the stages its publishing settings; one stored before they existed reads as the defaults", () => {
    const started = { ...GOOD, tts_rate: "+0%", safety_profile: { blocked_terms: [] }, daily_limit: 1, narration_min_words: 95, narration_max_words: 150 };
    expect(DimensionRow.parse(started).publishing).toEqual({ ...DEFAULT_PUBLISHING });
    const scheduled = { ...DEFAULT_PUBLISHING, time_zone: "Asia/Jakarta", publish_time: "18:00" };
    expect(DimensionRow.parse({ ...started, publishing: scheduled }).publishing).toEqual(scheduled);
  });
});

describe("runStart", () => {
  test("run_time in the zone; else 4 hours before publish_time; else 06:00 UTC", () => {
    const base = { time_zone: "Asia/Jakarta", publish_time: null, run_time: null };
    expect(runStart(base)).toEqual({ time_zone: "UTC", time: "06:00" });
    expect(runStart({ ...base, publish_time: "18:00" })).toEqual({ time_zone: "Asia/Jakarta", time: "14:00" });
    expect(runStart({ ...base, publish_time: "02:15" })).toEqual({ time_zone: "Asia/Jakarta", time: "22:15" });
    expect(runStart({ ...base, publish_time: "18:00", run_time: "09:30" })).toEqual({ time_zone: "Asia/Jakarta", time: "09:30" });
  });
});
