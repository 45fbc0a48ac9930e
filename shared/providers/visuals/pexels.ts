/**
 * The Pexels API's video search (documented REST: `GET /videos/search`, key in `Authorization`),
 * spoken directly: the official JS client (`pexels`) has its endpoint built in and cannot be
 * pointed at another base URL. Pure parts (query, rendition choice, blocklist) are exported for tests.
 */
import { z } from "zod";
import { readCappedStream } from "../../http/capped-stream.ts";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";

const PROVIDER = "pexels";
export const PEXELS_LICENCE = "Pexels License";

/** The part of a search answer the engine reads; Pexels sends more fields, which are left alone. */
const VideoFile = z.object({
  id: z.number().int(),
  quality: z.string().nullable().optional(),
  file_type: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  fps: z.number().nullable().optional(),
  link: z.string().url(),
});
export type PexelsVideoFile = z.infer<typeof VideoFile>;

const Video = z.object({
  id: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  url: z.string().url(),
  duration: z.number(),
  user: z.object({ id: z.number().int(), name: z.string(), url: z.string().url() }),
  video_files: z.array(VideoFile),
});
export type PexelsVideo = z.infer<typeof Video>;

const PexelsSearchResponse = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  total_results: z.number().int(),
  videos: z.array(Video),
});
type PexelsSearchResponse = z.infer<typeof PexelsSearchResponse>;

/** Smallest width a rendition needs: the frame is cropped from it, never upscaled past 1080. */
const MIN_RENDITION_WIDTH = 1080;

const PROMPT_STOPWORDS = new Set([
  "vertical",
  "shot",
  "light",
  "lighting",
  "with",
  "showing",
  "close",
  "wide",
  "medium",
  "soft",
  "warm",
  "cool",
  "tones",
  "motion",
  "palette",
  "slow",
  "push",
  "smooth",
  "tracking",
  "overhead",
  "macro",
  "detail",
  "establishing",
  "against",
  "gentle",
  "diffused",
  "daylight",
  "moody",
  "evening",
  "morning",
  "golden",
  "hour",
  "high",
  "contrast",
  "studio",
  "shallow",
  "depth",
  "field",
  "angle",
  "silhouette",
  "drift",
  "pulse",
  "zoom",
]);

/** The search words of a scene: its planned keywords, else the subject words of its prompt. */
export function searchQuery(keywords: readonly string[], prompt: string): string {
  if (keywords.length > 0) return keywords.slice(0, 4).join(" ");
  const subject = prompt.includes("showing:") ? prompt.slice(prompt.lastIndexOf("showing:") + 8) : prompt;
  const words = subject.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4 && !PROMPT_STOPWORDS.has(w) && !/^\d/.test(w));
  return [...new Set(words)].slice(0, 3).join(" ");
}

/** `GET <base>/videos/search?...` for a query: portrait Full HD, a page of candidates. */
export function searchUrl(baseUrl: string, query: string, perPage = 15): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/videos/search`);
  url.searchParams.set("query", query);
  url.searchParams.set("orientation", "portrait");
  url.searchParams.set("size", "medium");
  url.searchParams.set("per_page", String(perPage));
  url.searchParams.set("page", "1");
  return url.toString();
}

/**
 * The rendition to download: an MP4 in portrait at least 1080 wide, the smallest such (the clip
 * is 720 wide: more pixels only cost download time), the higher frame rate on a tie. Null when
 * the video has none.
 */
export function pickRendition(files: readonly PexelsVideoFile[]): PexelsVideoFile | null {
  const fit = files.filter((f) => f.file_type === "video/mp4" && f.width !== null && f.height !== null && f.height > f.width && f.width >= MIN_RENDITION_WIDTH);
  fit.sort((a, b) => a.width! - b.width! || (b.fps ?? 0) - (a.fps ?? 0) || a.id - b.id);
  return fit[0] ?? null;
}

/**
 * Whether a dimension's blocklist rules a video out: an entry of digits is a video id, anything
 * else a term matched (case-insensitively, as whole words) against the video's page slug and
 * author and the search query.
 */
export function isBlocked(video: PexelsVideo, query: string, blocklist: readonly string[]): string | null {
  const slug = decodeURIComponent(new URL(video.url).pathname).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ");
  const text = ` ${slug} ${video.user.name.toLowerCase()} ${query.toLowerCase()} `;
  for (const entry of blocklist) {
    const term = entry.trim().toLowerCase();
    if (/^\d+$/.test(term)) {
      if (String(video.id) === term) return entry;
    } else if (text.includes(` ${term.replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `)) {
      return entry;
    }
  }
  return null;
}

/** The candidates a scene may use, in the search's order: not blocked, with a usable rendition. */
export function usableVideos(response: PexelsSearchResponse, query: string, blocklist: readonly string[]) {
  const usable: Array<{ video: PexelsVideo; file: PexelsVideoFile }> = [];
  const blocked: Array<{ id: number; entry: string }> = [];
  for (const video of response.videos) {
    const entry = isBlocked(video, query, blocklist);
    if (entry !== null) {
      blocked.push({ id: video.id, entry });
      continue;
    }
    const file = pickRendition(video.video_files);
    if (file) usable.push({ video, file });
  }
  return { usable, blocked };
}

/** Rate-limit headers Pexels sends on each answer. */
interface PexelsRateLimit {
  limit: number | null;
  remaining: number | null;
  /** Unix seconds when the quota resets. */
  reset: number | null;
}

function headerNumber(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  const n = value === null ? Number.NaN : Number(value);
  return Number.isFinite(n) ? n : null;
}

export class PexelsClient {
  private rateLimit: PexelsRateLimit = { limit: null, remaining: null, reset: null };

  constructor(private readonly options: { apiKey: string; baseUrl: string; timeoutMs?: number; fetch?: typeof fetch }) {}

  /** The quota as the last answer reported it. */
  get lastRateLimit(): PexelsRateLimit {
    return this.rateLimit;
  }

  async search(query: string, signal?: AbortSignal): Promise<PexelsSearchResponse> {
    // A quota known to be spent is not asked again before it resets: the answer would be a 429.
    const { remaining, reset } = this.rateLimit;
    if (remaining === 0 && reset !== null && reset * 1000 > Date.now()) {
      throw new ProviderUnavailableError(PROVIDER, `Pexels quota spent until ${new Date(reset * 1000).toISOString()}`, { status: 429 });
    }
    const response = await this.request(searchUrl(this.options.baseUrl, query), { Authorization: this.options.apiKey }, signal);
    this.rateLimit = {
      limit: headerNumber(response.headers, "x-ratelimit-limit"),
      remaining: headerNumber(response.headers, "x-ratelimit-remaining"),
      reset: headerNumber(response.headers, "x-ratelimit-reset"),
    };
    if (!response.ok) {
      const text = (await response.text().catch(() => "")).slice(0, 200);
      throw errorForStatus(PROVIDER, response.status, `Pexels search answered ${response.status}: ${text}`);
    }
    const body = await response.json().catch(() => null);
    const parsed = PexelsSearchResponse.safeParse(body);
    if (!parsed.success) throw new ProviderUnavailableError(PROVIDER, `Pexels search answer is not the documented shape: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  /** The rendition's bytes, refused past `maxBytes`. */
  async download(link: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
    const response = await this.request(link, {}, signal);
    if (!response.ok) throw errorForStatus(PROVIDER, response.status, `Pexels video download answered ${response.status}`);
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > maxBytes) throw new ProviderUnavailableError(PROVIDER, `Pexels video is ${declared} bytes, more than ${maxBytes}`);
    return await readCappedStream(response.body, maxBytes, () => new ProviderUnavailableError(PROVIDER, `Pexels video is more than ${maxBytes} bytes`));
  }

  private async request(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 60_000);
    try {
      return await (this.options.fetch ?? fetch)(url, { headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (error) {
      signal?.throwIfAborted();
      throw new ProviderUnavailableError(PROVIDER, `Pexels request failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}
