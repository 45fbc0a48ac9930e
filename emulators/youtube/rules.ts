/**
 * YouTube's quota and upload-cap rules, as the emulator keeps them (mirrored to
 * `<data dir>/youtube/rules.json`, so a restarted emulator remembers what was spent):
 *
 * - Quota belongs to the Google Cloud project, which is the OAuth client whose access token made
 *   the call. Each project has two buckets per Pacific day (pacific-day.ts): `videos.insert` calls
 *   (default 100, one per upload started) and units for every other Data API call (default 10,000;
 *   COSTS below). A call that does not fit what is left is refused and costs nothing.
 * - Each channel may upload at most its cap (default 15; YouTube publishes no number) in any rolling
 *   24 hours, counting the uploads completed here and those recorded as made elsewhere. An upload
 *   counts from the moment its last byte arrives: starts still in flight are not counted, so
 *   several started together may all complete past the cap.
 * - A project is audited unless marked otherwise; an unaudited project's uploads are locked private.
 *
 * Times are the emulator clock's (clock/clock.ts).
 */
import path from "node:path";
import { StateFile } from "../state-file.ts";
import { nextPacificMidnight, pacificDay } from "./pacific-day.ts";
import { DAY_MS } from "../../shared/time.ts";

/** Units each Data API call the emulator serves costs (videos.insert has a bucket of its own). */
export const COSTS = { "channels.list": 1, "videos.list": 1, "videos.update": 50, "videoCategories.list": 1 } as const;
export type ApiMethod = keyof typeof COSTS;

export interface YouTubeLimits {
  /** `videos.insert` calls a project may make per Pacific day. */
  insertCallsPerDay: number;
  /** Units a project may spend per Pacific day on every other call. */
  unitsPerDay: number;
  /** Uploads a channel may make in any rolling 24 hours. */
  channelUploadsPer24h: number;
}

export const DEFAULT_LIMITS: YouTubeLimits = { insertCallsPerDay: 100, unitsPerDay: 10_000, channelUploadsPer24h: 15 };

/** Upload times kept per channel: far more than any cap, so the 24-hour count stays exact. */
const MAX_UPLOAD_TIMES = 10_000;
/** Quota days kept per project: enough for a clock moved back a few days to find what was spent. */
const MAX_USAGE_DAYS = 14;

export interface ProjectSettings {
  insert_calls_per_day: number;
  units_per_day: number;
  audited: boolean;
}

interface DayUsage {
  insert: number;
  units: number;
}

interface ChannelState {
  uploads_per_24h?: number;
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

export type Bucket = "insert" | "units";

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
      audited: set.audited ?? true,
    };
  }

  async setProject(clientId: string, patch: Partial<ProjectSettings>): Promise<ProjectSettings> {
    this.#projects.set(clientId, { ...this.#projects.get(clientId), ...patch });
    await this.#save();
    return this.project(clientId);
  }

  /** What the project spent on the quota day holding `now`. */
  used(clientId: string, now: number): DayUsage {
    return { ...(this.#usage.get(clientId)?.get(pacificDay(now)) ?? { insert: 0, units: 0 }) };
  }

  /** Charges `cost` to the project's bucket when it fits what is left today; false (and nothing charged) when not. */
  async charge(clientId: string, bucket: Bucket, cost: number, now: number): Promise<boolean> {
    const settings = this.project(clientId);
    const limit = bucket === "insert" ? settings.insert_calls_per_day : settings.units_per_day;
    const day = pacificDay(now);
    const days = this.#usage.get(clientId) ?? new Map<string, DayUsage>();
    const usage = days.get(day) ?? { insert: 0, units: 0 };
    if (usage[bucket] + cost > limit) return false;
    usage[bucket] += cost;
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

  async setChannelCap(name: string, uploadsPer24h: number): Promise<void> {
    this.#channel(name).uploads_per_24h = uploadsPer24h;
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
          audited: settings.audited,
          insert: { used: used.insert, limit: settings.insert_calls_per_day, remaining: Math.max(0, settings.insert_calls_per_day - used.insert) },
          units: { used: used.units, limit: settings.units_per_day, remaining: Math.max(0, settings.units_per_day - used.units) },
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
