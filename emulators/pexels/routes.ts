/**
 * The Pexels API's video search and file download, as documented:
 *
 *   GET /videos/search?query=&orientation=&size=&per_page=&page=   key in the `Authorization` header
 *   GET /video-files/{video_id}/{file_id}_{w}_{h}_{fps}fps.mp4       the rendition (no key, as Pexels' CDN)
 *
 * Answers carry `X-Ratelimit-Limit`, `X-Ratelimit-Remaining` and `X-Ratelimit-Reset` (unix
 * seconds). Results are deterministic from the query: six videos, each with renditions from SD to
 * UHD (one with none at 1080 wide, one landscape-only), page URLs whose slug names the query and a
 * theme. Files are MP4s drawn by FFmpeg showing the query's words. A missing key, or a wrong one
 * when the emulator was given its key (`EmulatorOptions.pexelsApiKey`), answers 401.
 *
 * Faults (this service's own, as the shared fault book lists other services):
 *   POST /_emulator/pexels/faults {kind: "rate_limited" | "unavailable", count}
 * `rate_limited` answers 429 with `X-Ratelimit-Remaining: 0`; `unavailable` answers 503.
 */
import { createHash } from "node:crypto";
import process from "node:process";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { drawMp4 } from "../media-draw.ts";

const LIMIT = 20_000;
const THEMES = ["close-up", "aerial-view", "slow-motion", "casino-lights", "city-at-night", "in-nature"];
const FILE_ROUTE = /^\/video-files\/(\d{1,12})\/(\d{1,12})_(\d{2,4})_(\d{2,4})_(\d{2})fps\.mp4$/;

interface PexelsState {
  used: number;
  faults: Array<{ kind: "rate_limited" | "unavailable"; remaining: number }>;
}
const STATES = new WeakMap<EmulatorContext, PexelsState>();
function state(ctx: EmulatorContext): PexelsState {
  let s = STATES.get(ctx);
  if (!s) STATES.set(ctx, s = { used: 0, faults: [] });
  return s;
}

const resetAt = () => Math.floor(Date.now() / 1000 / 3600 + 1) * 3600;

function rateHeaders(s: PexelsState, remaining = Math.max(0, LIMIT - s.used)): Record<string, string> {
  return { "X-Ratelimit-Limit": String(LIMIT), "X-Ratelimit-Remaining": String(remaining), "X-Ratelimit-Reset": String(resetAt()) };
}

const slugify = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "video";

interface Rendition {
  quality: string;
  width: number;
  height: number;
  fps: number;
}

/** The renditions of the k-th result: mostly portrait SD..UHD; #2 tops out at 720, #4 is landscape. */
function renditions(k: number): Rendition[] {
  if (k === 2) return [{ quality: "sd", width: 360, height: 640, fps: 25 }, { quality: "hd", width: 720, height: 1280, fps: 25 }];
  if (k === 4) return [{ quality: "hd", width: 1280, height: 720, fps: 25 }, { quality: "hd", width: 1920, height: 1080, fps: 25 }];
  return [
    { quality: "uhd", width: 2160, height: 3840, fps: 25 },
    { quality: "sd", width: 360, height: 640, fps: 25 },
    { quality: "hd", width: 1080, height: 1920, fps: 25 },
    { quality: "hd", width: 720, height: 1280, fps: 25 },
  ];
}

/** The search answer for a query (pure). */
function searchResults(origin: string, query: string, perPage: number) {
  const digest = createHash("sha256").update(query.toLowerCase()).digest();
  const videos = Array.from({ length: Math.min(perPage, 6) }, (_, k) => {
    const id = 1_000_000 + digest.readUInt32BE(k * 4) % 9_000_000;
    const theme = THEMES[(digest[24 + k]! + k) % THEMES.length];
    const portrait = k !== 4;
    return {
      id,
      width: portrait ? 2160 : 1920,
      height: portrait ? 3840 : 1080,
      duration: 5 + (digest[k]! % 20),
      url: `${origin}/video/${slugify(`${query} ${theme}`)}-${id}/`,
      image: `${origin}/videos/${id}/pictures/preview-0.jpg`,
      user: { id: 100 + digest[k + 8]!, name: `Pexels Creator ${digest[k + 8]}`, url: `${origin}/@creator-${digest[k + 8]}` },
      video_files: renditions(k).map((r, i) => ({
        id: id * 10 + i,
        quality: r.quality,
        file_type: "video/mp4",
        width: r.width,
        height: r.height,
        fps: r.fps,
        link: `${origin}/video-files/${id}/${id * 10 + i}_${r.width}_${r.height}_${r.fps}fps.mp4?caption=${encodeURIComponent(query)}`,
      })),
      video_pictures: [{ id: id * 10, picture: `${origin}/videos/${id}/pictures/preview-0.jpg`, nr: 0 }],
    };
  });
  return { page: 1, per_page: perPage, total_results: videos.length, url: `${origin}/search/videos/${encodeURIComponent(query)}/`, videos };
}

export async function handlePexels(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const s = state(ctx);
  if (url.pathname === "/_emulator/pexels/faults" && req.method === "POST") {
    const body = await req.json().catch(() => null) as { kind?: unknown; count?: unknown } | null;
    const count = body?.count ?? 1;
    if ((body?.kind !== "rate_limited" && body?.kind !== "unavailable") || typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 1000) {
      return jsonResponse({ error: "body must be {kind: rate_limited | unavailable, count: 1..1000}" }, 400);
    }
    s.faults.push({ kind: body.kind, remaining: count });
    return jsonResponse({ armed: { service: "pexels", kind: body.kind, remaining: count } });
  }
  if (url.pathname === "/videos/search") {
    if (req.method !== "GET") return jsonResponse({ error: `Method ${req.method} not allowed` }, 405);
    const key = req.headers.get("authorization")?.trim() ?? "";
    const expected = ctx.pexelsApiKey;
    if (key === "" || (expected && key !== expected)) {
      return jsonResponse({ error: "Unauthorized: a valid API key is required in the Authorization header" }, 401);
    }
    const fault = s.faults[0];
    if (fault) {
      if (--fault.remaining <= 0) s.faults.shift();
      if (fault.kind === "rate_limited") {
        return jsonResponse({ error: "Too Many Requests: rate limit exceeded" }, 429, {
          ...rateHeaders(s, 0),
          "X-Ratelimit-Reset": String(Math.floor(Date.now() / 1000) + 60),
        });
      }
      return jsonResponse({ error: "Service Unavailable" }, 503);
    }
    const query = (url.searchParams.get("query") ?? "").trim();
    if (query === "") return jsonResponse({ error: "query is required" }, 400, rateHeaders(s));
    const perPage = Math.min(80, Math.max(1, Number.parseInt(url.searchParams.get("per_page") ?? "15", 10) || 15));
    s.used++;
    return jsonResponse(searchResults(url.origin, query.slice(0, 200), perPage), 200, rateHeaders(s));
  }
  const file = FILE_ROUTE.exec(url.pathname);
  if (file) {
    if (req.method !== "GET") return jsonResponse({ error: `Method ${req.method} not allowed` }, 405);
    const [, videoId, , w, h, fps] = file;
    const width = Number(w);
    const height = Number(h);
    if (width % 2 || height % 2 || width > 3840 || height > 3840) return jsonResponse({ error: "no such file" }, 404);
    const words = url.searchParams.get("caption") ?? `stock ${videoId}`;
    const mp4 = await drawMp4(ctx.dataDir, { seed: `pexels:${videoId}`, caption: words, width, height }, 3, Number(fps));
    return new Response(mp4, { headers: { "content-type": "video/mp4", "content-length": String(mp4.length) } });
  }
  return undefined;
}
