import { z } from "zod";
import { LanguageTag } from "./language.ts";

/**
 * A dimension's publishing settings (`publishing` in its configuration): what its uploads tell
 * YouTube, and when its day's production starts. The table checks the same (mdame.publishing_is_valid).
 * docs/reference/distribution.md, "Publishing settings".
 */

/** Production starts this long before `publish_time` when no `run_time` is set (mdame.run_schedule does the same). */
const RUN_LEAD_MINUTES = 240;

/** Production starts here when neither `run_time` nor `publish_time` is set: the old daily trigger. */
const DEFAULT_RUN_START = { time_zone: "UTC", time: "06:00" } as const;

/** A YouTube video category id (`videoCategories.list`): digits, `27` is Education. */
const YouTubeCategoryId = z.string({ message: 'must be a category id in quotes, like "27"' })
  .regex(/^[0-9]{1,4}$/, 'must be a YouTube category id: 1-4 digits, like "27" (Education)');

export const PrivacyStatus = z.enum(["public", "unlisted", "private"], { message: "must be one of public, unlisted, private" });
export type PrivacyStatus = z.infer<typeof PrivacyStatus>;

/** A 24-hour wall-clock time, `HH:MM`. */
const WallClockTime = z.string({ message: "must be a time like 18:00" })
  .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "must be a 24-hour time like 18:00 or 06:30");

/**
 * An IANA time zone name (`Asia/Jakarta`, `America/New_York`, `UTC`), checked by Intl and stored
 * in the spelling Intl gives it (`asia/jakarta` becomes `Asia/Jakarta`). UTC offsets like `+07:00`
 * are refused: a zone's offset changes with daylight saving time, the name keeps up with it.
 */
const TimeZone = z.string({ message: "must be an IANA time zone name like Asia/Jakarta" }).max(64, "must be at most 64 characters")
  .transform((zone, ctx) => {
    const canonical = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone) ? canonicalTimeZone(zone) : undefined;
    if (!canonical) {
      ctx.addIssue({ code: "custom", message: `unknown time zone ${JSON.stringify(zone)}: use an IANA name like Asia/Jakarta, America/New_York or UTC` });
      return z.NEVER;
    }
    return canonical;
  });

function canonicalTimeZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Each field once, without defaults: the settings add them, a patch leaves them out. */
const PublishingFields = {
  /** snippet.categoryId; `mdame doctor` checks the channel may assign it. */
  category_id: YouTubeCategoryId.describe('YouTube video category id in quotes (snippet.categoryId), e.g. "27" (Education).'),
  /** status.privacyStatus once the video is out; with `publish_time`, `public` means private until then. */
  privacy_status: PrivacyStatus.describe(
    "status.privacyStatus once the video is out: public, unlisted or private; with publish_time, public means private until then.",
  ),
  /** The zone `publish_time` and `run_time` are read in. */
  time_zone: TimeZone.describe("IANA time zone name (Asia/Jakarta, America/New_York, UTC) that publish_time and run_time are read in."),
  /** When a public video goes public, local time; null: as soon as it is uploaded. */
  publish_time: WallClockTime.nullable().describe("When a public video goes public, HH:MM local time; null: as soon as it is uploaded."),
  /** When the day's production starts, local time; null: RUN_LEAD_MINUTES before publish_time, else 06:00 UTC. */
  run_time: WallClockTime.nullable().describe("When the day's production starts, HH:MM local time; null: 4 hours before publish_time, else 06:00 UTC."),
  /** status.selfDeclaredMadeForKids. */
  made_for_kids: z.boolean({ message: "must be true or false" }).describe("status.selfDeclaredMadeForKids."),
  /** status.containsSyntheticMedia: YouTube's altered or synthetic content disclosure (the voice and pictures are generated). */
  contains_synthetic_media: z.boolean({ message: "must be true or false" })
    .describe("status.containsSyntheticMedia: YouTube's altered or synthetic content disclosure (the voice and pictures are generated)."),
  /** snippet.defaultAudioLanguage, a BCP-47 tag; null: the dimension's language. */
  default_audio_language: LanguageTag.nullable().describe("snippet.defaultAudioLanguage, a BCP-47 tag; null: the dimension's language."),
};

export const DEFAULT_PUBLISHING = {
  category_id: "27",
  privacy_status: "public",
  time_zone: "UTC",
  publish_time: null,
  run_time: null,
  made_for_kids: false,
  contains_synthetic_media: true,
  default_audio_language: null,
} as const satisfies { [K in keyof typeof PublishingFields]: z.output<(typeof PublishingFields)[K]> };

/** The whole settings, each field defaulted. */
export const DimensionPublishing = z.object({
  category_id: PublishingFields.category_id.default(DEFAULT_PUBLISHING.category_id),
  privacy_status: PublishingFields.privacy_status.default(DEFAULT_PUBLISHING.privacy_status),
  time_zone: PublishingFields.time_zone.default(DEFAULT_PUBLISHING.time_zone),
  publish_time: PublishingFields.publish_time.default(DEFAULT_PUBLISHING.publish_time),
  run_time: PublishingFields.run_time.default(DEFAULT_PUBLISHING.run_time),
  made_for_kids: PublishingFields.made_for_kids.default(DEFAULT_PUBLISHING.made_for_kids),
  contains_synthetic_media: PublishingFields.contains_synthetic_media.default(DEFAULT_PUBLISHING.contains_synthetic_media),
  default_audio_language: PublishingFields.default_audio_language.default(DEFAULT_PUBLISHING.default_audio_language),
}).strict();
export type DimensionPublishing = z.infer<typeof DimensionPublishing>;

/** What `mdame dimension set` sends for `publishing`: the fields to change, the others kept. */
export const PublishingPatch = z.object(PublishingFields).partial().strict();
export type PublishingPatch = z.infer<typeof PublishingPatch>;

/** When a dimension's day's production starts: a local time in a zone (mdame.run_schedule computes the same). */
export function runStart(publishing: Pick<DimensionPublishing, "time_zone" | "publish_time" | "run_time">): { time_zone: string; time: string } {
  if (publishing.run_time !== null) return { time_zone: publishing.time_zone, time: publishing.run_time };
  if (publishing.publish_time === null) return { ...DEFAULT_RUN_START };
  const [hours, minutes] = publishing.publish_time.split(":").map(Number) as [number, number];
  const start = (((hours * 60 + minutes - RUN_LEAD_MINUTES) % 1440) + 1440) % 1440;
  return { time_zone: publishing.time_zone, time: `${String(Math.floor(start / 60)).padStart(2, "0")}:${String(start % 60).padStart(2, "0")}` };
}
