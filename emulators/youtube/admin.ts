/**
 * The YouTube emulator's admin routes (not part of YouTube's API; for tests, the demo and the soak):
 *
 *   GET  /_emulator/youtube/videos                    completed uploads, oldest first: [{id, title, channel, size_bytes,
 *                                                     sha256, path, uploaded_at, client_id, locked_private,
 *                                                     requested_status (the status part as asked), privacy_status
 *                                                     (as it reads now), requested_privacy_status, publish_at,
 *                                                     contains_synthetic_media, self_declared_made_for_kids,
 *                                                     category_id, default_language, default_audio_language}]
 *   GET  /_emulator/youtube/usage                     each project's buckets for the current Pacific quota day and
 *                                                     each channel's rolling 24 hours (below)
 *   PUT  /_emulator/youtube/projects/<client_id>      {"insert_calls_per_day"?: n, "units_per_day"?: n, "audited"?: bool}
 *                                                     -> {client_id, insert_calls_per_day, units_per_day, audited}
 *   PUT  /_emulator/youtube/channels/<channel>        {"uploads_per_24h": n} -> {channel, channel_id, uploads_per_24h}
 *   POST /_emulator/youtube/channels/<channel>/outside-uploads   {"count": n, "at"?: "<ISO>"}
 *                                                     records n uploads made elsewhere (YouTube Studio, another
 *                                                     app) at `at` (default: now on the emulator clock) -> the
 *                                                     channel's usage entry
 *
 * The usage report: `{now, quota_day, next_reset, projects: [{client_id, audited, insert: {used, limit,
 * remaining}, units: {used, limit, remaining}, next_reset}], channels: [{channel, channel_id,
 * uploads_24h, uploaded_here_24h, outside_24h, limit}]}`. A project is its OAuth client id; a
 * channel is the emulator's channel name (the part of the refresh token after `emulator-refresh-`,
 * `channel` in the videos listing). Settings hold until `POST /_emulator/reset`, which clears them
 * with the usage. Limits are whole numbers: buckets 0..100,000,000, a cap 0..100,000 (0: nothing
 * may be uploaded); `count` 1..1000; `at` not in the future. Anything else is 400 with a message.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { channelIdFor } from "../google-oauth/routes.ts";
import { listedVideo } from "./metadata.ts";
import type { ProjectSettings } from "./rules.ts";
import { youtubeFor } from "./state.ts";

const PROJECT_ROUTE = /^\/_emulator\/youtube\/projects\/([^/]+)$/;
const CHANNEL_ROUTE = /^\/_emulator\/youtube\/channels\/([^/]+)(\/outside-uploads)?$/;
const CLIENT_ID = /^[A-Za-z0-9._-]{1,200}$/;
const CHANNEL = /^[A-Za-z0-9._-]{1,100}$/;
const MAX_BUCKET = 100_000_000;
const MAX_CAP = 100_000;
const MAX_OUTSIDE = 1000;
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

async function putProject(req: Request, clientId: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["insert_calls_per_day", "units_per_day", "audited"]);
  if (extra) return badRequest(extra);
  const patch: Partial<ProjectSettings> = {};
  for (const key of ["insert_calls_per_day", "units_per_day"] as const) {
    if (body[key] === undefined) continue;
    if (!isWhole(body[key], MAX_BUCKET)) return badRequest(`${key} must be a whole number 0..${MAX_BUCKET}`);
    patch[key] = body[key] as number;
  }
  if (body.audited !== undefined) {
    if (typeof body.audited !== "boolean") return badRequest("audited must be true or false");
    patch.audited = body.audited;
  }
  if (Object.keys(patch).length === 0) return badRequest("give at least one of insert_calls_per_day, units_per_day, audited");
  const { rules } = await youtubeFor(ctx);
  return jsonResponse({ client_id: clientId, ...await rules.setProject(clientId, patch) });
}

async function putChannel(req: Request, channel: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["uploads_per_24h"]);
  if (extra) return badRequest(extra);
  if (!isWhole(body.uploads_per_24h, MAX_CAP)) return badRequest(`uploads_per_24h must be a whole number 0..${MAX_CAP}`);
  const { rules } = await youtubeFor(ctx);
  await rules.setChannelCap(channel, body.uploads_per_24h);
  return jsonResponse({ channel, channel_id: channelIdFor(channel), uploads_per_24h: rules.channelCap(channel) });
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
    return jsonResponse((await store.listVideos()).map((record) => listedVideo(record, now)));
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
