/**
 * The Meta emulator's admin routes (not Meta's API; for tests, the demo and the soak), JSON in and
 * out, bodies read with readAdminJson (16 KiB), 400 with a message for anything malformed:
 *
 *   GET  /_emulator/meta/posts              {instagram: [...], facebook: [...]}: every published post, oldest first,
 *                                           with its account, caption or description, cover, share_to_feed, duration,
 *                                           size, state, sha256 of the bytes, permalink and time (emulator clock)
 *   GET  /_emulator/meta/uploads            {containers: [...], reels: [...]}: every container and Reel with its status now,
 *                                           bytes received, declared size and the processing verdict
 *   GET|PUT /_emulator/meta/settings        processing delays, default limits, duration bounds, size cap, figures seed
 *   GET  /_emulator/meta/apps; PUT /_emulator/meta/apps/<app_id>
 *                                           {"app_secret", "name"?, "redirect_uris"?: [...], "configs"?: {"<config_id>": [permissions]}}
 *   GET  /_emulator/meta/users; PUT /_emulator/meta/users/<login>
 *                                           {"name"?, "pages"?: [{"name", "instagram_username"?: string | null}]}
 *                                           (default: one Page named after the user, with an Instagram account <login>)
 *   GET|PUT /_emulator/meta/grants          PUT {"app_id", "user": <login>, "scopes": [...]}: what the user granted the app
 *   GET  /_emulator/meta/limits; PUT /_emulator/meta/limits/<ig-user-id or page-id>  {"limit": n | null}
 *   GET|POST /_emulator/meta/revocations    POST {"access_token"} or {"app_id", "user"}, with "reason"?: "password_changed"
 *                                           (code 190, subcode 460; the default) or "app_removed" (subcode 458)
 *
 * `POST /_emulator/reset` clears all of it (routes.ts).
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { metaFor } from "./auth.ts";
import { isPublished, reelStatus, reelTimeline } from "./fb-reels.ts";
import { httpUrl } from "./graph.ts";
import { containerStatus, statusText } from "./ig-containers.ts";
import { type MetaSettings, type PageSpec, PERMISSIONS, type RevokeReason } from "./model.ts";
import { defaultPages, displayName } from "./oauth.ts";
import type { MetaStore } from "./store.ts";

const badRequest = (error: string) => jsonResponse({ error }, 400);
const notFound = (error: string) => jsonResponse({ error }, 404);
const iso = (ms: number | undefined) => ms === undefined ? undefined : new Date(ms).toISOString();
const APP_ID = /^\d{1,20}$/;
const LOGIN = /^[a-z0-9._-]{1,60}$/;
const USERNAME = /^[a-z0-9._]{1,30}$/;

function posts(store: MetaStore, now: number) {
  const settings = store.settings();
  const instagram = store.mediaList().map((m) => {
    const account = store.igAccount(m.ig_user_id);
    return {
      media_id: m.id,
      container_id: m.container_id,
      ig_user_id: m.ig_user_id,
      username: account?.username,
      page_id: account?.page_id,
      caption: m.caption,
      share_to_feed: m.share_to_feed,
      cover_url: m.cover_url ?? null,
      thumb_offset: m.thumb_offset ?? null,
      duration_s: m.duration_s,
      width: m.width,
      height: m.height,
      size_bytes: m.size_bytes,
      sha256: m.sha256,
      state: "PUBLISHED",
      permalink: `https://www.instagram.com/reel/${m.shortcode}/`,
      published_at: iso(m.published_at),
    };
  });
  const facebook = store.reels().filter((r) => isPublished(r, settings, now)).map((r) => ({
    video_id: r.video_id,
    post_id: `${r.page_id}_${r.video_id}`,
    page_id: r.page_id,
    page_name: store.page(r.page_id)?.name,
    description: r.description ?? "",
    title: r.title ?? null,
    video_state: r.video_state,
    privacy: "EVERYONE",
    duration_s: r.verdict?.ok ? r.verdict.duration_s : null,
    width: r.verdict?.ok ? r.verdict.width : null,
    height: r.verdict?.ok ? r.verdict.height : null,
    size_bytes: r.file_size,
    sha256: r.sha256,
    permalink_url: `https://www.facebook.com/reel/${r.video_id}`,
    published_at: iso(reelTimeline(r, settings, now).publishAt),
  }));
  return { instagram, facebook };
}

async function uploads(store: MetaStore, now: number) {
  const settings = store.settings();
  const containers = await Promise.all(
    store.containers().map(async (c) => {
      const status = containerStatus(c, now, settings);
      return {
        id: c.id,
        ig_user_id: c.ig_user_id,
        source: c.source,
        video_url: c.video_url,
        status_code: status,
        status: statusText(c, status),
        bytes_received: await store.files.size(c.id),
        file_size: c.file_size ?? null,
        verdict: c.verdict ?? null,
        created_at: iso(c.created_at),
        uploaded_at: iso(c.uploaded_at),
        published_media_id: c.published_media_id ?? null,
      };
    }),
  );
  const reels = await Promise.all(
    store.reels().map(async (r) => {
      const received = await store.files.size(r.video_id);
      return {
        video_id: r.video_id,
        page_id: r.page_id,
        status: reelStatus(r, received, settings, now),
        bytes_received: received,
        file_size: r.file_size ?? null,
        verdict: r.verdict ?? null,
        video_state: r.video_state ?? null,
        created_at: iso(r.created_at),
        finished_at: iso(r.finished_at),
      };
    }),
  );
  return { containers, reels };
}

const SETTING_BOUNDS: Record<Exclude<keyof MetaSettings, "seed">, [number, number]> = {
  ig_processing_delay_ms: [0, 3_600_000],
  fb_processing_delay_ms: [0, 3_600_000],
  ig_quota_total: [0, 100_000],
  fb_reels_per_24h: [0, 100_000],
  ig_min_duration_s: [0, 86_400],
  ig_max_duration_s: [0, 86_400],
  fb_min_duration_s: [0, 86_400],
  fb_max_duration_s: [0, 86_400],
  max_video_bytes: [1, 2 ** 31],
};

async function putSettings(req: Request, store: MetaStore): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, [...Object.keys(SETTING_BOUNDS), "seed"]);
  if (extra) return badRequest(extra);
  const patch: Partial<MetaSettings> = {};
  for (const [key, [min, max]] of Object.entries(SETTING_BOUNDS) as Array<[keyof typeof SETTING_BOUNDS, [number, number]]>) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) return badRequest(`${key} must be a whole number ${min}..${max}`);
    patch[key] = value;
  }
  if (body.seed !== undefined) {
    if (typeof body.seed !== "string" || body.seed.length < 1 || body.seed.length > 200) return badRequest("seed must be a string of 1..200 characters");
    patch.seed = body.seed;
  }
  if (Object.keys(patch).length === 0) return badRequest(`give at least one of ${[...Object.keys(SETTING_BOUNDS), "seed"].join(", ")}`);
  const next = { ...store.settings(), ...patch };
  if (next.ig_min_duration_s > next.ig_max_duration_s || next.fb_min_duration_s > next.fb_max_duration_s) {
    return badRequest("a minimum duration must not exceed its maximum");
  }
  return jsonResponse(await store.setSettings(patch));
}

const isPermissionList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((p) => typeof p === "string" && (PERMISSIONS as readonly string[]).includes(p));

async function putApp(req: Request, appId: string, store: MetaStore): Promise<Response> {
  if (!APP_ID.test(appId)) return badRequest("the app id must be 1..20 digits");
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["app_secret", "name", "redirect_uris", "configs"]);
  if (extra) return badRequest(extra);
  if (typeof body.app_secret !== "string" || !/^[A-Za-z0-9._-]{1,200}$/.test(body.app_secret)) {
    return badRequest("app_secret must be 1..200 letters, digits, '.', '_' or '-'");
  }
  if (body.name !== undefined && (typeof body.name !== "string" || body.name.length > 100)) {
    return badRequest("name must be a string of at most 100 characters");
  }
  const uris = body.redirect_uris ?? [];
  if (!Array.isArray(uris) || uris.some((u) => typeof u !== "string" || !httpUrl(u))) return badRequest("redirect_uris must be a list of http(s) URIs");
  const configs = body.configs ?? {};
  if (typeof configs !== "object" || configs === null || Array.isArray(configs)) return badRequest("configs must be an object: config_id -> permissions");
  for (const [id, scopes] of Object.entries(configs)) {
    if (!/^\d{1,20}$/.test(id) || !isPermissionList(scopes)) {
      return badRequest(`configs.${id} must be a digits id mapped to a list of: ${PERMISSIONS.join(", ")}`);
    }
  }
  const app = {
    app_id: appId,
    app_secret: body.app_secret,
    name: (body.name as string | undefined) ?? `App ${appId}`,
    redirect_uris: uris as string[],
    configs: configs as Record<string, string[]>,
  };
  await store.putApp(app);
  return jsonResponse(app);
}

function userView(store: MetaStore, login: string) {
  const user = store.userByLogin(login)!;
  return {
    user_id: user.user_id,
    login: user.login,
    name: user.name,
    pages: user.page_ids.map((id) => {
      const page = store.page(id)!;
      const ig = page.ig_user_id ? store.igAccount(page.ig_user_id) : undefined;
      return { page_id: page.page_id, name: page.name, instagram_business_account: ig ? { id: ig.ig_user_id, username: ig.username } : null };
    }),
  };
}

async function putUser(req: Request, login: string, store: MetaStore): Promise<Response> {
  if (!LOGIN.test(login)) return badRequest("the login must be 1..60 lowercase letters, digits, '.', '_' or '-'");
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["name", "pages"]);
  if (extra) return badRequest(extra);
  if (body.name !== undefined && (typeof body.name !== "string" || body.name.length < 1 || body.name.length > 100)) {
    return badRequest("name must be 1..100 characters");
  }
  const name = (body.name as string | undefined) ?? displayName(login);
  let pages: PageSpec[] = defaultPages(login, name);
  if (body.pages !== undefined) {
    if (!Array.isArray(body.pages) || body.pages.length > 20) return badRequest("pages must be a list of at most 20 {name, instagram_username?}");
    pages = [];
    for (const p of body.pages as unknown[]) {
      const spec = p as Record<string, unknown>;
      if (spec === null || typeof spec !== "object" || typeof spec.name !== "string" || spec.name.length < 1 || spec.name.length > 100) {
        return badRequest("each page needs a name of 1..100 characters");
      }
      const username = spec.instagram_username ?? null;
      if (username !== null && (typeof username !== "string" || !USERNAME.test(username))) {
        return badRequest("instagram_username must be null or 1..30 lowercase letters, digits, '.' or '_'");
      }
      if (pages.some((q) => q.name === spec.name)) return badRequest(`two pages are named ${spec.name}`);
      pages.push({ name: spec.name, instagram_username: username as string | null });
    }
  }
  await store.putUser(login, name, pages);
  return jsonResponse(userView(store, login));
}

async function putGrant(req: Request, store: MetaStore, now: number): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["app_id", "user", "scopes"]);
  if (extra) return badRequest(extra);
  if (typeof body.app_id !== "string" || typeof body.user !== "string") return badRequest("give app_id and user (a login)");
  if (!isPermissionList(body.scopes)) return badRequest(`scopes must be a list of: ${PERMISSIONS.join(", ")}`);
  const user = store.userByLogin(body.user);
  if (!store.app(body.app_id) || !user) return notFound("no such app or user");
  return jsonResponse(await store.setGrantScopes(body.app_id, user.user_id, [...new Set(body.scopes)], now));
}

async function putLimit(req: Request, accountId: string, store: MetaStore): Promise<Response> {
  const ig = store.igAccount(accountId);
  const page = store.page(accountId);
  if (!ig && !page) return notFound(`${accountId} is neither an Instagram account nor a Page of the emulator`);
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["limit"]);
  if (extra) return badRequest(extra);
  if (body.limit !== null && (typeof body.limit !== "number" || !Number.isInteger(body.limit) || body.limit < 0 || body.limit > 100_000)) {
    return badRequest("limit must be a whole number 0..100000, or null for the default");
  }
  await store.setLimit(accountId, body.limit as number | null);
  const settings = store.settings();
  const fallback = ig ? settings.ig_quota_total : settings.fb_reels_per_24h;
  return jsonResponse({ account_id: accountId, kind: ig ? "instagram" : "page", limit: store.limitFor(accountId, fallback) });
}

function revocationList(store: MetaStore) {
  const loginOf = (userId: string) => store.user(userId)?.login;
  return {
    grants: store.grants().filter((g) => g.revoked).map((g) => ({ app_id: g.app_id, user: loginOf(g.user_id), reason: g.revoked })),
    tokens: store.revokedTokens().map((t) => ({
      access_token: t.token,
      kind: t.kind,
      app_id: t.app_id,
      user: loginOf(t.user_id),
      page_id: t.page_id,
      reason: t.revoked,
    })),
  };
}

async function revoke(req: Request, ctx: EmulatorContext, store: MetaStore): Promise<Response> {
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["access_token", "app_id", "user", "reason"]);
  if (extra) return badRequest(extra);
  const reason = (body.reason ?? "password_changed") as RevokeReason;
  if (reason !== "password_changed" && reason !== "app_removed") return badRequest("reason must be password_changed or app_removed");
  if (typeof body.access_token === "string" && body.app_id === undefined && body.user === undefined) {
    const token = store.token(body.access_token);
    if (!token) return notFound("no such access token");
    return jsonResponse({ tokens_revoked: await store.revokeToken(token, reason), reason });
  }
  if (typeof body.app_id === "string" && typeof body.user === "string" && body.access_token === undefined) {
    const user = store.userByLogin(body.user);
    if (!user || !store.grant(body.app_id, user.user_id)) return notFound("no such grant: the user never consented to that app");
    const count = await store.revokeGrant(body.app_id, user.user_id, reason);
    ctx.log({ ts: new Date().toISOString(), service: "meta", event: "grant_revoked", app_id: body.app_id, user: body.user, reason });
    return jsonResponse({ app_id: body.app_id, user: body.user, tokens_revoked: count, reason });
  }
  return badRequest("give either access_token, or app_id and user");
}

function method(req: Request, allowed: string[], pathname: string): Response | undefined {
  return allowed.includes(req.method) ? undefined : jsonResponse({ error: `use ${allowed.join(" or ")} on ${pathname}` }, 405);
}

export async function handleMetaAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const { pathname } = url;
  const store = await metaFor(ctx);
  const now = ctx.clock.now();
  let parts: string[];
  try {
    parts = pathname.slice("/_emulator/meta/".length).split("/").map((s) => decodeURIComponent(s));
  } catch {
    return badRequest("the path is not valid percent-encoding");
  }
  const [section, key, ...rest] = parts;
  if (rest.length > 0) return undefined;
  if (key === undefined) {
    switch (section) {
      case "posts":
        return method(req, ["GET"], pathname) ?? jsonResponse(posts(store, now));
      case "uploads":
        return method(req, ["GET"], pathname) ?? jsonResponse(await uploads(store, now));
      case "settings":
        return method(req, ["GET", "PUT"], pathname) ?? (req.method === "GET" ? jsonResponse(store.settings()) : await putSettings(req, store));
      case "apps":
        return method(req, ["GET"], pathname) ?? jsonResponse(store.apps());
      case "users":
        return method(req, ["GET"], pathname) ?? jsonResponse(store.users().map((u) => userView(store, u.login)));
      case "grants":
        return method(req, ["GET", "PUT"], pathname) ??
          (req.method === "GET" ? jsonResponse(store.grants().map((g) => ({ ...g, user: store.user(g.user_id)?.login }))) : await putGrant(req, store, now));
      case "limits":
        return method(req, ["GET"], pathname) ?? jsonResponse(store.limits());
      case "revocations":
        return method(req, ["GET", "POST"], pathname) ?? (req.method === "GET" ? jsonResponse(revocationList(store)) : await revoke(req, ctx, store));
    }
    return undefined;
  }
  if (section === "apps") return method(req, ["PUT"], pathname) ?? await putApp(req, key, store);
  if (section === "users") return method(req, ["PUT"], pathname) ?? await putUser(req, key, store);
  if (section === "limits") return method(req, ["PUT"], pathname) ?? await putLimit(req, key, store);
  return undefined;
}
