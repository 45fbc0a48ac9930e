/**
 * The videos.insert resource a dimension's upload sends (functions/pipeline/platforms/youtube-metadata.ts):
 * its publishing settings, the script's text under YouTube's rules, and publishAt in the dimension's
 * own zone, across daylight saving days, half-hour offsets and the date line.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_PUBLISHING, DimensionPublishing } from "../../shared/contracts/publishing.ts";
import { VideoUploadMetadata } from "../../shared/providers/youtube/resumable-upload.ts";
import { buildVideoResource, nextPublishAt, withHashtags } from "../../functions/pipeline/platforms/youtube-metadata.ts";

const SCRIPT = { title: "Why the <sky> is blue", description: "Light scatters. #science", hashtags: ["#science", "#sky"] };

function resource(publishing: Partial<DimensionPublishing>, now = "2026-12-10T05:00:00Z", language = "id") {
  return buildVideoResource({ publishing: DimensionPublishing.parse({ ...DEFAULT_PUBLISHING, ...publishing }), language, script: SCRIPT, now: new Date(now) });
}

const at = (time: string, zone: string, after: string) => nextPublishAt(time, zone, new Date(after)).toISOString();

describe("buildVideoResource", () => {
  test("the defaults: Education, public now, not for kids, synthetic media declared, the dimension's language", () => {
    const video = resource({});
    expect(video).toEqual({
      snippet: {
        title: "Why the sky is blue",
        description: "Light scatters. #science\n\n#sky",
        tags: ["science", "sky"],
        categoryId: "27",
        defaultLanguage: "id",
        defaultAudioLanguage: "id",
      },
      status: { privacyStatus: "public", selfDeclaredMadeForKids: false, containsSyntheticMedia: true },
    });
    expect(VideoUploadMetadata.parse(video)).toEqual(video);
  });

  test("the settings go through: category, privacy, made for kids, no disclosure, another audio language", () => {
    const video = resource({
      category_id: "28",
      privacy_status: "unlisted",
      made_for_kids: true,
      contains_synthetic_media: false,
      default_audio_language: "en-US",
    });
    expect(video.snippet).toMatchObject({ categoryId: "28", defaultLanguage: "id", defaultAudioLanguage: "en-US" });
    expect(video.status).toEqual({ privacyStatus: "unlisted", selfDeclaredMadeForKids: true, containsSyntheticMedia: false });
  });

  test("a title is cut at 100 characters and a description at 5000, both without < or >", () => {
    const long = buildVideoResource({
      publishing: DimensionPublishing.parse(DEFAULT_PUBLISHING),
      language: "en",
      script: { title: `<${"t".repeat(150)}>`, description: "d".repeat(6000), hashtags: ["#x"] },
      now: new Date("2026-12-10T05:00:00Z"),
    });
    expect(long.snippet.title).toBe("t".repeat(100));
    expect(long.snippet.description).toBe("d".repeat(5000));
    expect(withHashtags("About #Science", ["#science", "#space"])).toBe("About #Science\n\n#space");
  });

  test("with a publish_time a public video is uploaded private with publishAt, the next publish_time in its zone", () => {
    // 12:00 in Jakarta (UTC+7): 18:00 is 11:00 UTC the same day.
    const video = resource({ time_zone: "Asia/Jakarta", publish_time: "18:00" }, "2026-12-10T05:00:00Z");
    expect(video.status).toEqual({
      privacyStatus: "private",
      selfDeclaredMadeForKids: false,
      containsSyntheticMedia: true,
      publishAt: "2026-12-10T11:00:00.000Z",
    });
    expect(VideoUploadMetadata.parse(video)).toEqual(video);
  });

  test("publishAt is at least 15 minutes away: a render ending just before publish_time publishes the next day", () => {
    const schedule = { time_zone: "Asia/Jakarta", publish_time: "18:00" };
    expect(resource(schedule, "2026-12-10T10:44:00Z").status.publishAt).toBe("2026-12-10T11:00:00.000Z");
    expect(resource(schedule, "2026-12-10T10:45:00Z").status.publishAt).toBe("2026-12-11T11:00:00.000Z");
    expect(resource(schedule, "2026-12-10T12:00:00Z").status.publishAt).toBe("2026-12-11T11:00:00.000Z");
  });

  test("an unlisted or private video is not scheduled: YouTube schedules only going public", () => {
    for (const privacy of ["unlisted", "private"] as const) {
      const video = resource({ privacy_status: privacy, time_zone: "Asia/Jakarta", publish_time: "18:00" });
      expect(video.status.privacyStatus).toBe(privacy);
      expect(video.status.publishAt).toBeUndefined();
    }
  });

  test("the upload contract refuses publishAt on a video that is not private", () => {
    const video = resource({ time_zone: "Asia/Jakarta", publish_time: "18:00" });
    expect(VideoUploadMetadata.safeParse({ ...video, status: { ...video.status, privacyStatus: "public" } }).success).toBe(false);
  });
});

describe("nextPublishAt", () => {
  test("New York's spring-forward day: 02:30 does not exist, it comes at 03:00 EDT", () => {
    expect(at("02:30", "America/New_York", "2026-03-08T05:00:00Z")).toBe("2026-03-08T07:00:00.000Z");
    // The day before and after, 02:30 is there: EST, then EDT.
    expect(at("02:30", "America/New_York", "2026-03-07T05:00:00Z")).toBe("2026-03-07T07:30:00.000Z");
    expect(at("02:30", "America/New_York", "2026-03-08T08:00:00Z")).toBe("2026-03-09T06:30:00.000Z");
  });

  test("New York's fall-back day: 01:30 comes twice, the first (EDT) is taken", () => {
    expect(at("01:30", "America/New_York", "2026-11-01T04:00:00Z")).toBe("2026-11-01T05:30:00.000Z");
    // Past the first, the second 01:30 of the same day is not used: the next is the next day's.
    expect(at("01:30", "America/New_York", "2026-11-01T05:31:00Z")).toBe("2026-11-02T06:30:00.000Z");
  });

  test("a half-hour offset: 18:00 in Kolkata is 12:30 UTC", () => {
    expect(at("18:00", "Asia/Kolkata", "2026-12-10T00:00:00Z")).toBe("2026-12-10T12:30:00.000Z");
    expect(at("06:15", "Asia/Kathmandu", "2026-12-10T00:00:00Z")).toBe("2026-12-10T00:30:00.000Z");
  });

  test("the date line: Kiritimati (UTC+14) is a day ahead of UTC, Apia skipped 30 December 2011", () => {
    // 12:00 UTC on 10 December is 02:00 on 11 December in Kiritimati: 09:00 there is 19:00 UTC on the 10th.
    expect(at("09:00", "Pacific/Kiritimati", "2026-12-10T12:00:00Z")).toBe("2026-12-10T19:00:00.000Z");
    expect(at("09:00", "Pacific/Kiritimati", "2026-12-10T19:30:00Z")).toBe("2026-12-11T19:00:00.000Z");
    // Apia went from UTC-10 at the end of the 29th to UTC+14 on the 31st: the 30th's 09:00 was
    // skipped like a spring-forward hour, so it comes at the first instant after, 00:00 on the 31st.
    expect(at("09:00", "Pacific/Apia", "2011-12-29T20:00:00Z")).toBe("2011-12-30T10:00:00.000Z");
    expect(at("09:00", "Pacific/Apia", "2011-12-30T10:00:00Z")).toBe("2011-12-30T19:00:00.000Z");
  });

  test("west of UTC a local evening is the next UTC day", () => {
    expect(at("20:00", "America/Los_Angeles", "2026-12-10T12:00:00Z")).toBe("2026-12-11T04:00:00.000Z");
    expect(at("00:00", "UTC", "2026-12-10T00:00:00Z")).toBe("2026-12-11T00:00:00.000Z");
  });
});
