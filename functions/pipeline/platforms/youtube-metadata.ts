/**
 * The `videos.insert` resource (`snippet` and `status` parts) of one upload: the accepted script's
 * text under YouTube's rules, and the dimension's publishing settings (shared/contracts/publishing.ts).
 * Pure: the clock comes in as `now`. docs/reference/distribution.md, "Publishing settings".
 */
import type { DimensionPublishing } from "../../../shared/contracts/publishing.ts";
import type { VideoUploadMetadata } from "../../../shared/providers/youtube/resumable-upload.ts";
import { DAY_MS, MINUTE_MS } from "../../../shared/time.ts";

/**
 * A scheduled video goes public at the next publish_time at least this long after the upload
 * finishes: YouTube wants publishAt in the future when it receives it, and the upload's own
 * processing should be done by then. A render that ends 10 minutes before 18:00 publishes the next day.
 */
const PUBLISH_AT_MARGIN_MINUTES = 15;

/** The script fields the upload shows. */
interface UploadText {
  title: string;
  description: string;
  hashtags: string[];
}

interface VideoResourceInput {
  publishing: DimensionPublishing;
  /** The dimension's language (BCP-47): snippet.defaultLanguage, and the audio language unless the settings name one. */
  language: string;
  script: UploadText;
  now: Date;
}

/**
 * The resource for videos.insert. With a publish_time and public privacy the video is uploaded
 * private with `publishAt`, the next publish_time in the dimension's zone after now plus the
 * margin (YouTube schedules only a private video, and only to go public). Unlisted or private
 * videos stay as they are: publishAt is not sent.
 */
export function buildVideoResource(input: VideoResourceInput): VideoUploadMetadata {
  const { publishing, language, script, now } = input;
  const publishAt = publishing.publish_time !== null && publishing.privacy_status === "public"
    ? nextPublishAt(publishing.publish_time, publishing.time_zone, new Date(now.getTime() + PUBLISH_AT_MARGIN_MINUTES * MINUTE_MS))
    : null;
  return {
    snippet: {
      title: youtubeText(script.title).slice(0, 100),
      description: youtubeText(withHashtags(script.description, script.hashtags)).slice(0, 5000),
      tags: script.hashtags.map((h) => h.replace(/^#/, "")),
      categoryId: publishing.category_id,
      // YouTube takes BCP-47 language tags, the dimension's own.
      defaultLanguage: language,
      defaultAudioLanguage: publishing.default_audio_language ?? language,
    },
    status: {
      privacyStatus: publishAt ? "private" : publishing.privacy_status,
      selfDeclaredMadeForKids: publishing.made_for_kids,
      containsSyntheticMedia: publishing.contains_synthetic_media,
      ...(publishAt && { publishAt: publishAt.toISOString() }),
    },
  };
}

/** YouTube refuses `<` and `>` in titles and descriptions. */
function youtubeText(text: string): string {
  return text.replace(/[<>]/g, "");
}

/** Appends the hashtags the description does not already carry. */
export function withHashtags(description: string, hashtags: string[]): string {
  const missing = hashtags.filter((h) => !description.toLocaleLowerCase().includes(h.toLocaleLowerCase()));
  return missing.length === 0 ? description : `${description}\n\n${missing.join(" ")}`;
}

/**
 * The first instant strictly after `after` at which the wall clock in `timeZone` reads `time`
 * (`HH:MM`). A time a spring-forward day skips is that day's first instant past it (the end of the
 * gap: 02:30 in New York on its spring-forward day is 03:00 EDT); a time a fall-back day repeats is
 * its first occurrence.
 */
export function nextPublishAt(time: string, timeZone: string, after: Date): Date {
  const [hours, minutes] = time.split(":").map(Number) as [number, number];
  const start = localParts(after.getTime(), timeZone);
  // From the local day before `after` (a zone ahead of UTC) to two days on (a skipped day, as Samoa's in 2011).
  for (let day = -1; day <= 3; day += 1) {
    const target = Date.UTC(start.year, start.month - 1, start.day + day, hours, minutes);
    const instant = firstInstantAtOrPast(target, timeZone);
    if (instant > after.getTime()) return new Date(instant);
  }
  throw new Error(`no ${time} in ${timeZone} within three days of ${after.toISOString()}`);
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localParts(instant: number, timeZone: string): LocalParts {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), hour: Number(parts.hour), minute: Number(parts.minute) };
}

/** The wall-clock reading at `instant` as if it were UTC, in ms: comparable with a local target. */
function wallClock(instant: number, timeZone: string): number {
  const p = localParts(instant, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
}

/**
 * The first instant whose wall clock reads `target` (a local date and time as UTC ms), or, when
 * the clock skips it, the first instant after the skip.
 */
function firstInstantAtOrPast(target: number, timeZone: string): number {
  // The zone's offsets a day either side: every instant reading `target` is target minus one of them.
  const offsets = [...new Set([target - DAY_MS, target, target + DAY_MS].map((t) => wallClock(t, timeZone) - t))];
  const readings = offsets.map((offset) => target - offset).filter((instant) => wallClock(instant, timeZone) === target).sort((a, b) => a - b);
  if (readings.length > 0) return readings[0]!;
  // Skipped: between the instant that reads it with the later offset (before the gap) and the one
  // with the earlier offset (after it), the clock crosses `target` once; find that minute.
  let low = target - Math.max(...offsets);
  let high = target - Math.min(...offsets);
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / MINUTE_MS / 2) * MINUTE_MS;
    if (wallClock(middle, timeZone) >= target) high = middle;
    else low = middle;
  }
  return high;
}
