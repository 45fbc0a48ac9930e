/**
 * Google OAuth 2.0 for installed apps, as google-auth-library's OAuth2Client speaks it:
 *
 * - `GET /o/oauth2/v2/auth` (the authorization endpoint): consents at once, as a user clicking
 *   "Allow" would, with a 302 to `redirect_uri?code=...&scope=...&state=...`. Refused with an error
 *   page, as Google refuses them: a client id that is not a Google client id (401 invalid_client), a
 *   redirect URI that is not an http loopback address (400 redirect_uri_mismatch), a missing or
 *   non-S256 PKCE challenge, a missing scope, a response type other than `code` (400). The signed-in
 *   "user" owns the channel named by `login_hint` (its part before any `@`), else `emulator-channel`.
 * - `POST /token`, form-encoded:
 *   - `grant_type=authorization_code&code&client_id&client_secret&redirect_uri&code_verifier`: the
 *     code is single-use, expires after 10 minutes, and is redeemed only by the client and redirect
 *     URI it was issued to with the verifier whose S256 hash is its challenge. With
 *     `access_type=offline` the answer carries a refresh token.
 *   - `grant_type=refresh_token&client_id&client_secret&refresh_token`: 400 `invalid_grant` ("Token
 *     has been expired or revoked.") for a token revoked (revocation.ts) or not of the form below,
 *     and for the next `count` grants while a `google-oauth` `invalid_grant` fault is armed.
 *   A client registered with the emulator must present its own secret (401 `invalid_client`), and a
 *   refresh token consented through one client is refused to another (400 `unauthorized_client`):
 *   clients.ts, which also records the client of every refresh grant.
 * - `POST /revoke` and the admin route `/_emulator/oauth/revocations`: revocation.ts.
 * - `/_emulator/oauth/clients` and `/_emulator/oauth/refreshes`: clients.ts.
 *
 * Each grant answers the scopes it carries: a code's are those the consent asked for (all of them, as a
 * user allowing everything), a refresh token's those of its consent, recorded with it (or, for one
 * no consent here issued, DEFAULT_GRANT in token-store.ts: upload, readonly and yt-analytics.readonly).
 *
 * A refresh token is accepted when it starts with `emulator-refresh-`; the rest of it names the
 * channel the uploads land on (`emulator-refresh-tech-daily` -> channel `tech-daily`); the
 * authorization-code grant issues refresh tokens of that form, and connecting a channel again that
 * way lifts a revocation of its refresh token. Each access token remembers the client id that
 * obtained it: that Google Cloud project is charged for the YouTube calls made with it. Issued
 * access tokens are kept in memory and mirrored to `<data dir>/oauth/tokens.json`, so uploads in
 * flight survive an emulator restart as they survive a restart of Google's servers.
 */
import { createHash } from "node:crypto";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { handleClientsAdmin } from "./clients-admin.ts";
import { handleRevocation } from "./revocation.ts";
import { REFRESH_TOKEN_PREFIX, TOKEN_LIFETIME_S } from "./token-store.ts";

const AUTHORIZATION_PATH = "/o/oauth2/v2/auth";
/** The channel a consent without `login_hint` connects. */
const DEFAULT_CHANNEL = "emulator-channel";

/** YouTube's channel id form (`UC` + 22 characters), derived from the channel name. */
export function channelIdFor(channel: string): string {
  return `UC${createHash("sha256").update(channel).digest("base64url").slice(0, 22)}`;
}

function oauthError(status: number, error: string, description: string): Response {
  return jsonResponse({ error, error_description: description }, status);
}

/** Google's error page for a refused authorization request (it never redirects to an untrusted URI). */
function consentErrorPage(status: number, error: string, description: string): Response {
  const body =
    `<!doctype html><title>Error ${status}: ${error}</title><h1>Access blocked: authorization error</h1><p>Error ${status}: ${error}</p><p>${description}</p>`;
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}

const LOOPBACK_REDIRECT = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?(\/[^#]*)?$/;
const GOOGLE_CLIENT_ID = /^[A-Za-z0-9._-]+\.apps\.googleusercontent\.com$/;
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

/** The channel of the consenting user: `login_hint` up to any `@`, reduced to a channel name. */
function channelFromHint(hint: string | null): string {
  const name = (hint ?? "").split("@")[0]!.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return name || DEFAULT_CHANNEL;
}

function authorize(url: URL, ctx: EmulatorContext): Response {
  const q = url.searchParams;
  const clientId = q.get("client_id") ?? "";
  if (!GOOGLE_CLIENT_ID.test(clientId)) return consentErrorPage(401, "invalid_client", "The OAuth client was not found.");
  const redirectUri = q.get("redirect_uri") ?? "";
  if (!LOOPBACK_REDIRECT.test(redirectUri)) {
    return consentErrorPage(
      400,
      "redirect_uri_mismatch",
      "The redirect URI in the request does not match the ones authorized for the OAuth client: a desktop client redirects to an http loopback address.",
    );
  }
  if (q.get("response_type") !== "code") return consentErrorPage(400, "unsupported_response_type", `Invalid response_type: ${q.get("response_type") ?? ""}`);
  const scope = (q.get("scope") ?? "").trim();
  if (scope === "") return consentErrorPage(400, "invalid_request", "Missing required parameter: scope");
  const challenge = q.get("code_challenge") ?? "";
  if (q.get("code_challenge_method") !== "S256" || !CODE_CHALLENGE.test(challenge)) {
    return consentErrorPage(400, "invalid_request", "A code_challenge with code_challenge_method=S256 is required.");
  }
  const code = ctx.tokens.issueCode({
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    scope,
    channel: channelFromHint(q.get("login_hint")),
    offline: q.get("access_type") === "offline",
  });
  const target = new URL(redirectUri);
  const state = q.get("state");
  if (state !== null) target.searchParams.set("state", state);
  target.searchParams.set("code", code);
  target.searchParams.set("scope", scope);
  return new Response(null, { status: 302, headers: { location: target.toString() } });
}

async function exchangeCode(form: Record<string, string>, ctx: EmulatorContext): Promise<Response> {
  const pending = ctx.tokens.takeCode(form.code ?? "");
  if (!pending) return oauthError(400, "invalid_grant", "Malformed auth code.");
  if (pending.client_id !== form.client_id) return oauthError(401, "invalid_client", "Unauthorized");
  if (pending.redirect_uri !== form.redirect_uri) return oauthError(400, "redirect_uri_mismatch", "Bad Request");
  const verifier = form.code_verifier ?? "";
  const hashed = createHash("sha256").update(verifier).digest("base64url");
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || hashed !== pending.code_challenge) {
    return oauthError(400, "invalid_grant", "Invalid code verifier.");
  }
  const refreshToken = `${REFRESH_TOKEN_PREFIX}${pending.channel}`;
  await ctx.tokens.restore(refreshToken);
  if (pending.offline) {
    await ctx.tokens.recordGrant(refreshToken, pending.scope);
    await ctx.tokens.clients.bind(refreshToken, pending.client_id);
  }
  const token = await ctx.tokens.issue(refreshToken, pending.client_id, pending.scope);
  return jsonResponse({
    access_token: token.access_token,
    expires_in: TOKEN_LIFETIME_S,
    ...(pending.offline ? { refresh_token: refreshToken } : {}),
    scope: pending.scope,
    token_type: "Bearer",
  });
}

export async function handleOAuth(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === AUTHORIZATION_PATH) {
    return req.method === "GET" ? authorize(url, ctx) : consentErrorPage(405, "invalid_request", "Authorization requests use GET.");
  }
  const revocation = await handleRevocation(req, url, ctx);
  if (revocation) return revocation;
  const clientsAdmin = await handleClientsAdmin(req, url, ctx);
  if (clientsAdmin) return clientsAdmin;
  if (url.pathname !== "/token") return undefined;
  if (req.method !== "POST") return oauthError(405, "invalid_request", "Token requests must use POST.");
  const type = req.headers.get("content-type") ?? "";
  const raw = await req.text();
  let form: Record<string, string>;
  try {
    form = type.includes("application/json")
      ? Object.fromEntries(Object.entries(JSON.parse(raw || "{}") as Record<string, unknown>).map(([k, v]) => [k, String(v)]))
      : Object.fromEntries(new URLSearchParams(raw));
  } catch {
    return oauthError(400, "invalid_request", "The request body is not valid JSON.");
  }

  if (form.grant_type !== "refresh_token" && form.grant_type !== "authorization_code") {
    return oauthError(400, "unsupported_grant_type", `Invalid grant_type: ${form.grant_type ?? ""}`);
  }
  if (!form.client_id || !form.client_secret || !ctx.tokens.clients.authenticates(form.client_id, form.client_secret)) {
    return oauthError(401, "invalid_client", "The OAuth client was not found.");
  }
  if (form.grant_type === "authorization_code") return await exchangeCode(form, ctx);
  const refreshToken = form.refresh_token ?? "";
  const known = refreshToken.startsWith(REFRESH_TOKEN_PREFIX) && refreshToken.length > REFRESH_TOKEN_PREFIX.length;
  const refused = (status: number, error: string, description: string) => {
    ctx.tokens.clients.record({ client_id: form.client_id!, channel: refreshToken.slice(REFRESH_TOKEN_PREFIX.length), outcome: error });
    return oauthError(status, error, description);
  };
  if (ctx.faults.take("google-oauth") || !known || ctx.tokens.isRevoked(refreshToken)) {
    return refused(400, "invalid_grant", "Token has been expired or revoked.");
  }
  if (!ctx.tokens.clients.mayRefresh(refreshToken, form.client_id)) return refused(400, "unauthorized_client", "Unauthorized");
  ctx.tokens.clients.record({ client_id: form.client_id, channel: refreshToken.slice(REFRESH_TOKEN_PREFIX.length), outcome: "issued" });
  const token = await ctx.tokens.issue(refreshToken, form.client_id);
  return jsonResponse({
    access_token: token.access_token,
    expires_in: TOKEN_LIFETIME_S,
    token_type: "Bearer",
    scope: token.scope,
  });
}
