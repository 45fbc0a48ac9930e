/**
 * The Meta emulator's state for one data dir (store.ts), and the checks every Graph API call goes
 * through, in this order:
 *
 * 1. an armed `slow` fault waits;
 * 2. the token, from the `access_token` parameter or `Authorization: Bearer|OAuth <token>`:
 *    none is code 104 "An access token is required to request this resource."; one the emulator
 *    never issued is code 190 "Invalid OAuth access token - Cannot parse access token"; an expired
 *    one is 190/463 "Session has expired"; a revoked one 190/460 (the user changed their password:
 *    the session was invalidated) or 190/458 (the user removed the app). The Graph API
 *    "Handling Errors" page names these subcodes. Expiry is on the emulator clock;
 * 3. armed `token_expired` / `session_invalidated` faults refuse a valid token the same way;
 * 4. the permissions the route needs, from the user's grant to the app (admin.ts can take some
 *    away): missing ones are code 10 "(#10) Application does not have permission for this action"
 *    on Instagram routes and code 200 on Page routes (codes 10 and 200-299 are Graph's permission
 *    errors); a Page route that needs a Page token refuses a user token with code 200;
 * 5. armed rate-limit faults (`rate_limited`: Business Use Case code 80002 for Instagram or 80001
 *    for a Page token, with `X-Business-Use-Case-Usage`; `app_rate_limited`: code 4 with
 *    `X-App-Usage`; `page_rate_limited`: code 32 with `X-Page-Usage`), then `http_500`/`http_503`
 *    (code 2, `is_transient: true`).
 */
import type { EmulatorContext } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { graphError } from "./graph.ts";
import type { AccessToken, Grant, MetaUser } from "./model.ts";
import { REVOKE_SUBCODES } from "./model.ts";
import { MetaStore } from "./store.ts";

const stores = new Map<string, Promise<MetaStore>>();

export function metaFor(ctx: EmulatorContext): Promise<MetaStore> {
  let store = stores.get(ctx.dataDir);
  if (!store) {
    const created = new MetaStore(ctx.dataDir);
    store = created.load().then(() => registerConfiguredApp(ctx, created)).then(() => created);
    stores.set(ctx.dataDir, store);
  }
  return store;
}

/** The app the emulator was started with (EmulatorContext.metaApp), registered when the state lacks it. */
async function registerConfiguredApp(ctx: EmulatorContext, store: MetaStore): Promise<void> {
  const configured = ctx.metaApp;
  if (!configured || store.app(configured.appId)) return;
  await store.putApp({ app_id: configured.appId, app_secret: configured.appSecret, name: "MD-AME", redirect_uris: [], configs: {} });
}

export async function resetMeta(ctx: EmulatorContext): Promise<void> {
  const store = await metaFor(ctx);
  await store.reset();
  await registerConfiguredApp(ctx, store);
}

export interface Caller {
  store: MetaStore;
  token: AccessToken;
  grant: Grant;
  user: MetaUser;
  now: number;
}

export interface TokenRefusal {
  code: number;
  subcode?: number;
  message: string;
}

/** The token a request carries, if any. */
export function presentedToken(req: Request, params: Record<string, string>): string | undefined {
  if (params.access_token) return params.access_token;
  const match = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  return match?.[1];
}

const CANNOT_PARSE: TokenRefusal = { code: 190, message: "Invalid OAuth access token - Cannot parse access token" };

export function expiredRefusal(expiresAt: number, now: number): TokenRefusal {
  return {
    code: 190,
    subcode: 463,
    message: `Error validating access token: Session has expired on ${new Date(expiresAt).toUTCString()}. The current time is ${new Date(now).toUTCString()}.`,
  };
}

export function revokedRefusal(token: Pick<AccessToken, "app_id" | "revoked">): TokenRefusal {
  if (token.revoked === "app_removed") {
    return {
      code: 190,
      subcode: REVOKE_SUBCODES.app_removed,
      message: `Error validating access token: The user has not authorized application ${token.app_id}.`,
    };
  }
  return {
    code: 190,
    subcode: REVOKE_SUBCODES.password_changed,
    message:
      "Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.",
  };
}

/** The token's record and grant, or why Graph refuses it (without faults). */
export function checkToken(store: MetaStore, presented: string, now: number): { token: AccessToken; grant: Grant; user: MetaUser } | TokenRefusal {
  const token = store.token(presented);
  if (!token) return CANNOT_PARSE;
  if (token.revoked) return revokedRefusal(token);
  if (token.expires_at !== null && token.expires_at <= now) return expiredRefusal(token.expires_at, now);
  const grant = store.grant(token.app_id, token.user_id);
  const user = store.user(token.user_id);
  if (!grant || grant.revoked || !user) return revokedRefusal({ app_id: token.app_id, revoked: grant?.revoked ?? "app_removed" });
  return { token, grant, user };
}

/** An armed `token_expired` or `session_invalidated` fault, as the refusal it stands for. */
export function tokenFault(ctx: EmulatorContext, token: AccessToken, now: number): TokenRefusal | undefined {
  const fault = ctx.faults.take("meta", (kind) => kind === "token_expired" || kind === "session_invalidated");
  if (fault?.kind === "token_expired") return expiredRefusal(Math.min(now, token.expires_at ?? now), now);
  if (fault?.kind === "session_invalidated") return revokedRefusal({ app_id: token.app_id, revoked: "password_changed" });
  return undefined;
}

export const refusalResponse = (r: TokenRefusal) => graphError(r.code, r.message, { subcode: r.subcode });

export type RateContext = "instagram" | "page" | "app";

/** Steps 1 and 5 for a call made without a token (the token endpoint): its wait and its armed faults. */
export async function openCallFaults(ctx: EmulatorContext): Promise<Response | undefined> {
  await slowDown(ctx.faults, "meta");
  return graphFaults(ctx, "app");
}

/** Armed rate-limit and outage faults of a Graph call; undefined when none applies. */
function graphFaults(ctx: EmulatorContext, context: RateContext, businessId = ""): Response | undefined {
  const fault = ctx.faults.take("meta", (k) => ["rate_limited", "app_rate_limited", "page_rate_limited", "http_500", "http_503"].includes(k));
  if (!fault) return undefined;
  const usage = { call_count: 100, total_cputime: 24, total_time: 31 };
  const appLimited = () => graphError(4, "(#4) Application request limit reached", { transient: true, headers: { "x-app-usage": JSON.stringify(usage) } });
  switch (fault.kind) {
    case "rate_limited": {
      if (context === "app") return appLimited();
      const code = context === "instagram" ? 80002 : 80001;
      const what = context === "instagram" ? "Instagram" : "Page";
      const header = { [businessId]: [{ type: context === "instagram" ? "instagram" : "pages", ...usage, estimated_time_to_regain_access: 5 }] };
      return graphError(
        code,
        `(#${code}) There have been too many calls to this ${what} account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.`,
        { transient: true, headers: { "x-business-use-case-usage": JSON.stringify(header) } },
      );
    }
    case "app_rate_limited":
      return appLimited();
    case "page_rate_limited":
      return graphError(32, "(#32) Page request limit reached", { transient: true, headers: { "x-page-usage": JSON.stringify(usage) } });
    case "http_500":
      return graphError(2, "An unexpected error has occurred. Please retry your request later.", { transient: true, status: 500 });
    default:
      return graphError(2, "Service temporarily unavailable", { transient: true, status: 503 });
  }
}

export interface GateOptions {
  /** Permissions every one of which the grant must hold. */
  scopes: readonly string[];
  /** The code a missing permission is answered with: 10 on Instagram routes, 200 on Page routes. */
  permissionCode: 10 | 200;
  rateContext: RateContext;
  /** The object the call is about (the Business Use Case header names it). */
  businessId?: string;
  /** Page routes that need a Page token of this Page. */
  pageTokenFor?: string;
}

/** Steps 2 to 5 of the module comment for an authenticated Graph call; the caller or the refusal. */
export async function gate(req: Request, params: Record<string, string>, ctx: EmulatorContext, options: GateOptions): Promise<Caller | Response> {
  await slowDown(ctx.faults, "meta");
  const store = await metaFor(ctx);
  const now = ctx.clock.now();
  const presented = presentedToken(req, params);
  if (!presented) return graphError(104, "An access token is required to request this resource.");
  if (/^\d+\|/.test(presented) && store.app(presented.split("|")[0]!)) {
    return graphError(200, "(#200) This call requires a user or Page access token; an app access token cannot make it.");
  }
  const checked = checkToken(store, presented, now);
  if ("code" in checked) return refusalResponse(checked);
  const faulted = tokenFault(ctx, checked.token, now);
  if (faulted) return refusalResponse(faulted);
  const missing = options.scopes.filter((s) => !checked.grant.scopes.includes(s));
  if (missing.length > 0) {
    return options.permissionCode === 10
      ? graphError(10, `(#10) Application does not have permission for this action (missing permission: ${missing.join(", ")})`)
      : graphError(200, `(#200) This call requires the ${options.scopes.join(", ")} permissions; the token's grant lacks ${missing.join(", ")}.`);
  }
  if (options.pageTokenFor !== undefined && (checked.token.kind !== "page" || checked.token.page_id !== options.pageTokenFor)) {
    return graphError(200, `(#200) Publishing a reel requires a Page access token of Page ${options.pageTokenFor} (get it from /me/accounts).`);
  }
  const fault = graphFaults(ctx, options.rateContext, options.businessId ?? options.pageTokenFor ?? checked.token.page_id ?? checked.user.user_id);
  if (fault) return fault;
  return { store, ...checked, now };
}

/** Whether the caller may act for the Page: its owner's user token, or that Page's token. */
export function managesPage(caller: Caller, pageId: string): boolean {
  if (caller.token.kind === "page") return caller.token.page_id === pageId;
  return caller.user.page_ids.includes(pageId);
}
