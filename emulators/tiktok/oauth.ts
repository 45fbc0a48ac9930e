/**
 * TikTok Login Kit OAuth v2 for desktop apps (PKCE), as TikTok documents it:
 *
 * - `GET /v2/auth/authorize/` (TikTok serves it at www.tiktok.com) with `client_key`, `scope`
 *   (comma-separated), `response_type=code`, `redirect_uri`, `state`, `code_challenge`,
 *   `code_challenge_method=S256`: the "user" consents at once, as one clicking "Authorize" would,
 *   with a 302 to `redirect_uri?code=...&scopes=...&state=...`. The signed-in user is named by the
 *   emulator's `login_hint` parameter (its part before any `@`; default `emulator-creator`), as the
 *   Google emulator does. Refused with an error page naming the parameter (TikTok's "correct the
 *   following: <param>" page): no client_key, a response type other than `code`, a scope that is
 *   empty or unknown, a redirect URI that is not a static http(s) URI on localhost or 127.0.0.1
 *   with a port (the desktop rules), a challenge method other than S256 or a challenge that is not
 *   64 hex digits. The desktop guide derives the challenge as the hex SHA-256 of the verifier
 *   (not RFC 7636's base64url), and the token endpoint checks it that way.
 * - `POST /v2/oauth/token/` (form-encoded): `grant_type=authorization_code` with `client_key`,
 *   `client_secret`, `code`, `redirect_uri`, `code_verifier` -> `{access_token, expires_in: 86400,
 *   open_id, refresh_expires_in, refresh_token, scope, token_type: "Bearer"}`; the code is
 *   single-use, lives 10 minutes, and is redeemed only by its client and redirect URI with the
 *   verifier it was issued for. `grant_type=refresh_token` with `client_key`, `client_secret`,
 *   `refresh_token` -> the same answer with a new access token and the same refresh token (its
 *   `refresh_expires_in` counting down), or a new refresh token when the setting
 *   `rotate_refresh_tokens` is on (the old one is then refused with `invalid_grant`). Errors `{error, error_description, log_id}`: 401
 *   `invalid_client` (no client_key or client_secret), 400 `invalid_request` (a missing parameter,
 *   a verifier that does not match: "Code verifier or code challenge is invalid."), 400
 *   `invalid_grant` (a code unknown, used, expired, of another client or redirect URI; a refresh
 *   token unknown, expired, revoked or of another client; an armed `tiktok` `invalid_grant`
 *   fault), 400 `unsupported_grant_type`.
 * - `POST /v2/oauth/revoke/` (form-encoded `client_key`, `client_secret`, `token`): revokes the
 *   user's grant to the client (TikTok documents the access token; a refresh token is accepted
 *   too): every access token of it stops working and its refresh token answers `invalid_grant`
 *   until the user consents again. 200 `{}`; an unknown or dead token is 400 `invalid_request`.
 *
 * Access tokens expire on the emulator clock after 24 hours, refresh tokens after 365 days.
 */
import { createHash } from "node:crypto";
import { isBodyTooLargeError, readBoundedText } from "../../shared/http/bounded-body.ts";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { oauthError } from "./errors.ts";
import { tiktokFor } from "./state.ts";
import { ACCESS_TOKEN_LIFETIME_S, type AccessToken, type Grant } from "./store.ts";

const AUTHORIZE_PATH = "/v2/auth/authorize/";
const TOKEN_PATH = "/v2/oauth/token/";
export const REVOKE_PATH = "/v2/oauth/revoke/";
/** The user a consent without `login_hint` signs in as. */
const DEFAULT_USER = "emulator-creator";
const SCOPES = ["user.info.basic", "user.info.profile", "user.info.stats", "video.list", "video.publish", "video.upload"] as const;

const MAX_FORM_BYTES = 8 * 1024;
const CLIENT_KEY = /^[A-Za-z0-9._-]{1,100}$/;
const HEX_CHALLENGE = /^[0-9a-f]{64}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** TikTok's refusal page for an authorization request it cannot serve (it never redirects to an unchecked URI). */
function consentErrorPage(param: string, detail: string): Response {
  const body =
    `<!doctype html><title>TikTok</title><h1>Something went wrong</h1><p>We couldn't log in with TikTok. This may be due to specific app settings.</p><p>If you're a developer, correct the following and try again:</p><p><b>${param}</b></p><p>${detail}</p>`;
  return new Response(body, { status: 400, headers: { "content-type": "text/html; charset=utf-8" } });
}

/** A desktop redirect URI: absolute http(s), host localhost or 127.0.0.1 with a port, no query or fragment, under 512 characters. */
function isDesktopRedirect(uri: string): boolean {
  if (uri.length >= 512) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && (url.hostname === "localhost" || url.hostname === "127.0.0.1") &&
    url.port !== "" && url.search === "" && url.hash === "" && !uri.includes("?") && !uri.includes("#");
}

function userFromHint(hint: string | null): string {
  const name = (hint ?? "").split("@")[0]!.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return name || DEFAULT_USER;
}

async function authorize(url: URL, ctx: EmulatorContext): Promise<Response> {
  const q = url.searchParams;
  const clientKey = q.get("client_key") ?? "";
  if (!CLIENT_KEY.test(clientKey)) return consentErrorPage("client_key", "The client_key is missing or not a TikTok client key.");
  if (q.get("response_type") !== "code") return consentErrorPage("response_type", "response_type must be code.");
  const scopes = (q.get("scope") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) {
    return consentErrorPage(
      "scope",
      `scope must be a comma-separated list of ${SCOPES.join(", ")}${unknown.length ? `; unknown: ${unknown.join(", ")}` : ""}.`,
    );
  }
  const redirectUri = q.get("redirect_uri") ?? "";
  if (!isDesktopRedirect(redirectUri)) {
    return consentErrorPage(
      "redirect_uri",
      "A desktop redirect URI is an absolute http(s) URI on localhost or 127.0.0.1 with a port, with no parameters or fragment.",
    );
  }
  if (q.get("code_challenge_method") !== "S256") return consentErrorPage("code_challenge_method", "code_challenge_method must be S256.");
  const challenge = q.get("code_challenge") ?? "";
  if (!HEX_CHALLENGE.test(challenge)) {
    return consentErrorPage("code_challenge", "code_challenge must be the SHA-256 of the code verifier in hex (64 lowercase hex digits).");
  }
  const store = await tiktokFor(ctx);
  const scope = [...new Set(scopes)].join(",");
  const code = store.issueCode(
    { client_key: clientKey, redirect_uri: redirectUri, code_challenge: challenge, scope, user: userFromHint(q.get("login_hint")) },
    ctx.clock.now(),
  );
  const target = new URL(redirectUri);
  target.searchParams.set("code", code);
  target.searchParams.set("scopes", scope);
  const state = q.get("state");
  if (state !== null) target.searchParams.set("state", state);
  return new Response(null, { status: 302, headers: { location: target.toString() } });
}

/** The form of a token or revoke call; a Response when it cannot be read. */
async function readForm(req: Request): Promise<Record<string, string> | Response> {
  if (req.method !== "POST") return oauthError(405, "invalid_request", "Use POST.");
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return oauthError(400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded.");
  }
  try {
    return Object.fromEntries(new URLSearchParams(await readBoundedText(req, MAX_FORM_BYTES)));
  } catch (error) {
    if (isBodyTooLargeError(error)) return oauthError(413, "invalid_request", `The body must be at most ${MAX_FORM_BYTES} bytes.`);
    return oauthError(400, "invalid_request", "The body is not valid UTF-8.");
  }
}

function tokenAnswer(grant: Grant, token: AccessToken, now: number): Response {
  return jsonResponse({
    access_token: token.access_token,
    expires_in: ACCESS_TOKEN_LIFETIME_S,
    open_id: grant.open_id,
    refresh_expires_in: Math.max(0, Math.floor((grant.refresh_expires_at - now) / 1000)),
    refresh_token: grant.refresh_token,
    scope: grant.scope,
    token_type: "Bearer",
  });
}

async function token(req: Request, ctx: EmulatorContext): Promise<Response> {
  const form = await readForm(req);
  if (form instanceof Response) return form;
  if (!form.client_key || !form.client_secret) return oauthError(401, "invalid_client", "Client key or secret is missing or invalid.");
  const store = await tiktokFor(ctx);
  const now = ctx.clock.now();
  if (form.grant_type === "authorization_code") {
    for (const name of ["code", "redirect_uri", "code_verifier"]) {
      if (!form[name]) return oauthError(400, "invalid_request", `Missing required parameter: ${name}.`);
    }
    const pending = store.takeCode(form.code!, now);
    if (!pending) return oauthError(400, "invalid_grant", "Authorization code is expired, already used or invalid.");
    if (pending.client_key !== form.client_key) return oauthError(400, "invalid_grant", "Authorization code was issued to another client.");
    if (pending.redirect_uri !== form.redirect_uri) {
      return oauthError(400, "invalid_grant", "redirect_uri does not match the one of the authorization request.");
    }
    const verifier = form.code_verifier!;
    if (!VERIFIER.test(verifier) || createHash("sha256").update(verifier).digest("hex") !== pending.code_challenge) {
      return oauthError(400, "invalid_request", "Code verifier or code challenge is invalid.");
    }
    const { grant, token: issued } = await store.grant(pending.client_key, pending.user, pending.scope, now);
    return tokenAnswer(grant, issued, now);
  }
  if (form.grant_type === "refresh_token") {
    if (!form.refresh_token) return oauthError(400, "invalid_request", "Missing required parameter: refresh_token.");
    const grant = store.grantFor(form.refresh_token);
    if (
      ctx.faults.take("tiktok", (kind) => kind === "invalid_grant") || !grant || grant.revoked || grant.client_key !== form.client_key ||
      grant.refresh_expires_at <= now
    ) {
      return oauthError(400, "invalid_grant", "Refresh token is invalid or expired.");
    }
    return tokenAnswer(grant, await store.refresh(grant, now), now);
  }
  return oauthError(400, "unsupported_grant_type", `Unsupported grant_type: ${form.grant_type ?? ""}.`);
}

async function revoke(req: Request, ctx: EmulatorContext): Promise<Response> {
  const form = await readForm(req);
  if (form instanceof Response) return form;
  if (!form.client_key || !form.client_secret) return oauthError(401, "invalid_client", "Client key or secret is missing or invalid.");
  if (!form.token) return oauthError(400, "invalid_request", "Missing required parameter: token.");
  const store = await tiktokFor(ctx);
  const now = ctx.clock.now();
  const grant = store.verify(form.token, now)?.grant ?? store.grantFor(form.token);
  if (!grant || grant.revoked || grant.client_key !== form.client_key) {
    return oauthError(400, "invalid_request", "The token is invalid, expired or already revoked.");
  }
  await store.revoke(grant);
  return jsonResponse({});
}

export async function handleTikTokOAuth(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === AUTHORIZE_PATH) return req.method === "GET" ? await authorize(url, ctx) : consentErrorPage("method", "Authorization requests use GET.");
  if (url.pathname === TOKEN_PATH) return await token(req, ctx);
  if (url.pathname === REVOKE_PATH) return await revoke(req, ctx);
  return undefined;
}
