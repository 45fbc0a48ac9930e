/**
 * The YouTube emulator's admin routes (not part of YouTube's API; for tests, the demo and the soak):
 *
 *   GET  /_emulator/youtube/videos                    completed uploads, oldest first: [{id, title, channel, size_bytes,
 *                                                     sha256, path, uploaded_at, client_id, locked_private,
 *                                                     requested_status (the status part as asked), privacy_status
 *                                                     (as it reads now), requested_privacy_status, publish_at,
 *                                                     contains_synthetic_media, self_declared_made_for_kids,
 *                                                     category_id, default_language, default_audio_language,
 *                                                     processing_status ("processing"|"succeeded"), thumbnail
 *                                                     (null, or {path, sha256, size_bytes, mime_type, width,
 *                                                     height, set_at, applied})}]
 *   GET  /_emulator/youtube/usage                     each project's buckets for the current Pacific quota day and
 *                                                     each channel's rolling 24 hours (below)
 *   PUT  /_emulator/youtube/projects/<client_id>      {"insert_calls_per_day"?: n, "units_per_day"?: n, "stats_units_per_day"?: n}
 *                                                     -> {client_id, insert_calls_per_day, units_per_day, stats_units_per_day}
 *                                                     ("audited" is refused: since 2 Nov 2026 it changes nothing)
 *   PUT  /_emulator/youtube/channels/<channel>        {"uploads_per_24h"?: n, "processing_seconds"?: n,
 *                                                     "default_privacy"?: "public"|"private"|"unlisted" (the creator's
 *                                                     setting for uploads that name none), "locks_uploads_private"?: bool
 *                                                     (YouTube's decision), "custom_thumbnails"?: bool (false: a channel
 *                                                     that may not set them, thumbnails.set answers 403)} -> {channel,
 *                                                     channel_id, uploads_per_24h, processing_seconds, custom_thumbnails,
 *                                                     default_privacy, locks_uploads_private}
 *   POST /_emulator/youtube/channels/<channel>/outside-uploads   {"count": n, "at"?: "<ISO>"}
 *                                                     records n uploads made elsewhere (YouTube Studio, another
 *                                                     app) at `at` (default: now on the emulator clock) -> the
 *                                                     channel's usage entry
 *
 * The usage report: `{now, quota_day, next_reset, projects: [{client_id, insert: {used, limit,
 * remaining}, units: {...}, stats: {...} (videos.batchGetStats), next_reset}], channels: [{channel,
 * channel_id, uploads_24h, uploaded_here_24h, outside_24h, limit, processing_seconds,
 * custom_thumbnails, default_privacy, locks_uploads_private}]}`. A project is its OAuth client id; a
 * channel is the emulator's channel name (the part of the refresh token after `emulator-refresh-`,
 * `channel` in the videos listing). Settings hold until `POST /_emulator/reset`, which clears them
 * with the usage. Limits are whole numbers: buckets 0..100,000,000, a cap 0..100,000 (0: nothing
 * may be uploaded), processing 0..86,400 s; `count` 1..1000; `at` not in the future. Anything else is 400 with a message.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { channelIdFor } from "../google-oauth/routes.ts";
import { listedVideo } from "./metadata.ts";
import { PRIVACY_STATUSES, type PrivacyStatus, type ProjectSettings, type YouTubeRules } from "./rules.ts";
import { youtubeFor } from "./state.ts";

const PROJECT_ROUTE = /^\/_emulator\/youtube\/projects\/([^/]+)$/;
const CHANNEL_ROUTE = /^\/_emulator\/youtube\/channels\/([^/]+)(\/outside-uploads)?$/;
const CLIENT_ID = /^[A-Za-z0-9._-]{1,200}$/;
const CHANNEL = /^[A-Za-z0-9._-]{1,100}$/;
const MAX_BUCKET = 100_000_000;
const MAX_CAP = 100_000;
const MAX_OUTSIDE = 1000;
const MAX_PROCESSING_S = 86_400;
const CHANNEL_KEYS = ["uploads_per_24h", "processing_seconds", "default_privacy", "locks_uploads_private", "custom_thumbnails"] as const;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const badRequest = (error: string) => jsonResponse({ error }, 400);
const isWhole = (value: unknown, max: number): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max;

function decoded(segment: string, pattern: RegExp): string | undefined {
  try {
    const value = decodeURIComponent(segment);
    return pattern.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const PROJECT_KEYS = ["insert_calls_per_day", "units_per_day", "stats_units_per_day"] as const;

async function putProject(req: Request, clientId: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  if (body.audited !== undefined) {
    return badRequest(
      "audited is gone: since 2 Nov 2026 YouTube no longer locks an unverified project's uploads private. " +
        'Lock a channel\'s uploads with PUT /_emulator/youtube/channels/<channel> {"locks_uploads_private": true}',
    );
  }
  const extra = unknownKeys(body, [...PROJECT_KEYS]);
  if (extra) return badRequest(extra);
  const patch: Partial<ProjectSettings> = {};
  for (const key of PROJECT_KEYS) {
    if (body[key] === undefined) continue;
    if (!isWhole(body[key], MAX_BUCKET)) return badRequest(`${key} must be a whole number 0..${MAX_BUCKET}`);
    patch[key] = body[key] as number;
  }
  if (Object.keys(patch).length === 0) return badRequest(`give at least one of ${PROJECT_KEYS.join(", ")}`);
  const { rules } = await youtubeFor(ctx);
  return jsonResponse({ client_id: clientId, ...await rules.setProject(clientId, patch) });
}

async function putChannel(req: Request, channel: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, [...CHANNEL_KEYS]);
  if (extra) return badRequest(extra);
  const patch: Parameters<YouTubeRules["setChannel"]>[1] = {};
  if (body.uploads_per_24h !== undefined) {
    if (!isWhole(body.uploads_per_24h, MAX_CAP)) return badRequest(`uploads_per_24h must be a whole number 0..${MAX_CAP}`);
    patch.uploads_per_24h = body.uploads_per_24h;
  }
  if (body.processing_seconds !== undefined) {
    if (!isWhole(body.processing_seconds, MAX_PROCESSING_S)) return badRequest(`processing_seconds must be a whole number 0..${MAX_PROCESSING_S}`);
    patch.processing_seconds = body.processing_seconds;
  }
  if (body.default_privacy !== undefined) {
    if (!(PRIVACY_STATUSES as readonly unknown[]).includes(body.default_privacy)) {
      return badRequest(`default_privacy must be one of ${PRIVACY_STATUSES.join(", ")}`);
    }
    patch.default_privacy = body.default_privacy as PrivacyStatus;
  }
  for (const key of ["locks_uploads_private", "custom_thumbnails"] as const) {
    if (body[key] === undefined) continue;
    if (typeof body[key] !== "boolean") return badRequest(`${key} must be true or false`);
    patch[key] = body[key];
  }
  if (Object.keys(patch).length === 0) return badRequest(`give at least one of ${CHANNEL_KEYS.join(", ")}`);
  const { rules } = await youtubeFor(ctx);
  await rules.setChannel(channel, patch);
  return jsonResponse({
    channel,
    channel_id: channelIdFor(channel),
    uploads_per_24h: rules.channelCap(channel),
    processing_seconds: rules.processingSeconds(channel),
    custom_thumbnails: rules.customThumbnails(channel),
    ...rules.channelPrivacy(channel),
  });
}

async function postOutsideUploads(req: Request, channel: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["count", "at"]);
  if (extra) return badRequest(extra);
  if (!isWhole(body.count, MAX_OUTSIDE) || body.count < 1) return badRequest(`count must be a whole number 1..${MAX_OUTSIDE}`);
  const now = ctx.clock.now();
  let at = now;
  if (body.at !== undefined) {
    if (typeof body.at !== "string" || !ISO_INSTANT.test(body.at) || Number.isNaN(Date.parse(body.at))) {
      return badRequest("at must be an ISO 8601 instant with a time zone, e.g. 2026-03-08T09:30:00Z");
    }
    at = Date.parse(body.at);
    if (at > now) return badRequest(`at must not be in the future (the emulator clock reads ${new Date(now).toISOString()})`);
  }
  const { rules } = await youtubeFor(ctx);
  await rules.recordOutsideUploads(channel, body.count, at);
  const entry = rules.usage(now, channelIdFor).channels.find((c) => c.channel === channel);
  return jsonResponse(entry);
}

export async function handleYouTubeAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const { pathname } = url;
  if (pathname === "/_emulator/youtube/videos" || pathname === "/_emulator/youtube/usage") {
    if (req.method !== "GET") return jsonResponse({ error: `use GET on ${pathname}` }, 405);
    const { store, rules } = await youtubeFor(ctx);
    const now = ctx.clock.now();
    if (pathname === "/_emulator/youtube/usage") return jsonResponse(rules.usage(now, channelIdFor));
    return jsonResponse((await store.listVideos()).map((record) => listedVideo(record, now, rules.processingDone(record, now))));
  }
  const project = PROJECT_ROUTE.exec(pathname);
  if (project) {
    if (req.method !== "PUT") return jsonResponse({ error: `use PUT on ${pathname}` }, 405);
    const clientId = decoded(project[1]!, CLIENT_ID);
    if (!clientId) return badRequest("the client id must be 1..200 letters, digits, '.', '_' or '-'");
    return await putProject(req, clientId, ctx);
  }
  const channel = CHANNEL_ROUTE.exec(pathname);
  if (channel) {
    const name = decoded(channel[1]!, CHANNEL);
    const outside = channel[2] !== undefined;
    if (req.method !== (outside ? "POST" : "PUT")) return jsonResponse({ error: `use ${outside ? "POST" : "PUT"} on ${pathname}` }, 405);
    if (!name) return badRequest("the channel must be 1..100 letters, digits, '.', '_' or '-' (its name, as in the videos listing)");
    return outside ? await postOutsideUploads(req, name, ctx) : await putChannel(req, name, ctx);
  }
  return undefined;
}
