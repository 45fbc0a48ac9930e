/**
 * Meta's Graph API, as the engine's Instagram and Facebook Reels clients speak it (Graph paths
 * carry the version, `/{v}/...` with v like `v23.0`; graph.facebook.com, www.facebook.com and
 * rupload.facebook.com are all this one host):
 *
 *   GET  /{v}/dialog/oauth, GET|POST /{v}/oauth/access_token, GET /{v}/debug_token   login and tokens (oauth.ts)
 *   GET  /{v}/me, /{v}/me/accounts, /{v}/{page-id}; GET|DELETE /{v}/me/permissions    the user and their Pages (accounts.ts)
 *   POST /{v}/{ig-user-id}/media; GET /{v}/{container-id}                             Instagram containers (ig-containers.ts)
 *   POST /{v}/{ig-user-id}/media_publish; GET /{v}/{ig-user-id}/content_publishing_limit,
 *        /{v}/{ig-user-id}, /{v}/{ig-user-id}/media, /{v}/{ig-media-id}               publishing and media (ig-publish.ts)
 *   POST /{v}/{page-id}/video_reels; GET /{v}/{video-id}                               Facebook Reels (fb-reels.ts)
 *   GET  /{v}/{ig-media-id}/insights, /{v}/{video-id}/video_insights                   insights (insights.ts, figures.ts)
 *   POST /ig-api-upload/{v}/{container-id}, /video-upload/{v}/{video-id}               the upload host (upload.ts)
 *   /_emulator/meta/...                                                                admin (admin.ts)
 *
 * Every Graph call goes through auth.ts (token, permissions, faults). State persists under
 * `<data dir>/meta/` (store.ts); `POST /_emulator/reset` clears it (`resetMeta`). Faults are armed
 * through the shared fault book with service `meta`.
 */
import type { EmulatorContext } from "../context.ts";
import { handleMetaAccounts } from "./accounts.ts";
import { handleMetaAdmin } from "./admin.ts";
import { gate, metaFor } from "./auth.ts";
import { handleVideoReels, readReel } from "./fb-reels.ts";
import { readParams, unknownPath, unsupportedRequest, VERSIONED_PATH } from "./graph.ts";
import { createContainer, readContainer } from "./ig-containers.ts";
import { handleIgUser, readMedia } from "./ig-publish.ts";
import { fbInsights, igInsights } from "./insights.ts";
import { handleMetaOAuth } from "./oauth.ts";
import { handleUpload } from "./upload.ts";

export { resetMeta } from "./auth.ts";

/** A numeric id no record has: Graph still checks the token (its errors come first), then answers code 100, subcode 33. */
async function unknownObject(req: Request, url: URL, id: string, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: [], permissionCode: 200, rateContext: "app" });
  return caller instanceof Response ? caller : unsupportedRequest(req.method, id);
}

async function handleGraph(req: Request, url: URL, version: string, rest: string, ctx: EmulatorContext): Promise<Response> {
  const oauth = await handleMetaOAuth(req, url, rest, ctx);
  if (oauth) return oauth;
  const segments = rest.replace(/\/$/, "").slice(1).split("/");
  const [id = "", edge, extra] = segments;
  if (segments.length > 3 || id === "") return unknownPath(rest);
  const store = await metaFor(ctx);
  const page = store.page(id);
  if (id === "me" || store.user(id) || page && edge === undefined) return await handleMetaAccounts(req, url, segments, ctx) ?? unknownPath(rest);
  if (page && edge === "video_reels" && extra === undefined) return await handleVideoReels(req, url, version, id, ctx);
  if (extra !== undefined) return unknownPath(rest);
  const account = store.igAccount(id);
  if (account) {
    if (edge === "media" && req.method === "POST") return await createContainer(req, url, version, id, ctx);
    return await handleIgUser(req, url, account, edge, ctx) ?? unknownPath(rest);
  }
  const container = store.container(id);
  if (container && edge === undefined) return await readContainer(req, url, container, ctx);
  const media = store.media(id);
  if (media && edge === undefined) return await readMedia(req, url, media, ctx);
  if (media && edge === "insights") return await igInsights(req, url, media, ctx);
  const reel = store.reel(id);
  if (reel && edge === undefined) return await readReel(req, url, reel, ctx);
  if (reel && edge === "video_insights") return await fbInsights(req, url, reel, ctx);
  const known = page || container || media || reel;
  if (!known && /^\d{1,30}$/.test(id)) return await unknownObject(req, url, id, ctx);
  return unknownPath(rest);
}

export async function handleMeta(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname.startsWith("/_emulator/meta/")) return await handleMetaAdmin(req, url, ctx);
  const upload = await handleUpload(req, url, ctx);
  if (upload) return upload;
  const versioned = VERSIONED_PATH.exec(url.pathname);
  if (!versioned) return undefined;
  return await handleGraph(req, url, versioned[1]!, versioned[2]!, ctx);
}
