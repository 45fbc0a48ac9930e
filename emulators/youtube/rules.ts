/**
 * YouTube's quota and upload-cap rules, as the emulator keeps them (mirrored to
 * `<data dir>/youtube/rules.json`, so a restarted emulator remembers what was spent):
 *
 * - Quota belongs to the Google Cloud project, which is the OAuth client whose access token made
 *   the call. Each project has three buckets per Pacific day (pacific-day.ts): `videos.insert` calls
 *   (default 100, one per upload started), `videos.batchGetStats` units (default 10,000, a bucket of
 *   its own since 3 Jun 2026) and units for every other Data API call (default 10,000). COSTS below
 *   names each call's bucket and cost. A call that does not fit what is left is refused and costs nothing.
 * - Each channel may upload at most its cap (default 15; YouTube publishes no number) in any rolling
 *   24 hours, counting the uploads completed here and those recorded as made elsewhere. An upload
 *   counts from the moment its last byte arrives: starts still in flight are not counted, so
 *   several started together may all complete past the cap.
 * - Since 2 Nov 2026 an API project's uploads are no longer locked private until it passes YouTube's
 *   audit: a video reads as its upload asked, public when the upload named no privacy. What can still
 *   make it private is the channel's: the creator's account setting (`default_privacy`, for an upload
 *   that names none) or YouTube's decision about the channel (`locks_uploads_private`: every upload
 *   reads private whatever was asked).
 * - An upload's processing succeeds `processing_seconds` after its last byte (default 20 s, per
 *   channel): videos.list's processingDetails say so, and a Short's thumbnail set before then is
 *   not applied.
 *
 * Times are the emulator clock's (clock/clock.ts).
 */
import path from "node:path";
import { StateFile } from "../state-file.ts";
import { nextPacificMidnight, pacificDay } from "./pacific-day.ts";
import { DAY_MS } from "../../shared/time.ts";

/** Each Data API call the emulator serves: its bucket and cost (videos.insert takes one call of the insert bucket). */
export const COSTS = {
  "channels.list": { bucket: "units", cost: 1 },
  "videos.list": { bucket: "units", cost: 1 },
  "videos.update": { bucket: "units", cost: 50 },
  "videoCategories.list": { bucket: "units", cost: 1 },
  "thumbnails.set": { bucket: "units", cost: 50 },
  "videos.batchGetStats": { bucket: "stats", cost: 1 },
} as const satisfies Record<string, { bucket: Bucket; cost: number }>;
export type ApiMethod = keyof typeof COSTS;

export interface YouTubeLimits {
  /** `videos.insert` calls a project may make per Pacific day. */
  insertCallsPerDay: number;
  /** Units a project may spend per Pacific day on every other call. */
  unitsPerDay: number;
  /** Units a project may spend per Pacific day on `videos.batchGetStats`. */
  statsUnitsPerDay: number;
  /** Uploads a channel may make in any rolling 24 hours. */
  channelUploadsPer24h: number;
}

export const DEFAULT_LIMITS: YouTubeLimits = { insertCallsPerDay: 100, unitsPerDay: 10_000, statsUnitsPerDay: 10_000, channelUploadsPer24h: 15 };

/** Upload times kept per channel: far more than any cap, so the 24-hour count stays exact. */
const MAX_UPLOAD_TIMES = 10_000;
/** Quota days kept per project: enough for a clock moved back a few days to find what was spent. */
const MAX_USAGE_DAYS = 14;

export interface ProjectSettings {
  insert_calls_per_day: number;
  units_per_day: number;
  stats_units_per_day: number;
}

interface DayUsage {
  insert: number;
  units: number;
  stats?: number;
}

export const PRIVACY_STATUSES = ["public", "private", "unlisted"] as const;
export type PrivacyStatus = (typeof PRIVACY_STATUSES)[number];

/** What the channel's owner or YouTube decided about its uploads' privacy. */
export interface ChannelPrivacy {
  /** The creator's account setting: the privacy of an upload that names none. */
  default_privacy: PrivacyStatus;
  /** YouTube's decision about the channel: every upload reads private, whatever was asked. */
  locks_uploads_private: boolean;
}

/** How long YouTube takes to process an upload, unless the channel's setting says otherwise. */
export const DEFAULT_PROCESSING_SECONDS = 20;

interface ChannelState extends Partial<ChannelPrivacy> {
  uploads_per_24h?: number;
  processing_seconds?: number;
  /** False for a channel that may not set custom thumbnails (YouTube asks a verified phone first). */
  custom_thumbnails?: boolean;
  /** Completed uploads on this emulator, epoch ms. */
  uploads: number[];
  /** Uploads recorded as made elsewhere (YouTube Studio, another app), epoch ms. */
  outside: number[];
}

interface SavedRules {
  projects: Array<[string, Partial<ProjectSettings>]>;
  usage: Array<[string, Array<[string, DayUsage]>]>;
  channels: Array<[string, ChannelState]>;
}

export type Bucket = "insert" | "units" | "stats";

export class YouTubeRules {
  #projects = new Map<string, Partial<ProjectSettings>>();
  #usage = new Map<string, Map<string, DayUsage>>();
  #channels = new Map<string, ChannelState>();
  readonly #state: StateFile<SavedRules>;

  constructor(dataDir: string, readonly limits: YouTubeLimits = DEFAULT_LIMITS) {
    this.#state = new StateFile(path.join(dataDir, "youtube", "rules.json"));
  }

  async load(): Promise<void> {
    const saved = await this.#state.read();
    if (saved === undefined) return;
    this.#projects = new Map(saved.projects ?? []);
    this.#usage = new Map((saved.usage ?? []).map(([client, days]) => [client, new Map(days)]));
    this.#channels = new Map(saved.channels ?? []);
  }

  project(clientId: string): ProjectSettings {
    const set = this.#projects.get(clientId) ?? {};
    return {
      insert_calls_per_day: set.insert_calls_per_day ?? this.limits.insertCallsPerDay,
      units_per_day: set.units_per_day ?? this.limits.unitsPerDay,
      stats_units_per_day: set.stats_units_per_day ?? this.limits.statsUnitsPerDay,
    };
  }

  async setProject(clientId: string, patch: Partial<ProjectSettings>): Promise<ProjectSettings> {
    this.#projects.set(clientId, { ...this.#projects.get(clientId), ...patch });
    await this.#save();
    return this.project(clientId);
  }

  /** What the project spent on the quota day holding `now`. */
  used(clientId: string, now: number): DayUsage {
    const usage = this.#usage.get(clientId)?.get(pacificDay(now));
    return { insert: usage?.insert ?? 0, units: usage?.units ?? 0, stats: usage?.stats ?? 0 };
  }

  /** Charges `cost` to the project's bucket when it fits what is left today; false (and nothing charged) when not. */
  async charge(clientId: string, bucket: Bucket, cost: number, now: number): Promise<boolean> {
    const settings = this.project(clientId);
    const limit = bucket === "insert" ? settings.insert_calls_per_day : bucket === "stats" ? settings.stats_units_per_day : settings.units_per_day;
    const day = pacificDay(now);
    const days = this.#usage.get(clientId) ?? new Map<string, DayUsage>();
    const usage = days.get(day) ?? { insert: 0, units: 0 };
    if ((usage[bucket] ?? 0) + cost > limit) return false;
    usage[bucket] = (usage[bucket] ?? 0) + cost;
    days.set(day, usage);
    while (days.size > MAX_USAGE_DAYS) days.delete(days.keys().next().value!);
    this.#usage.set(clientId, days);
    await this.#save();
    return true;
  }

  #channel(name: string): ChannelState {
    let state = this.#channels.get(name);
    if (!state) this.#channels.set(name, state = { uploads: [], outside: [] });
    return state;
  }

  channelCap(name: string): number {
    return this.#channels.get(name)?.uploads_per_24h ?? this.limits.channelUploadsPer24h;
  }

  /** The channel's privacy settings (the creator's default, YouTube's lock), defaults where none was set. */
  channelPrivacy(name: string): ChannelPrivacy {
    const state = this.#channels.get(name);
    return { default_privacy: state?.default_privacy ?? "public", locks_uploads_private: state?.locks_uploads_private ?? false };
  }

  /** Seconds YouTube takes to process the channel's uploads, on the emulator clock. */
  processingSeconds(name: string): number {
    return this.#channels.get(name)?.processing_seconds ?? DEFAULT_PROCESSING_SECONDS;
  }

  /** Whether the video's processing has succeeded by `now` (its upload time plus its channel's processing time). */
  processingDone(video: { channel: string; uploaded_at: string }, now: number): boolean {
    return now >= Date.parse(video.uploaded_at) + this.processingSeconds(video.channel) * 1000;
  }

  /** Whether the channel may set custom thumbnails (true unless set otherwise). */
  customThumbnails(name: string): boolean {
    return this.#channels.get(name)?.custom_thumbnails ?? true;
  }

  async setChannel(
    name: string,
    patch: { uploads_per_24h?: number; processing_seconds?: number; custom_thumbnails?: boolean } & Partial<ChannelPrivacy>,
  ): Promise<void> {
    Object.assign(this.#channel(name), patch);
    await this.#save();
  }

  /** Uploads of the channel in the 24 hours up to `now`: here, elsewhere, and in all. */
  uploadsInWindow(name: string, now: number): { here: number; outside: number; total: number } {
    const state = this.#channels.get(name);
    const inWindow = (times: number[] | undefined) => (times ?? []).filter((t) => t > now - DAY_MS && t <= now).length;
    const here = inWindow(state?.uploads);
    const outside = inWindow(state?.outside);
    return { here, outside, total: here + outside };
  }

  async recordUpload(name: string, at: number): Promise<void> {
    const state = this.#channel(name);
    state.uploads = [...state.uploads, at].slice(-MAX_UPLOAD_TIMES);
    await this.#save();
  }

  async recordOutsideUploads(name: string, count: number, at: number): Promise<void> {
    const state = this.#channel(name);
    state.outside = [...state.outside, ...Array<number>(count).fill(at)].slice(-MAX_UPLOAD_TIMES);
    await this.#save();
  }

  /** Each project's buckets for the quota day holding `now`, and each channel's last 24 hours. */
  usage(now: number, channelId: (name: string) => string) {
    const nextReset = new Date(nextPacificMidnight(now)).toISOString();
    const clients = [...new Set([...this.#projects.keys(), ...this.#usage.keys()])].sort();
    return {
      now: new Date(now).toISOString(),
      quota_day: pacificDay(now),
      next_reset: nextReset,
      projects: clients.map((client) => {
        const settings = this.project(client);
        const used = this.used(client, now);
        return {
          client_id: client,
          insert: { used: used.insert, limit: settings.insert_calls_per_day, remaining: Math.max(0, settings.insert_calls_per_day - used.insert) },
          units: { used: used.units, limit: settings.units_per_day, remaining: Math.max(0, settings.units_per_day - used.units) },
          stats: { used: used.stats!, limit: settings.stats_units_per_day, remaining: Math.max(0, settings.stats_units_per_day - used.stats!) },
          next_reset: nextReset,
        };
      }),
      channels: [...this.#channels.keys()].sort().map((name) => {
        const counts = this.uploadsInWindow(name, now);
        return {
          channel: name,
          channel_id: channelId(name),
          uploads_24h: counts.total,
          uploaded_here_24h: counts.here,
          outside_24h: counts.outside,
          limit: this.channelCap(name),
          processing_seconds: this.processingSeconds(name),
          custom_thumbnails: this.customThumbnails(name),
          ...this.channelPrivacy(name),
        };
      }),
    };
  }

  async reset(): Promise<void> {
    this.#projects.clear();
    this.#usage.clear();
    this.#channels.clear();
    await this.#state.settled();
  }

  /** Writes the whole state, one write at a time, each whole then renamed. */
  #save(): Promise<void> {
    return this.#state.write(() => ({
      projects: [...this.#projects],
      usage: [...this.#usage].map(([client, days]) => [client, [...days]]),
      channels: [...this.#channels],
    }));
  }
}
