/**
 * Facebook Login for Business as a desktop or CLI app drives it with browser redirects (Facebook
 * Login, "Manually Build a Login Flow"), and the token calls around it:
 *
 * - `GET /{v}/dialog/oauth` (Facebook serves it at www.facebook.com) with `client_id`,
 *   `redirect_uri`, `state`, `response_type=code` (the default), the permissions as `scope`
 *   (comma-separated) or a Login for Business `config_id` (a configuration registered with the
 *   app, admin.ts), and optionally `code_challenge` + `code_challenge_method` (S256 or plain). The
 *   user consents at once, as one clicking "Continue" would: 302 to
 *   `redirect_uri?code=...&state=...#_=_`. The signed-in user is the emulator's `login_hint`
 *   (default `emulator-user`); an unknown one is created with one Page and its Instagram
 *   professional account. `emulator_consent=deny` makes the user cancel: 302 with
 *   `error=access_denied&error_code=200&error_description=Permissions+error&error_reason=user_denied`.
 *   An app that is not registered, a redirect URI not among the app's valid OAuth redirect URIs
 *   (any absolute http(s) URI when it lists none), an unknown permission or configuration gets
 *   Facebook's error page (HTTP 400), never a redirect.
 * - `GET|POST /{v}/oauth/access_token` with `client_id`, `redirect_uri`, `client_secret`, `code`
 *   (and `code_verifier` when the dialog had a challenge) -> `{access_token, token_type: "bearer",
 *   expires_in}`: a short-lived user token (1 hour). The code lives 10 minutes and is redeemed once.
 *   Refusals: code 101 (no or unknown client_id), code 1 "Error validating client secret.", code
 *   100 with subcode 36007 (code expired), 36008 (redirect_uri not the dialog's, or another app's
 *   code), 36009 (code already used).
 * - The same endpoint with `grant_type=fb_exchange_token`, `client_id`, `client_secret`,
 *   `fb_exchange_token` -> a long-lived user token, `expires_in` about 60 days (5184000 s). An
 *   expired or revoked token cannot be exchanged (code 190).
 * - `GET /{v}/debug_token?input_token=...` with an app token `{app-id}|{app-secret}` or a user
 *   token of the same app -> `{data: {app_id, type: USER|PAGE, application, data_access_expires_at,
 *   expires_at (0: never), is_valid, issued_at, scopes, granular_scopes, user_id, profile_id?,
 *   error?}}`; an invalid input token is `is_valid: false` with its code-190 error inside `data`.
 */
import { createHash } from "node:crypto";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { checkToken, metaFor, openCallFaults, presentedToken, refusalResponse } from "./auth.ts";
import { graphError, httpUrl, invalidParameter, readParams } from "./graph.ts";
import { type AccessToken, DATA_ACCESS_MS, type MetaApp, type MetaUser, type PageSpec, PERMISSIONS } from "./model.ts";
import type { MetaStore } from "./store.ts";

const DEFAULT_LOGIN = "emulator-user";

function loginPage(title: string, detail: string): Response {
  const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = `<!doctype html><title>Facebook</title><h1>${escape(title)}</h1><p>${escape(detail)}</p><p>This message is only shown to developers.</p>`;
  return new Response(body, { status: 400, headers: { "content-type": "text/html; charset=utf-8" } });
}

export function loginFromHint(hint: string | null): string {
  const name = (hint ?? "").split("@")[0]!.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return name || DEFAULT_LOGIN;
}

export const displayName = (login: string) => login.replace(/[-_.]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());

/** A new user's Pages unless told otherwise: one, named after the user, with the Instagram account `<login>`. */
export const defaultPages = (login: string, name: string): PageSpec[] => [{ name, instagram_username: login.replace(/-/g, "_").slice(0, 30) }];

/** The user the dialog signs in: created with the default Page and Instagram account when new. */
export async function signedInUser(store: MetaStore, login: string): Promise<MetaUser> {
  return store.userByLogin(login) ?? await store.putUser(login, displayName(login), defaultPages(login, displayName(login)));
}

function redirectAllowed(app: MetaApp, uri: string): boolean {
  if (!httpUrl(uri) || uri.length > 2000) return false;
  return app.redirect_uris.length === 0 || app.redirect_uris.includes(uri);
}

async function dialog(url: URL, ctx: EmulatorContext): Promise<Response> {
  const q = url.searchParams;
  const store = await metaFor(ctx);
  const app = store.app(q.get("client_id") ?? "");
  if (!app) return loginPage("Invalid App ID", "The provided app ID does not look like a valid app ID.");
  const redirectUri = q.get("redirect_uri") ?? "";
  if (!redirectAllowed(app, redirectUri)) {
    return loginPage(
      "URL blocked",
      "This redirect failed because the redirect URI is not white-listed in the app's client OAuth settings. Make sure that the client and web OAuth logins are on and add all your app domains as valid OAuth redirect URIs.",
    );
  }
  const responseType = q.get("response_type") ?? "code";
  if (responseType !== "code") return loginPage("Unsupported response_type", `response_type ${responseType} is not emulated: use code.`);
  let scopes: string[];
  const configId = q.get("config_id");
  if (configId !== null) {
    const configured = app.configs[configId];
    if (!configured) return loginPage("Invalid configuration", `The configuration ${configId} does not belong to app ${app.app_id}.`);
    scopes = configured;
  } else {
    scopes = (q.get("scope") ?? "").split(/[,\s]+/).filter(Boolean);
    const unknown = scopes.filter((s) => !(PERMISSIONS as readonly string[]).includes(s));
    if (unknown.length > 0) return loginPage("Invalid Scopes", `Invalid Scopes: ${unknown.join(", ")}.`);
  }
  const challenge = q.get("code_challenge") ?? undefined;
  const method = q.get("code_challenge_method") ?? (challenge ? "plain" : undefined);
  if (challenge !== undefined && (method !== "S256" && method !== "plain" || !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge))) {
    return loginPage("Invalid code_challenge", "code_challenge must be 43-128 URL-safe characters and code_challenge_method S256 or plain.");
  }
  const target = new URL(redirectUri);
  const state = q.get("state");
  if (q.get("emulator_consent") === "deny") {
    for (const [k, v] of [["error", "access_denied"], ["error_code", "200"], ["error_description", "Permissions error"], ["error_reason", "user_denied"]]) {
      target.searchParams.set(k!, v!);
    }
  } else {
    const user = await signedInUser(store, loginFromHint(q.get("login_hint")));
    const now = ctx.clock.now();
    const granted = [...new Set(["public_profile", ...scopes])];
    await store.consent(app.app_id, user.user_id, granted, now);
    const code = store.issueCode(
      {
        app_id: app.app_id,
        user_id: user.user_id,
        redirect_uri: redirectUri,
        scopes: granted,
        code_challenge: challenge,
        code_challenge_method: method as "S256" | "plain" | undefined,
      },
      now,
    );
    target.searchParams.set("code", code);
  }
  if (state !== null) target.searchParams.set("state", state);
  target.hash = "_=_";
  return new Response(null, { status: 302, headers: { location: target.toString() } });
}

function tokenAnswer(token: AccessToken, now: number): Response {
  return jsonResponse({ access_token: token.token, token_type: "bearer", expires_in: Math.max(0, Math.floor(((token.expires_at ?? now) - now) / 1000)) });
}

async function accessToken(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const fault = await openCallFaults(ctx);
  if (fault) return fault;
  const store = await metaFor(ctx);
  const now = ctx.clock.now();
  if (!params.client_id) return graphError(101, "Missing client_id parameter.");
  const app = store.app(params.client_id);
  if (!app) return graphError(101, "Error validating application. Invalid application ID.");
  if (params.client_secret !== app.app_secret) return graphError(1, "Error validating client secret.");
  if (params.grant_type === "fb_exchange_token") {
    if (!params.fb_exchange_token) return invalidParameter("Missing fb_exchange_token parameter.");
    const checked = checkToken(store, params.fb_exchange_token, now);
    if ("code" in checked) return refusalResponse(checked);
    if (checked.token.kind !== "user" || checked.token.app_id !== app.app_id) {
      return invalidParameter("fb_exchange_token must be a user access token of this app.");
    }
    return tokenAnswer(await store.issueUserToken(app.app_id, checked.user.user_id, true, now), now);
  }
  if (params.grant_type !== undefined && params.grant_type !== "authorization_code") return invalidParameter(`Unsupported grant_type: ${params.grant_type}.`);
  if (!params.redirect_uri) return invalidParameter("Missing redirect_uri parameter.");
  if (!params.code) return invalidParameter("Missing code parameter.");
  const pending = store.takeCode(params.code, now);
  if (pending === "unknown") return invalidParameter("Invalid verification code format.");
  if (pending === "used") return invalidParameter("This authorization code has been used.", { subcode: 36009 });
  if (pending === "expired") return invalidParameter("This authorization code has expired.", { subcode: 36007 });
  if (pending.app_id !== app.app_id || pending.redirect_uri !== params.redirect_uri) {
    return invalidParameter(
      "Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request",
      { subcode: 36008 },
    );
  }
  if (pending.code_challenge !== undefined) {
    const verifier = params.code_verifier ?? "";
    const derived = pending.code_challenge_method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
    if (!verifier || derived !== pending.code_challenge) return invalidParameter("Invalid code_verifier: it does not match the code_challenge of the dialog.");
  }
  const grant = store.grant(app.app_id, pending.user_id);
  if (!grant || grant.revoked) {
    return graphError(190, `Error validating access token: The user has not authorized application ${app.app_id}.`, { subcode: 458 });
  }
  return tokenAnswer(await store.issueUserToken(app.app_id, pending.user_id, false, now), now);
}

const seconds = (ms: number) => Math.floor(ms / 1000);

function debugData(store: MetaStore, input: string, now: number): Record<string, unknown> {
  const token = store.token(input);
  if (!token) return { error: { code: 190, message: "Invalid OAuth access token - Cannot parse access token" }, is_valid: false, scopes: [] };
  const app = store.app(token.app_id);
  const grant = store.grant(token.app_id, token.user_id);
  const user = store.user(token.user_id);
  const scopes = grant && !grant.revoked ? grant.scopes : [];
  const pages = (user?.page_ids ?? []).filter((id) => token.kind === "user" || id === token.page_id);
  const igIds = pages.map((id) => store.page(id)?.ig_user_id).filter((id): id is string => id !== undefined);
  const data: Record<string, unknown> = {
    app_id: token.app_id,
    type: token.kind === "page" ? "PAGE" : "USER",
    application: app?.name ?? token.app_id,
    data_access_expires_at: seconds((grant?.consented_at ?? token.issued_at) + DATA_ACCESS_MS),
    expires_at: token.expires_at === null ? 0 : seconds(token.expires_at),
    is_valid: true,
    issued_at: seconds(token.issued_at),
    scopes,
    granular_scopes: scopes.map((scope) => {
      const targets = scope.startsWith("pages_") ? pages : scope.startsWith("instagram_") ? igIds : undefined;
      return targets ? { scope, target_ids: targets } : { scope };
    }),
    user_id: token.user_id,
  };
  if (token.kind === "page") data.profile_id = token.page_id;
  const checked = checkToken(store, input, now);
  if ("code" in checked) {
    data.is_valid = false;
    data.error = { code: checked.code, message: checked.message, ...(checked.subcode ? { subcode: checked.subcode } : {}) };
  }
  return data;
}

async function debugToken(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const fault = await openCallFaults(ctx);
  if (fault) return fault;
  const store = await metaFor(ctx);
  const now = ctx.clock.now();
  const presented = presentedToken(req, params);
  if (!presented) return graphError(104, "An access token is required to request this resource.");
  let appId: string;
  const [id, secret] = presented.split("|");
  if (secret !== undefined) {
    const app = store.app(id!);
    if (!app || app.app_secret !== secret) return graphError(190, "Invalid OAuth access token signature.");
    appId = app.app_id;
  } else {
    const checked = checkToken(store, presented, now);
    if ("code" in checked) return refusalResponse(checked);
    appId = checked.token.app_id;
  }
  if (!params.input_token) return invalidParameter("(#100) The parameter input_token is required");
  const inspected = store.token(params.input_token);
  if (inspected && inspected.app_id !== appId) {
    return invalidParameter("(#100) You must provide an app access token, or a user access token that is an owner or developer of the app");
  }
  return jsonResponse({ data: debugData(store, params.input_token, now) });
}

/** `rest` is the path after the version: `/dialog/oauth`, `/oauth/access_token`, `/debug_token`. */
export async function handleMetaOAuth(req: Request, url: URL, rest: string, ctx: EmulatorContext): Promise<Response | undefined> {
  if (rest === "/dialog/oauth") return req.method === "GET" ? await dialog(url, ctx) : loginPage("Method not allowed", "The login dialog is opened with GET.");
  if (rest === "/oauth/access_token") return await accessToken(req, url, ctx);
  if (rest === "/debug_token") return await debugToken(req, url, ctx);
  return undefined;
}
