/**
 * The YouTube Analytics emulator's admin routes (not part of Google's API; for tests, the demo and
 * simulations):
 *
 *   GET /_emulator/youtube-analytics/queries          the reports answered, oldest first (the last 1000):
 *                                                     {queries: [{at, channel, client_id, video_id, start_date,
 *                                                     end_date, metrics, dimensions, status, rows}]}
 *   PUT /_emulator/youtube-analytics/videos/<id>      {"appeal"?: 0.1..10, "duration_s"?: 1..3600} -> {video_id,
 *                                                     appeal, duration_s}: the video's appeal (a multiplier on
 *                                                     retention, engagement and reach; 1 unless set) and its
 *                                                     length (measured from the upload unless set)
 *   GET|PUT /_emulator/youtube-analytics/settings     {"seed"?: text 1..100, "queries_per_day"?: 0..100000000}
 *                                                     -> {seed, queries_per_day, used: {"<client_id>/<Pacific day>": n}}
 *
 * Settings hold until `POST /_emulator/reset`. Anything else is 400 with a message.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { analyticsFor } from "./state.ts";

const BASE = "/_emulator/youtube-analytics";
const VIDEO_ROUTE = /^\/_emulator\/youtube-analytics\/videos\/([A-Za-z0-9_-]{1,64})$/;
const MAX_QUERIES_PER_DAY = 100_000_000;

const badRequest = (error: string) => jsonResponse({ error }, 400);
const inRange = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= min && value <= max;

function settings(ctx: EmulatorContext) {
  const state = analyticsFor(ctx);
  return { seed: state.seed, queries_per_day: state.queriesPerDay, used: Object.fromEntries(state.used) };
}

async function putSettings(req: Request, ctx: EmulatorContext): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["seed", "queries_per_day"]);
  if (extra) return badRequest(extra);
  if (body.seed === undefined && body.queries_per_day === undefined) return badRequest("give seed, queries_per_day or both");
  if (body.seed !== undefined && (typeof body.seed !== "string" || body.seed.length < 1 || body.seed.length > 100)) {
    return badRequest("seed must be text of 1..100 characters");
  }
  if (body.queries_per_day !== undefined && (!Number.isInteger(body.queries_per_day) || !inRange(body.queries_per_day, 0, MAX_QUERIES_PER_DAY))) {
    return badRequest(`queries_per_day must be a whole number 0..${MAX_QUERIES_PER_DAY}`);
  }
  const state = analyticsFor(ctx);
  if (body.seed !== undefined) state.seed = body.seed as string;
  if (body.queries_per_day !== undefined) state.queriesPerDay = body.queries_per_day as number;
  return jsonResponse(settings(ctx));
}

async function putVideo(req: Request, videoId: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["appeal", "duration_s"]);
  if (extra) return badRequest(extra);
  if (body.appeal === undefined && body.duration_s === undefined) return badRequest("give appeal, duration_s or both");
  if (body.appeal !== undefined && !inRange(body.appeal, 0.1, 10)) return badRequest("appeal must be a number 0.1..10");
  if (body.duration_s !== undefined && !inRange(body.duration_s, 1, 3600)) return badRequest("duration_s must be a number of seconds 1..3600");
  const state = analyticsFor(ctx);
  if (body.appeal !== undefined) state.appeal.set(videoId, body.appeal as number);
  if (body.duration_s !== undefined) state.durations.set(videoId, body.duration_s as number);
  return jsonResponse({ video_id: videoId, appeal: state.appeal.get(videoId) ?? 1, duration_s: state.durations.get(videoId) ?? null });
}

export async function handleAnalyticsAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const { pathname } = url;
  if (!pathname.startsWith(`${BASE}/`)) return undefined;
  if (pathname === `${BASE}/queries`) {
    if (req.method !== "GET") return jsonResponse({ error: `use GET on ${pathname}` }, 405);
    return jsonResponse({ queries: analyticsFor(ctx).queries });
  }
  if (pathname === `${BASE}/settings`) {
    if (req.method === "GET") return jsonResponse(settings(ctx));
    if (req.method === "PUT") return await putSettings(req, ctx);
    return jsonResponse({ error: `use GET or PUT on ${pathname}` }, 405);
  }
  const video = VIDEO_ROUTE.exec(pathname);
  if (video) {
    if (req.method !== "PUT") return jsonResponse({ error: `use PUT on ${pathname}` }, 405);
    return await putVideo(req, video[1]!, ctx);
  }
  if (pathname.startsWith(`${BASE}/videos/`)) return badRequest("a video id is 1..64 letters, digits, '-' or '_'");
  return undefined;
}
