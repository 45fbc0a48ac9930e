/**
 * Publishing an Instagram container and reading what was published (Instagram API with Facebook
 * Login):
 *
 * - `POST /{v}/{ig-user-id}/media_publish?creation_id=<container-id>` (instagram_basic,
 *   instagram_content_publish) -> `{id: <ig-media-id>}`. Refusals, in Graph's shape: a container
 *   not FINISHED is code 9007, subcode 2207027 "Media ID is not available" ("The media is not ready
 *   for publishing, please wait for a moment"); an EXPIRED one code -2, subcode 2207020; an ERROR
 *   one its own error; one already PUBLISHED code 100 (the docs name no code for it; nothing is
 *   posted twice); and the publishing limit: "Instagram accounts are limited to 50 API-published
 *   posts within a 24-hour moving period ... enforced on the POST /<IG_ID>/media_publish endpoint",
 *   code 9, subcode 2207042 "You reached maximum number of posts that is allowed to be published
 *   by Content Publishing API." (the limit is settable per account, admin.ts).
 * - `GET /{v}/{ig-user-id}/content_publishing_limit?fields=config,quota_usage[&since=<unix>]` ->
 *   `{data: [{quota_usage, config: {quota_total, quota_duration: 86400}}]}` (`quota_usage` alone
 *   when `fields` is absent; `rate_limit_settings` is read as `config`); `since` no older than 24 h.
 * - `GET /{v}/{ig-user-id}` (fields `id, username, name, media_count`) and
 *   `GET /{v}/{ig-user-id}/media` (the account's published media, newest first, `limit` 1..100).
 * - `GET /{v}/{ig-media-id}` (fields `id, caption, media_type` (VIDEO), `media_product_type`
 *   (REELS), `permalink, shortcode, timestamp, username, like_count, comments_count,
 *   is_shared_to_feed, thumbnail_url, owner`).
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { DAY_MS } from "../../shared/time.ts";
import { type Caller, gate } from "./auth.ts";
import { reelFigures } from "./figures.ts";
import { graphError, graphTime, invalidParameter, readParams, selectFields, unsupportedRequest } from "./graph.ts";
import { containerStatus, IG_PUBLISH, IG_READ, igAccountOf } from "./ig-containers.ts";
import { type IgAccount, type IgMedia, newMediaId, shortcodeFor } from "./model.ts";

function publishedIn(caller: Caller, igUserId: string, since: number): number {
  return caller.store.mediaList().filter((m) => m.ig_user_id === igUserId && m.published_at > since && m.published_at <= caller.now).length;
}

async function publish(caller: Caller, account: IgAccount, creationId: string | undefined): Promise<Response> {
  const { store, now } = caller;
  if (!creationId) return invalidParameter("(#100) The parameter creation_id is required.");
  const container = store.container(creationId);
  if (!container || container.ig_user_id !== account.ig_user_id) {
    return invalidParameter(`(#100) creation_id ${creationId} is not a media container of Instagram account ${account.ig_user_id}.`);
  }
  const settings = store.settings();
  const status = containerStatus(container, now, settings);
  if (status === "PUBLISHED") {
    return invalidParameter(`(#100) The media container ${container.id} has already been published.`, {
      userTitle: "Already published",
      userMessage: "This media has already been published.",
    });
  }
  if (status === "EXPIRED") {
    const message = "The media you are trying to access has expired. Please try to upload again.";
    return graphError(-2, message, { subcode: 2207020, userTitle: "Media expired", userMessage: message });
  }
  if (status === "ERROR" && container.verdict && !container.verdict.ok) {
    const v = container.verdict;
    return graphError(v.code, v.message, { subcode: v.subcode, userMessage: v.message });
  }
  if (status !== "FINISHED") {
    return graphError(9007, "Media ID is not available", {
      subcode: 2207027,
      userTitle: "Media not ready",
      userMessage: "The media is not ready for publishing, please wait for a moment",
    });
  }
  const limit = store.limitFor(account.ig_user_id, settings.ig_quota_total);
  if (publishedIn(caller, account.ig_user_id, now - DAY_MS) >= limit) {
    return graphError(9, "Application request limit reached", {
      subcode: 2207042,
      userTitle: "Limit reached",
      userMessage: "You reached maximum number of posts that is allowed to be published by Content Publishing API.",
    });
  }
  const verdict = container.verdict as Extract<typeof container.verdict, { ok: true }>;
  const id = newMediaId();
  const media: IgMedia = {
    id,
    container_id: container.id,
    ig_user_id: account.ig_user_id,
    caption: container.caption,
    share_to_feed: container.share_to_feed,
    cover_url: container.cover_url,
    thumb_offset: container.thumb_offset,
    shortcode: shortcodeFor(id),
    published_at: now,
    duration_s: verdict.duration_s,
    width: verdict.width,
    height: verdict.height,
    size_bytes: container.file_size ?? 0,
    sha256: container.sha256 ?? "",
  };
  await store.addMedia(media, { ...container, published_media_id: id });
  return jsonResponse({ id });
}

function publishingLimit(caller: Caller, account: IgAccount, params: Record<string, string>): Response {
  let since = caller.now - DAY_MS;
  if (params.since !== undefined) {
    const at = Number(params.since) * 1000;
    if (!/^\d{1,12}$/.test(params.since) || at < caller.now - DAY_MS || at > caller.now) {
      return invalidParameter("(#100) since must be a Unix timestamp no older than 24 hours.");
    }
    since = at;
  }
  const wanted = (params.fields ?? "quota_usage").split(",").map((f) => f.trim()).filter(Boolean);
  const entry: Record<string, unknown> = {};
  for (const field of wanted) {
    if (field === "quota_usage") entry.quota_usage = publishedIn(caller, account.ig_user_id, since);
    else if (field === "config" || field === "rate_limit_settings") {
      entry.config = { quota_total: caller.store.limitFor(account.ig_user_id, caller.store.settings().ig_quota_total), quota_duration: 86400 };
    } else return invalidParameter(`(#100) Tried accessing nonexisting field (${field}) on node type (ContentPublishingLimit)`);
  }
  return jsonResponse({ data: [entry] });
}

function mediaObject(caller: Caller, media: IgMedia, fields: string | undefined): Record<string, unknown> | Response {
  const account = caller.store.igAccount(media.ig_user_id);
  const figures = () => reelFigures(caller.store.settings().seed, media.id, media.duration_s, caller.now - media.published_at);
  return selectFields(
    fields,
    {
      id: () => media.id,
      caption: () => media.caption,
      media_type: () => "VIDEO",
      media_product_type: () => "REELS",
      permalink: () => `https://www.instagram.com/reel/${media.shortcode}/`,
      shortcode: () => media.shortcode,
      timestamp: () => graphTime(media.published_at),
      username: () => account?.username,
      like_count: () => figures().likes,
      comments_count: () => figures().comments,
      is_shared_to_feed: () => media.share_to_feed,
      thumbnail_url: () => media.cover_url ?? `https://scontent.cdninstagram.com/emulator/${media.shortcode}.jpg`,
      owner: () => ({ id: media.ig_user_id }),
    },
    ["id"],
    "IGMedia",
  );
}

/** Routes under `/{v}/{ig-user-id}`: the node, `media` (GET list, POST is ig-containers.ts), `media_publish`, `content_publishing_limit`. */
export async function handleIgUser(req: Request, url: URL, account: IgAccount, edge: string | undefined, ctx: EmulatorContext): Promise<Response | undefined> {
  if (edge !== undefined && !["media", "media_publish", "content_publishing_limit"].includes(edge)) return undefined;
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const scopes = edge === "media_publish" || edge === "content_publishing_limit" ? IG_PUBLISH : IG_READ;
  const caller = await gate(req, params, ctx, { scopes, permissionCode: 10, rateContext: "instagram", businessId: account.ig_user_id });
  if (caller instanceof Response) return caller;
  if (!igAccountOf(caller, account.ig_user_id)) return unsupportedRequest(req.method, account.ig_user_id);
  if (edge === "media_publish") {
    if (req.method !== "POST") return unsupportedRequest(req.method, account.ig_user_id);
    return await caller.store.withLock(`ig:${account.ig_user_id}`, () => publish(caller, account, params.creation_id));
  }
  if (req.method !== "GET") return unsupportedRequest(req.method, account.ig_user_id);
  if (edge === "content_publishing_limit") return publishingLimit(caller, account, params);
  if (edge === "media") {
    const limit = params.limit === undefined ? 25 : Number(params.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalidParameter("(#100) limit must be a whole number 1..100.");
    const data: unknown[] = [];
    for (const media of caller.store.mediaList().filter((m) => m.ig_user_id === account.ig_user_id).reverse().slice(0, limit)) {
      const object = mediaObject(caller, media, params.fields);
      if (object instanceof Response) return object;
      data.push(object);
    }
    return jsonResponse({ data });
  }
  const object = selectFields(
    params.fields,
    {
      id: () => account.ig_user_id,
      username: () => account.username,
      name: () => account.name,
      media_count: () => caller.store.mediaList().filter((m) => m.ig_user_id === account.ig_user_id).length,
    },
    ["id"],
    "IGUser",
  );
  return object instanceof Response ? object : jsonResponse(object);
}

export async function readMedia(req: Request, url: URL, media: IgMedia, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: IG_READ, permissionCode: 10, rateContext: "instagram", businessId: media.ig_user_id });
  if (caller instanceof Response) return caller;
  if (req.method !== "GET" || !igAccountOf(caller, media.ig_user_id)) return unsupportedRequest(req.method, media.id);
  const object = mediaObject(caller, media, params.fields);
  return object instanceof Response ? object : jsonResponse(object);
}
