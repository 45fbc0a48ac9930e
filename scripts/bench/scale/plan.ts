/**
 * The scale bench's dimensions, drawn from a seed: several languages (each with its trend geo and
 * voices), time zones of those geos, production start times spread over the engine day, and a
 * burst that is due in the same minute. Pure: the bench creates what this plans.
 *
 * Each dimension's `due_minute` is the minute of the engine day (0..1439 after `dayStart`, a UTC
 * midnight) at which its production starts; its `run_time` is that moment read in its time zone,
 * so `mdame.trigger_due_runs` finds it due exactly then (the dimensions are dated from the day's
 * start, so a local start that fell before it is not made up at once: see the bench's setup).
 */
import { seededRandom } from "../../soak/plan.ts";

/** A language the emulators speak end to end: Gemini's script templates, espeak-ng, a trend geo. */
export interface ScaleLanguage {
  language: string;
  trend_geo: string;
  voices: readonly string[];
  zones: readonly string[];
}

export const SCALE_LANGUAGES: readonly ScaleLanguage[] = [
  {
    language: "en-US",
    trend_geo: "US",
    voices: ["en-US-AriaNeural", "en-US-GuyNeural"],
    zones: ["America/New_York", "America/Chicago", "America/Los_Angeles"],
  },
  { language: "id-ID", trend_geo: "ID", voices: ["id-ID-GadisNeural", "id-ID-ArdiNeural"], zones: ["Asia/Jakarta", "Asia/Makassar"] },
  { language: "ru-RU", trend_geo: "RU", voices: ["ru-RU-SvetlanaNeural", "ru-RU-DmitryNeural"], zones: ["Europe/Moscow", "Asia/Yekaterinburg"] },
];

export const MINUTES_PER_DAY = 1440;

/** Share of the dimensions due in the burst minute (at least one when there are two or more). */
export const BURST_SHARE = 0.1;

export interface ScaleDimension {
  id: string;
  display_name: string;
  language: string;
  trend_geo: string;
  tts_voice: string;
  time_zone: string;
  /** HH:MM in time_zone: when its day's production starts (publishing.run_time). */
  run_time: string;
  /** Minutes after the engine day's start at which it is due. */
  due_minute: number;
  burst: boolean;
  /** Topic words for its feed and subject. */
  keyword: string;
}

export interface ScalePlan {
  seed: number;
  /** The engine day's start, a UTC midnight (ISO). */
  day_start: string;
  burst_minute: number;
  dimensions: ScaleDimension[];
}

const KEYWORDS = [
  "ocean",
  "galaxy",
  "volcano",
  "migration",
  "battery",
  "robot",
  "bridge",
  "crystal",
  "storm",
  "pyramid",
  "glacier",
  "comet",
  "reef",
  "turbine",
  "drone",
  "tunnel",
  "enzyme",
  "hurricane",
  "manuscript",
  "telescope",
];

/** The local wall time (HH:MM) of `at` in `zone`. */
export function localTime(at: Date, zone: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part("hour")}:${part("minute")}`;
}

/**
 * Due minutes for `count` dimensions: `burst` of them in `burstMinute`, the others spread evenly
 * over the day (one every 1440/(count-burst) minutes, from a seeded phase), in dimension order.
 */
export function dueMinutes(count: number, burst: number, burstMinute: number, phase: number): number[] {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a whole number >= 1, got ${count}`);
  if (!Number.isInteger(burst) || burst < 0 || burst > count) throw new RangeError(`burst must be from 0 to ${count}, got ${burst}`);
  const spread = count - burst;
  const step = MINUTES_PER_DAY / Math.max(1, spread);
  const minutes: number[] = [];
  for (let i = 0; i < spread; i++) minutes.push(Math.floor((phase + i * step) % MINUTES_PER_DAY));
  for (let i = 0; i < burst; i++) minutes.push(burstMinute);
  return minutes;
}

export function burstSize(count: number): number {
  return count < 2 ? 0 : Math.max(1, Math.round(count * BURST_SHARE));
}

/**
 * The bench's dimensions for the engine day starting at `dayStart` (a UTC midnight). The burst
 * falls in the day's first quarter-to-half, where the spread dimensions are already running.
 */
export function planScaleDimensions(count: number, seed: number, dayStart: Date): ScalePlan {
  if (dayStart.getTime() % 86_400_000 !== 0) throw new RangeError(`the engine day starts at a UTC midnight, got ${dayStart.toISOString()}`);
  const random = seededRandom(seed);
  const burst = burstSize(count);
  const burstMinute = MINUTES_PER_DAY / 4 + Math.floor(random() * (MINUTES_PER_DAY / 4));
  const minutes = dueMinutes(count, burst, burstMinute, Math.floor(random() * Math.max(1, MINUTES_PER_DAY / Math.max(1, count - burst))));
  const width = String(count).length;
  const dimensions = minutes.map((dueMinute, i): ScaleDimension => {
    const lang = SCALE_LANGUAGES[i % SCALE_LANGUAGES.length]!;
    const zone = lang.zones[Math.floor(random() * lang.zones.length)]!;
    const keyword = KEYWORDS[Math.floor(random() * KEYWORDS.length)]!;
    const number = String(i + 1).padStart(width, "0");
    return {
      id: `scale-${number}`,
      display_name: `Scale ${number} ${keyword}`,
      language: lang.language,
      trend_geo: lang.trend_geo,
      tts_voice: lang.voices[Math.floor(random() * lang.voices.length)]!,
      time_zone: zone,
      run_time: localTime(new Date(dayStart.getTime() + dueMinute * 60_000), zone),
      due_minute: dueMinute,
      burst: i >= count - burst,
      keyword,
    };
  });
  return { seed, day_start: dayStart.toISOString(), burst_minute: burstMinute, dimensions };
}

/** Units offered per wall minute: one a dimension, over a day compressed into `dayMinutes`. */
export function offeredLoad(count: number, dayMinutes: number): number {
  return count / dayMinutes;
}
