/**
 * TikTok's Display API `POST /v2/video/query/?fields=<list>` (open.tiktokapis.com), as TikTok
 * documents it: `Authorization: Bearer <access token>` whose grant holds `video.list`, a JSON body
 * `{filters: {video_ids: [...]}}` of up to 20 ids, answered `{data: {videos: [...], cursor,
 * has_more}, error: {code: "ok", message: "", log_id}}` (errors.ts).
 *
 * - `fields` (required): comma-separated names of the Video Object's fields: id, create_time,
 *   cover_image_url, share_url, video_description, duration, height, width, title, embed_html,
 *   embed_link, like_count, comment_count, share_count, view_count. Each video carries only those
 *   asked for; names outside the list are ignored (TikTok's own example asks `id,title,fps`).
 * - The videos are the token's user's posts that are PUBLISH_COMPLETE now (made by the Direct Post
 *   flow, publish.ts), whichever client posted them; a SELF_ONLY post is the user's too and is
 *   answered. An id TikTok reported as the post's id (`publicaly_available_post_id`, the admin
 *   listing's `post_id`) is the one video/query knows. Unknown ids, another user's posts, posts still
 *   processing or FAILED are absent, not refused. Videos come in the order asked, each once; every
 *   asked id fits in one answer, so `has_more` is false and `cursor` 0.
 * - The counts grow with the post's age on the emulator clock (figures.ts), or are what an admin
 *   pinned (admin.ts); `create_time` is when the post became PUBLISH_COMPLETE, in Unix seconds.
 * - Refusals: 401 `access_token_invalid`, 401 `scope_not_authorized` (no `video.list`), 429
 *   `rate_limit_exceeded` past 600 calls in a sliding minute (TikTok's default for this endpoint;
 *   counted per client and user, every token of the grant together), the `tiktok` faults of every
 *   API call (`rate_limited`, `http_503`, `internal_error`, `access_token_invalid`, `slow`), then
 *   400 `invalid_params`: `fields` missing or naming no known field, a body that is not
 *   `{filters: {video_ids: [1..20 strings]}}`.
 */
import type { EmulatorContext } from "../context.ts";
import { apiError, apiOk, invalidParams, rateLimitExceeded } from "./errors.ts";
import { postFigures } from "./figures.ts";
import { apiFault, readJsonBody, statusAt } from "./publish.ts";
import { authorizeCall } from "./state.ts";
import type { Publish, TikTokStore } from "./store.ts";

export const VIDEO_QUERY_PATH = "/v2/video/query/";
const RATE_LIMIT_PER_MINUTE = 600;
const MAX_VIDEO_IDS = 20;
/** title and video_description: "Max length: 150". */
const MAX_TEXT = 150;
const VIDEO_FIELDS = [
  "id",
  "create_time",
  "cover_image_url",
  "share_url",
  "video_description",
  "duration",
  "height",
  "width",
  "title",
  "embed_html",
  "embed_link",
  "like_count",
  "comment_count",
  "share_count",
  "view_count",
] as const;
type VideoField = typeof VIDEO_FIELDS[number];

/** The asked fields in the Video Object's order, or the message of an `invalid_params` refusal. */
function readFields(param: string | null): VideoField[] | string {
  const asked = new Set((param ?? "").split(",").map((name) => name.trim()).filter(Boolean));
  const fields = VIDEO_FIELDS.filter((name) => asked.has(name));
  if (asked.size === 0) return `fields is required: a comma-separated list of ${VIDEO_FIELDS.join(", ")}`;
  if (fields.length === 0) return `fields names no field of the Video Object: choose from ${VIDEO_FIELDS.join(", ")}`;
  return fields;
}

/** The distinct ids asked for, in order, or the message of an `invalid_params` refusal. */
function readVideoIds(body: Record<string, unknown>): string[] | string {
  const filters = body.filters;
  if (filters === null || typeof filters !== "object" || Array.isArray(filters)) return 'filters is required: {"video_ids": [...]}';
  const ids = (filters as Record<string, unknown>).video_ids;
  if (!Array.isArray(ids) || ids.length === 0) return "filters.video_ids must list 1 to 20 video ids";
  if (ids.length > MAX_VIDEO_IDS) return `filters.video_ids lists ${ids.length} ids: at most ${MAX_VIDEO_IDS} per request`;
  if (!ids.every((id) => typeof id === "string")) return "filters.video_ids must be strings";
  return [...new Set(ids as string[])];
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

async function videoObject(store: TikTokStore, publish: Publish & { post_id: string }, now: number): Promise<Record<VideoField, string | number>> {
  const figures = await postFigures(store, publish, now);
  const id = publish.post_id;
  const title = [...publish.post_info.title].slice(0, MAX_TEXT).join("");
  const shareUrl = `https://www.tiktok.com/@${publish.user}/video/${id}`;
  return {
    id,
    create_time: figures.create_time,
    cover_image_url: `https://p16-sign.tiktokcdn-us.com/emulator/${id}~tplv-cover.jpeg`,
    share_url: shareUrl,
    video_description: title,
    duration: figures.duration,
    height: figures.height,
    width: figures.width,
    title,
    embed_html: `<blockquote class="tiktok-embed" cite="${shareUrl}" data-video-id="${id}"><a href="${shareUrl}">${escapeHtml(title)}</a></blockquote>`,
    embed_link: `https://www.tiktok.com/player/v1/${id}`,
    like_count: figures.like_count,
    comment_count: figures.comment_count,
    share_count: figures.share_count,
    view_count: figures.view_count,
  };
}

async function videoQuery(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "POST") return apiError(405, "invalid_params", "Use POST.");
  const caller = await authorizeCall(req, ctx, ["video.list"]);
  if (caller instanceof Response) return caller;
  const { store, grant, now } = caller;
  if (!store.allow(`${grant.client_key}\n${grant.user}`, "video_query", RATE_LIMIT_PER_MINUTE, now)) return rateLimitExceeded();
  const fault = await apiFault(ctx);
  if (fault) return fault;
  const fields = readFields(url.searchParams.get("fields"));
  if (typeof fields === "string") return invalidParams(fields);
  const body = await readJsonBody(req);
  if (body instanceof Response) return body;
  const ids = readVideoIds(body);
  if (typeof ids === "string") return invalidParams(ids);

  const delay = store.settings().processing_delay_ms;
  const videos: Array<Partial<Record<VideoField, string | number>>> = [];
  for (const id of ids) {
    const publish = store.publishByPostId(id);
    if (!publish?.post_id || publish.user !== grant.user || statusAt(publish, now, delay) !== "PUBLISH_COMPLETE") continue;
    const video = await videoObject(store, { ...publish, post_id: publish.post_id }, now);
    videos.push(Object.fromEntries(fields.map((name) => [name, video[name]])));
  }
  return apiOk({ videos, cursor: 0, has_more: false });
}

export async function handleVideoQuery(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  return url.pathname === VIDEO_QUERY_PATH ? await videoQuery(req, url, ctx) : undefined;
}
