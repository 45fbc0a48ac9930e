/**
 * TikTok's Content Posting API, Direct Post (open.tiktokapis.com), as TikTok documents it. Every
 * call takes `Authorization: Bearer <access token>` and answers `{data, error: {code, message,
 * log_id}}` (errors.ts):
 *
 * - `POST /v2/post/publish/creator_info/query/` (scope video.publish, 20 calls a minute per token):
 *   the creator's avatar, username, nickname, `privacy_level_options`, interaction settings and
 *   `max_video_post_duration_sec`. An unaudited client (the default; admin.ts) is offered only
 *   SELF_ONLY.
 * - `POST /v2/post/publish/video/init/` (scope video.publish, JSON, 6 calls a minute per token)
 *   with `post_info` and `source_info {source: FILE_UPLOAD, video_size, chunk_size,
 *   total_chunk_count}` (chunks.ts) -> `{publish_id, upload_url}`. Refusals: 400 `invalid_params`
 *   (a field missing or of the wrong type, a title over 2200 characters, a chunk rule broken,
 *   PULL_FROM_URL: not emulated), 403 `unaudited_client_can_only_post_to_private_accounts` (an
 *   unaudited client asking for anything but SELF_ONLY), 403 `privacy_level_option_mismatch` (a
 *   level not among the creator's options), 403 `spam_risk_too_many_posts` (the creator's inits in
 *   the last 24 hours reached the cap, 15 unless set; admin.ts).
 * - `POST /v2/post/publish/status/fetch/ {publish_id}` (scope video.publish or video.upload, 30
 *   calls a minute per token): `{status, fail_reason?, publicaly_available_post_id, uploaded_bytes}`
 *   (`publicaly` is TikTok's own spelling). PROCESSING_UPLOAD while bytes are missing, then
 *   PROCESSING_DOWNLOAD for the processing delay (5 s on the emulator clock unless set), then
 *   PUBLISH_COMPLETE, or FAILED with `fail_reason` when a `fail_processing` fault was armed as the
 *   last byte arrived. `publicaly_available_post_id` holds the post id (a number) once a non-private
 *   post is complete; it stays `[]` for SELF_ONLY posts, which TikTok never makes public.
 *
 * The order of checks: token (401), armed `access_token_invalid`, scope (401), the rate limit
 * (429), armed faults, then the body.
 */
import { randomBytes } from "node:crypto";
import { isBodyTooLargeError, readBoundedText } from "../../shared/http/bounded-body.ts";
import type { EmulatorContext } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { checkLayout } from "./chunks.ts";
import { apiError, apiOk, invalidParams, rateLimitExceeded } from "./errors.ts";
import { authorizeCall, type Caller } from "./state.ts";
import { postIdFor, type Publish, type TikTokStore } from "./store.ts";

const CREATOR_INFO_PATH = "/v2/post/publish/creator_info/query/";
const VIDEO_INIT_PATH = "/v2/post/publish/video/init/";
const STATUS_PATH = "/v2/post/publish/status/fetch/";
export const UPLOAD_PATH = "/tiktok-upload/video/";

const RATE_LIMITS = { creator_info: 20, init: 6, status: 30 } as const;
const PRIVACY_LEVELS = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"] as const;
/** A public creator account's options (TikTok offers FOLLOWER_OF_CREATOR to private accounts instead). */
const AUDITED_OPTIONS = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"];
const UNAUDITED_OPTIONS = ["SELF_ONLY"];
const MAX_TITLE = 2200;
const MAX_BODY_BYTES = 64 * 1024;
/** What a `fail_processing` fault reports: one of TikTok's documented fail reasons. */
export const FAULT_FAIL_REASON = "file_format_check_failed";

export function privacyOptions(store: TikTokStore, clientKey: string): string[] {
  return store.audited(clientKey) ? AUDITED_OPTIONS : UNAUDITED_OPTIONS;
}

/** Faults every API call may meet (video-query.ts's too): an outage or a rate limit. Undefined when none is armed. */
export async function apiFault(ctx: EmulatorContext): Promise<Response | undefined> {
  await slowDown(ctx.faults, "tiktok");
  const fault = ctx.faults.take("tiktok", (kind) => kind === "rate_limited" || kind === "http_503" || kind === "internal_error");
  if (fault?.kind === "rate_limited") return rateLimitExceeded();
  if (fault?.kind === "http_503") return apiError(503, "internal_error", "Service unavailable, please retry later.");
  if (fault?.kind === "internal_error") return apiError(500, "internal_error", "Something went wrong on TikTok's side; please retry later.");
  return undefined;
}

/** An API call's JSON object body, at most 64 KiB; a Response (400 or 413 `invalid_params`) when it is not one. */
export async function readJsonBody(req: Request): Promise<Record<string, unknown> | Response> {
  let text: string;
  try {
    text = await readBoundedText(req, MAX_BODY_BYTES);
  } catch (error) {
    if (isBodyTooLargeError(error)) return apiError(413, "invalid_params", `The body must be at most ${MAX_BODY_BYTES} bytes.`);
    return invalidParams("The body is not valid UTF-8.");
  }
  let body: unknown;
  try {
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return invalidParams("The body is not valid JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return invalidParams("The body must be a JSON object.");
  return body as Record<string, unknown>;
}

async function gate(req: Request, ctx: EmulatorContext, scopes: readonly string[], endpoint: keyof typeof RATE_LIMITS): Promise<Caller | Response> {
  if (req.method !== "POST") return apiError(405, "invalid_params", "Use POST.");
  const caller = await authorizeCall(req, ctx, scopes);
  if (caller instanceof Response) return caller;
  if (!caller.store.allow(caller.token.access_token, endpoint, RATE_LIMITS[endpoint], caller.now)) return rateLimitExceeded();
  return await apiFault(ctx) ?? caller;
}

async function creatorInfo(req: Request, ctx: EmulatorContext): Promise<Response> {
  const caller = await gate(req, ctx, ["video.publish"], "creator_info");
  if (caller instanceof Response) return caller;
  const { grant, store } = caller;
  return apiOk({
    creator_avatar_url: `https://p16-sign.tiktokcdn-us.com/emulator/${grant.user}.jpeg`,
    creator_username: grant.user,
    creator_nickname: grant.user.replace(/[-_.]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase()),
    privacy_level_options: privacyOptions(store, grant.client_key),
    comment_disabled: false,
    duet_disabled: false,
    stitch_disabled: false,
    max_video_post_duration_sec: 600,
  });
}

type PostInfo = Publish["post_info"];

/** `post_info` as sent, with TikTok's defaults, or the message of an `invalid_params` refusal. */
function readPostInfo(input: unknown): PostInfo | string {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return "post_info must be an object";
  const p = input as Record<string, unknown>;
  if (typeof p.privacy_level !== "string") return "post_info.privacy_level is required";
  const title = p.title ?? "";
  if (typeof title !== "string" || [...title].length > MAX_TITLE) return `post_info.title must be a string of at most ${MAX_TITLE} characters`;
  const info: PostInfo = {
    title,
    privacy_level: p.privacy_level,
    disable_duet: false,
    disable_comment: false,
    disable_stitch: false,
    video_cover_timestamp_ms: 0,
    brand_content_toggle: false,
    brand_organic_toggle: false,
    is_aigc: false,
  };
  for (const key of ["disable_duet", "disable_comment", "disable_stitch", "brand_content_toggle", "brand_organic_toggle", "is_aigc"] as const) {
    if (p[key] === undefined) continue;
    if (typeof p[key] !== "boolean") return `post_info.${key} must be a boolean`;
    info[key] = p[key];
  }
  if (p.video_cover_timestamp_ms !== undefined) {
    if (typeof p.video_cover_timestamp_ms !== "number" || !Number.isSafeInteger(p.video_cover_timestamp_ms) || p.video_cover_timestamp_ms < 0) {
      return "post_info.video_cover_timestamp_ms must be a non-negative integer";
    }
    info.video_cover_timestamp_ms = p.video_cover_timestamp_ms;
  }
  return info;
}

async function videoInit(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const caller = await gate(req, ctx, ["video.publish"], "init");
  if (caller instanceof Response) return caller;
  const { store, grant, token, now } = caller;
  if (ctx.faults.take("tiktok", (kind) => kind === "spam_risk_too_many_posts")) return spamRisk();
  const body = await readJsonBody(req);
  if (body instanceof Response) return body;
  const postInfo = readPostInfo(body.post_info);
  if (typeof postInfo === "string") return invalidParams(postInfo);
  const source = body.source_info;
  if (source === null || typeof source !== "object" || Array.isArray(source)) return invalidParams("source_info must be an object");
  const s = source as Record<string, unknown>;
  if (s.source === "PULL_FROM_URL") return invalidParams("source_info.source PULL_FROM_URL is not emulated: use FILE_UPLOAD");
  if (s.source !== "FILE_UPLOAD") return invalidParams("source_info.source must be FILE_UPLOAD or PULL_FROM_URL");
  const layout = checkLayout(s.video_size, s.chunk_size, s.total_chunk_count);
  if (typeof layout === "string") return invalidParams(layout);
  const options = privacyOptions(store, grant.client_key);
  if (!store.audited(grant.client_key) && postInfo.privacy_level !== "SELF_ONLY") {
    return apiError(403, "unaudited_client_can_only_post_to_private_accounts", "Unaudited clients can only post with privacy_level SELF_ONLY.");
  }
  if (!(PRIVACY_LEVELS as readonly string[]).includes(postInfo.privacy_level) || !options.includes(postInfo.privacy_level)) {
    return apiError(403, "privacy_level_option_mismatch", `privacy_level must be one of the creator's privacy_level_options: ${options.join(", ")}.`);
  }
  if (store.postsInWindow(grant.client_key, grant.user, now) >= store.settings().posts_per_24h) return spamRisk();
  const publish: Publish = {
    publish_id: `v_pub_file~v2-1.${randomBytes(12).toString("hex")}`,
    client_key: grant.client_key,
    user: grant.user,
    open_id: grant.open_id,
    access_token: token.access_token,
    post_info: postInfo,
    ...layout,
    chunks_received: 0,
    created_at: now,
  };
  await store.createPublish(publish);
  const uploadUrl = `${url.origin}${UPLOAD_PATH}?upload_id=${encodeURIComponent(publish.publish_id)}&upload_token=${randomBytes(8).toString("hex")}`;
  return apiOk({ publish_id: publish.publish_id, upload_url: uploadUrl });
}

const spamRisk = () => apiError(403, "spam_risk_too_many_posts", "The daily post cap from the API is reached for the current user.");

type PublishStatus = "PROCESSING_UPLOAD" | "PROCESSING_DOWNLOAD" | "PUBLISH_COMPLETE" | "FAILED";

/** Where a publish stands at `now`. */
export function statusAt(publish: Publish, now: number, processingDelayMs: number): PublishStatus {
  if (publish.uploaded_at === undefined) return "PROCESSING_UPLOAD";
  if (now < publish.uploaded_at + processingDelayMs) return "PROCESSING_DOWNLOAD";
  return publish.fail_reason ? "FAILED" : "PUBLISH_COMPLETE";
}

/** The post ids TikTok reports as publicly available: none for a private (SELF_ONLY) post. */
export function publicPostIds(publish: Publish, status: PublishStatus): number[] {
  return status === "PUBLISH_COMPLETE" && publish.post_info.privacy_level !== "SELF_ONLY" ? [Number(postIdFor(publish.publish_id))] : [];
}

async function statusFetch(req: Request, ctx: EmulatorContext): Promise<Response> {
  const caller = await gate(req, ctx, ["video.publish", "video.upload"], "status");
  if (caller instanceof Response) return caller;
  const { store, grant, now } = caller;
  const body = await readJsonBody(req);
  if (body instanceof Response) return body;
  if (typeof body.publish_id !== "string" || body.publish_id === "") return invalidParams("publish_id is required");
  const publish = store.getPublish(body.publish_id);
  if (!publish || publish.client_key !== grant.client_key || publish.user !== grant.user) {
    return invalidParams(`publish_id ${body.publish_id} was not found for this user`);
  }
  const status = statusAt(publish, now, store.settings().processing_delay_ms);
  return apiOk({
    status,
    ...(status === "FAILED" ? { fail_reason: publish.fail_reason } : {}),
    publicaly_available_post_id: publicPostIds(publish, status),
    uploaded_bytes: await store.receivedBytes(publish.publish_id),
  });
}

export async function handlePublish(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === CREATOR_INFO_PATH) return await creatorInfo(req, ctx);
  if (url.pathname === VIDEO_INIT_PATH) return await videoInit(req, url, ctx);
  if (url.pathname === STATUS_PATH) return await statusFetch(req, ctx);
  return undefined;
}
