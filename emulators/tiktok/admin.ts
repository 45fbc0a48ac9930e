/**
 * The TikTok emulator's admin routes (not part of TikTok's API; for tests, the demo and the soak):
 *
 *   GET  /_emulator/tiktok/posts                 every completed post, oldest first: [{publish_id, post_id, user,
 *                                                open_id, client_key, privacy_level, title, is_aigc, post_info,
 *                                                size_bytes, sha256, uploaded_at, completed_at, publicaly_available}]
 *                                                (PUBLISH_COMPLETE on the emulator clock; a FAILED one is not listed)
 *   GET  /_emulator/tiktok/publishes             every publish with its status now, uploaded bytes and fail_reason
 *   GET|PUT /_emulator/tiktok/posts/<post_id>/figures
 *                                                what video/query reports for the post now: {post_id, publish_id, user,
 *                                                create_time, view_count, like_count, comment_count, share_count,
 *                                                duration, pinned}; PUT {"view_count"?, "like_count"?, "comment_count"?,
 *                                                "share_count"?: whole number or null, "duration"?: 1..3600 or null}
 *                                                pins those figures (null goes back to the seeded one, figures.ts);
 *                                                404 unless the post is PUBLISH_COMPLETE
 *   PUT  /_emulator/tiktok/clients/<client_key>  {"audited": bool} -> {client_key, audited, privacy_level_options}
 *   PUT  /_emulator/tiktok/settings              {"processing_delay_ms"?: 0..3600000, "posts_per_24h"?: 0..1000,
 *                                                "rotate_refresh_tokens"?: bool, "figures_seed"?: text 1..100}
 *                                                -> the settings now
 *   GET  /_emulator/tiktok/revocations           {revoked: [{client_key, user, open_id, refresh_token}]}
 *   POST /_emulator/tiktok/revocations           {"refresh_token"} or {"client_key", "user"}: revokes that grant as the
 *                                                user removing the app would -> {client_key, user, open_id,
 *                                                refresh_token, access_tokens_revoked}; 404 when no such grant
 *
 * A client is unaudited until marked audited. `POST /_emulator/reset` clears all of it. Anything
 * malformed is 400 with a message.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { COUNT_FIELDS, INT32_MAX, type PinnedFigures, postFigures } from "./figures.ts";
import { privacyOptions, publicPostIds, statusAt } from "./publish.ts";
import { tiktokFor } from "./state.ts";
import type { Grant, Publish, TikTokSettings, TikTokStore } from "./store.ts";

const CLIENT_ROUTE = /^\/_emulator\/tiktok\/clients\/([^/]+)$/;
const FIGURES_ROUTE = /^\/_emulator\/tiktok\/posts\/([^/]*)\/figures$/;
/** view_count is int64 in TikTok's Video Object; the emulator keeps it exact in JavaScript. */
const MAX_VIEW_COUNT = Number.MAX_SAFE_INTEGER;
const MAX_DURATION_S = 3600;
const CLIENT_KEY = /^[A-Za-z0-9._-]{1,100}$/;
const badRequest = (error: string) => jsonResponse({ error }, 400);

function listedPost(publish: Publish, now: number, store: TikTokStore) {
  const delay = store.settings().processing_delay_ms;
  const status = statusAt(publish, now, delay);
  return {
    publish_id: publish.publish_id,
    post_id: publish.post_id,
    user: publish.user,
    open_id: publish.open_id,
    client_key: publish.client_key,
    privacy_level: publish.post_info.privacy_level,
    title: publish.post_info.title,
    is_aigc: publish.post_info.is_aigc,
    post_info: publish.post_info,
    size_bytes: publish.video_size,
    sha256: publish.sha256,
    uploaded_at: publish.uploaded_at === undefined ? undefined : new Date(publish.uploaded_at).toISOString(),
    completed_at: publish.uploaded_at === undefined ? undefined : new Date(publish.uploaded_at + delay).toISOString(),
    publicaly_available: publicPostIds(publish, status).length > 0,
  };
}

async function listPublishes(store: TikTokStore, now: number) {
  const delay = store.settings().processing_delay_ms;
  return await Promise.all(
    store.publishes().map(async (p) => ({
      publish_id: p.publish_id,
      user: p.user,
      client_key: p.client_key,
      status: statusAt(p, now, delay),
      fail_reason: p.fail_reason,
      privacy_level: p.post_info.privacy_level,
      video_size: p.video_size,
      chunk_size: p.chunk_size,
      total_chunk_count: p.total_chunk_count,
      chunks_received: p.chunks_received,
      uploaded_bytes: await store.receivedBytes(p.publish_id),
      created_at: new Date(p.created_at).toISOString(),
    })),
  );
}

const revokedEntry = (g: Grant) => ({ client_key: g.client_key, user: g.user, open_id: g.open_id, refresh_token: g.refresh_token });

async function revocations(req: Request, ctx: EmulatorContext, store: TikTokStore): Promise<Response> {
  if (req.method === "GET") return jsonResponse({ revoked: store.grants().filter((g) => g.revoked).map(revokedEntry) });
  if (req.method !== "POST") return jsonResponse({ error: "use GET or POST on /_emulator/tiktok/revocations" }, 405);
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["refresh_token", "client_key", "user"]);
  if (extra) return badRequest(extra);
  let grant: Grant | undefined;
  if (typeof body.refresh_token === "string" && body.client_key === undefined && body.user === undefined) {
    grant = store.grantFor(body.refresh_token);
  } else if (typeof body.client_key === "string" && typeof body.user === "string" && body.refresh_token === undefined) {
    grant = store.grants().find((g) => g.client_key === body.client_key && g.user === body.user);
  } else {
    return badRequest("give either refresh_token, or client_key and user");
  }
  if (!grant) return jsonResponse({ error: "no such grant: the user never consented to that client (or consented again since)" }, 404);
  const dropped = await store.revoke(grant);
  ctx.log({ ts: new Date().toISOString(), service: "tiktok", event: "grant_revoked", client_key: grant.client_key, user: grant.user });
  return jsonResponse({ ...revokedEntry(grant), access_tokens_revoked: dropped });
}

async function putSettings(req: Request, store: TikTokStore): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["processing_delay_ms", "posts_per_24h", "rotate_refresh_tokens", "figures_seed"]);
  if (extra) return badRequest(extra);
  const patch: Partial<TikTokSettings> = {};
  for (const [key, max] of [["processing_delay_ms", 3_600_000], ["posts_per_24h", 1000]] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > max) return badRequest(`${key} must be a whole number 0..${max}`);
    patch[key] = value;
  }
  if (body.rotate_refresh_tokens !== undefined) {
    if (typeof body.rotate_refresh_tokens !== "boolean") return badRequest("rotate_refresh_tokens must be true or false");
    patch.rotate_refresh_tokens = body.rotate_refresh_tokens;
  }
  if (body.figures_seed !== undefined) {
    if (typeof body.figures_seed !== "string" || body.figures_seed.length < 1 || body.figures_seed.length > 100) {
      return badRequest("figures_seed must be text of 1..100 characters");
    }
    patch.figures_seed = body.figures_seed;
  }
  if (Object.keys(patch).length === 0) return badRequest("give processing_delay_ms, posts_per_24h, rotate_refresh_tokens and/or figures_seed");
  return jsonResponse(await store.setSettings(patch));
}

/** A PUT body's pins applied to `current`, or the message of a 400. */
function readPins(body: Record<string, unknown>, current: PinnedFigures): PinnedFigures | string {
  const names = [...COUNT_FIELDS, "duration"] as const;
  const extra = unknownKeys(body, names);
  if (extra) return extra;
  if (!names.some((name) => body[name] !== undefined)) return `give one or more of ${names.join(", ")} (a whole number, or null to unpin)`;
  const pins: PinnedFigures = { ...current };
  for (const name of names) {
    const value = body[name];
    if (value === undefined) continue;
    if (value === null) {
      delete pins[name];
      continue;
    }
    const [min, max] = name === "duration" ? [1, MAX_DURATION_S] : [0, name === "view_count" ? MAX_VIEW_COUNT : INT32_MAX];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) return `${name} must be a whole number ${min}..${max} or null`;
    pins[name] = value;
  }
  return pins;
}

async function figures(req: Request, rawId: string, store: TikTokStore, now: number): Promise<Response> {
  if (req.method !== "GET" && req.method !== "PUT") return jsonResponse({ error: "use GET or PUT on /_emulator/tiktok/posts/<post_id>/figures" }, 405);
  if (!/^\d{1,20}$/.test(rawId)) return badRequest("a post id is 1..20 digits");
  const found = store.publishByPostId(rawId);
  if (!found || statusAt(found, now, store.settings().processing_delay_ms) !== "PUBLISH_COMPLETE") {
    return jsonResponse({ error: `no post ${rawId}: a post exists once its publish is PUBLISH_COMPLETE` }, 404);
  }
  let publish: Publish = found;
  if (req.method === "PUT") {
    const body = await readAdminJson(req);
    if (body instanceof Response) return body;
    const pinned = await store.withLock(found.publish_id, async () => {
      const current = store.getPublish(found.publish_id) ?? found;
      const pins = readPins(body, current.pinned_figures ?? {});
      if (typeof pins === "string") return pins;
      publish = { ...current, pinned_figures: pins };
      await store.savePublish(publish);
      return pins;
    });
    if (typeof pinned === "string") return badRequest(pinned);
  }
  const reported = await postFigures(store, { ...publish, post_id: rawId }, now);
  return jsonResponse({
    post_id: rawId,
    publish_id: publish.publish_id,
    user: publish.user,
    create_time: reported.create_time,
    view_count: reported.view_count,
    like_count: reported.like_count,
    comment_count: reported.comment_count,
    share_count: reported.share_count,
    duration: reported.duration,
    pinned: publish.pinned_figures ?? {},
  });
}

export async function handleTikTokAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const { pathname } = url;
  const store = await tiktokFor(ctx);
  const now = ctx.clock.now();
  if (pathname === "/_emulator/tiktok/posts" || pathname === "/_emulator/tiktok/publishes") {
    if (req.method !== "GET") return jsonResponse({ error: `use GET on ${pathname}` }, 405);
    if (pathname === "/_emulator/tiktok/publishes") return jsonResponse(await listPublishes(store, now));
    const delay = store.settings().processing_delay_ms;
    return jsonResponse(store.publishes().filter((p) => statusAt(p, now, delay) === "PUBLISH_COMPLETE").map((p) => listedPost(p, now, store)));
  }
  if (pathname === "/_emulator/tiktok/revocations") return await revocations(req, ctx, store);
  const post = FIGURES_ROUTE.exec(pathname);
  if (post) return await figures(req, post[1]!, store, now);
  if (pathname === "/_emulator/tiktok/settings") {
    if (req.method === "GET") return jsonResponse(store.settings());
    if (req.method !== "PUT") return jsonResponse({ error: "use GET or PUT on /_emulator/tiktok/settings" }, 405);
    return await putSettings(req, store);
  }
  const client = CLIENT_ROUTE.exec(pathname);
  if (client) {
    if (req.method !== "PUT") return jsonResponse({ error: `use PUT on ${pathname}` }, 405);
    let clientKey: string;
    try {
      clientKey = decodeURIComponent(client[1]!);
    } catch {
      clientKey = "";
    }
    if (!CLIENT_KEY.test(clientKey)) return badRequest("the client key must be 1..100 letters, digits, '.', '_' or '-'");
    const body = await readAdminJson(req);
    if (body instanceof Response) return body;
    const extra = unknownKeys(body, ["audited"]);
    if (extra) return badRequest(extra);
    if (typeof body.audited !== "boolean") return badRequest("audited must be true or false");
    await store.setAudited(clientKey, body.audited);
    return jsonResponse({ client_key: clientKey, audited: store.audited(clientKey), privacy_level_options: privacyOptions(store, clientKey) });
  }
  return undefined;
}
