/**
 * TikTok Login Kit (OAuth 2.0, v2 endpoints) for a desktop-style client, spoken with fetch.
 * Runs in Deno and Bun.
 *
 * 1. buildAuthorizeUrl: the consent page `/v2/auth/authorize/` with client_key, a comma-separated
 *    scope, response_type=code, redirect_uri, state, and PKCE. TikTok's desktop guide wants the
 *    code_challenge as the HEX encoding of SHA-256(code_verifier) (not RFC 7636's base64url),
 *    with code_challenge_method=S256.
 * 2. exchangeCode: POST `/v2/oauth/token/` (form-encoded) with grant_type=authorization_code and
 *    the code_verifier.
 * 3. refreshAccessToken: the same endpoint with grant_type=refresh_token. TikTok may return a new
 *    refresh token: store the one it returns.
 * 4. revokeToken: POST `/v2/oauth/revoke/` with the access token.
 *
 * Failures: an answer naming an OAuth `error` (invalid_grant, invalid_request, ...) throws
 * TikTokOAuthError, whatever the HTTP status; other 429/5xx and dropped connections throw
 * ProviderUnavailableError. No token or secret is ever put in a message.
 */
import { z } from "zod";
import { errorForStatus, ProviderError, ProviderUnavailableError } from "../errors.ts";
import { clip, DEFAULT_API_BASE_URL, DEFAULT_AUTH_BASE_URL, issuesOf, parseJson, readAnswer, send } from "./http.ts";

const PROVIDER = "tiktok-oauth";

/** The token endpoint's refusal: `{ error, error_description, log_id }`. */
export class TikTokOAuthError extends ProviderError {
  /** The OAuth error code, e.g. `invalid_grant`. */
  readonly error: string;
  readonly description: string;
  readonly logId?: string;

  constructor(status: number, error: string, description: string, logId: string | undefined, what: string) {
    super(PROVIDER, `${what}: TikTok answered ${status} ${error}: ${clip(description)}${logId ? ` (log_id ${logId})` : ""}`, {
      status,
      retriable: status === 429 || status >= 500,
      reason: error,
    });
    this.name = "TikTokOAuthError";
    this.error = error;
    this.description = description;
    this.logId = logId;
  }
}

interface TikTokClientCredentials {
  clientKey: string;
  clientSecret: string;
  /** Default https://open.tiktokapis.com. */
  apiBaseUrl?: string;
}

export interface TikTokTokenSet {
  accessToken: string;
  /** Seconds the access token lives (TikTok: 24 hours). */
  expiresIn: number;
  refreshToken: string;
  /** Seconds the refresh token lives (TikTok: 365 days). */
  refreshExpiresIn: number;
  /** The TikTok user the grant belongs to. */
  openId: string;
  /** The scopes the user granted (may be fewer than asked for). */
  scopes: string[];
  tokenType: string;
}

const TokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.number().int().nonnegative(),
  refresh_token: z.string().min(1),
  refresh_expires_in: z.number().int().nonnegative(),
  open_id: z.string().min(1),
  scope: z.string(),
  token_type: z.string(),
});

const ErrorAnswer = z.looseObject({
  error: z.string().min(1),
  error_description: z.string().optional(),
  log_id: z.string().optional(),
});

const VERIFIER_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A fresh PKCE code_verifier: `length` (43..128) characters from the unreserved set, 6 random bits each. */
export function createCodeVerifier(length = 64): string {
  if (!Number.isInteger(length) || length < 43 || length > 128) throw new RangeError(`code_verifier length must be 43..128, got ${length}`);
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let verifier = "";
  for (const byte of bytes) verifier += VERIFIER_ALPHABET[byte & 63];
  return verifier;
}

/** TikTok's desktop code_challenge: lowercase hex of SHA-256 over the verifier's UTF-8 bytes. */
export async function codeChallengeFor(codeVerifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(codeVerifier)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The Login Kit consent page URL; send the user there and match `state` on the redirect. */
export async function buildAuthorizeUrl(input: {
  clientKey: string;
  scopes: string[];
  redirectUri: string;
  state: string;
  codeVerifier: string;
  /** Default https://www.tiktok.com. */
  authBaseUrl?: string;
}): Promise<string> {
  if (input.scopes.length === 0) throw new RangeError("at least one scope is needed");
  const url = new URL("/v2/auth/authorize/", input.authBaseUrl ?? DEFAULT_AUTH_BASE_URL);
  url.searchParams.set("client_key", input.clientKey);
  url.searchParams.set("scope", input.scopes.join(","));
  url.searchParams.set("response_type", "code");
  url.searchParams.set("redirect_uri", input.redirectUri);
  url.searchParams.set("state", input.state);
  url.searchParams.set("code_challenge", await codeChallengeFor(input.codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

async function postForm(
  credentials: TikTokClientCredentials,
  path: string,
  fields: Record<string, string>,
  what: string,
  signal?: AbortSignal,
): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, credentials.apiBaseUrl ?? DEFAULT_API_BASE_URL).toString();
  const form = new URLSearchParams({ client_key: credentials.clientKey, client_secret: credentials.clientSecret, ...fields });
  const response = await send(PROVIDER, url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "cache-control": "no-cache" },
    body: form.toString(),
    signal,
  }, what);
  const text = await readAnswer(PROVIDER, response, what);
  const body = text.trim() === "" ? undefined : parseJson(text);
  const refusal = ErrorAnswer.safeParse(body);
  if (refusal.success) {
    throw new TikTokOAuthError(response.status, refusal.data.error, refusal.data.error_description ?? "", refusal.data.log_id, what);
  }
  if (response.status < 200 || response.status > 299) {
    // Not TikTok's error shape (a proxy's page, an outage): its text may be anything, so only its size is told.
    throw errorForStatus(PROVIDER, response.status, `${what}: TikTok answered ${response.status} without an OAuth error (${text.length} bytes)`);
  }
  return { status: response.status, body };
}

async function tokenRequest(credentials: TikTokClientCredentials, fields: Record<string, string>, what: string, signal?: AbortSignal): Promise<TikTokTokenSet> {
  const { status, body } = await postForm(credentials, "/v2/oauth/token/", fields, what, signal);
  const parsed = TokenAnswer.safeParse(body);
  if (!parsed.success) throw new ProviderUnavailableError(PROVIDER, `${what}: the token answer is malformed (${issuesOf(parsed.error)})`, { status });
  const t = parsed.data;
  return {
    accessToken: t.access_token,
    expiresIn: t.expires_in,
    refreshToken: t.refresh_token,
    refreshExpiresIn: t.refresh_expires_in,
    openId: t.open_id,
    scopes: t.scope.split(",").map((s) => s.trim()).filter((s) => s !== ""),
    tokenType: t.token_type,
  };
}

/** Trades the redirect's `code` for tokens; `codeVerifier` is the one the authorize URL was built with. */
export function exchangeCode(
  input: TikTokClientCredentials & { code: string; redirectUri: string; codeVerifier: string; signal?: AbortSignal },
): Promise<TikTokTokenSet> {
  return tokenRequest(
    input,
    {
      code: input.code,
      grant_type: "authorization_code",
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
    },
    "exchange authorization code",
    input.signal,
  );
}

/** A new access token from the refresh token; a revoked or expired grant throws TikTokOAuthError `invalid_grant`. */
export function refreshAccessToken(input: TikTokClientCredentials & { refreshToken: string; signal?: AbortSignal }): Promise<TikTokTokenSet> {
  return tokenRequest(input, { grant_type: "refresh_token", refresh_token: input.refreshToken }, "refresh access token", input.signal);
}

/** Revokes the user's grant through its access token (the user must connect again afterwards). */
export async function revokeToken(input: TikTokClientCredentials & { accessToken: string; signal?: AbortSignal }): Promise<void> {
  await postForm(input, "/v2/oauth/revoke/", { token: input.accessToken }, "revoke token", input.signal);
}
