/**
 * Revoking a channel's refresh token, so later refreshes with it fail with `invalid_grant` until
 * the channel is connected again (a new consent and code exchange lifts the revocation). The
 * access tokens issued from it stop working at once, as Google's do.
 *
 * - `POST /revoke` with `token=<access or refresh token>` (form-encoded, or `?token=`), Google's
 *   revocation endpoint: 200 `{}`; a token that is unknown, expired or already revoked is 400
 *   `{"error": "invalid_token", "error_description": "Token expired or revoked"}`. An access token
 *   revokes the refresh token it was obtained with.
 * - Admin: `POST /_emulator/oauth/revocations {"refresh_token": "emulator-refresh-<channel>"}` ->
 *   `{refresh_token, channel, access_tokens_revoked}`; `GET /_emulator/oauth/revocations` ->
 *   `{revoked: [refresh tokens]}`. `POST /_emulator/reset` forgets every revocation.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { REFRESH_TOKEN_PREFIX } from "./token-store.ts";

const REVOKE_PATH = "/revoke";
const ADMIN_PATH = "/_emulator/oauth/revocations";
const REFRESH_TOKEN = new RegExp(`^${REFRESH_TOKEN_PREFIX}[A-Za-z0-9._-]{1,100}$`);
const MAX_FORM_BYTES = 8 * 1024;

async function revokeEndpoint(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const invalid = () => jsonResponse({ error: "invalid_token", error_description: "Token expired or revoked" }, 400);
  if (req.method !== "POST") return jsonResponse({ error: "invalid_request", error_description: "Revocation requests must use POST." }, 405);
  const raw = await req.text();
  if (raw.length > MAX_FORM_BYTES) {
    return jsonResponse({ error: "invalid_request", error_description: `The body must be at most ${MAX_FORM_BYTES} bytes.` }, 413);
  }
  const token = new URLSearchParams(raw).get("token") ?? url.searchParams.get("token") ?? "";
  const access = ctx.tokens.accessToken(token);
  const refreshToken = access ? `${REFRESH_TOKEN_PREFIX}${access.channel}` : token;
  if (!REFRESH_TOKEN.test(refreshToken) || ctx.tokens.isRevoked(refreshToken)) return invalid();
  await ctx.tokens.revoke(refreshToken);
  return jsonResponse({});
}

async function revocationsAdmin(req: Request, ctx: EmulatorContext): Promise<Response> {
  if (req.method === "GET") return jsonResponse({ revoked: ctx.tokens.revokedTokens() });
  if (req.method !== "POST") return jsonResponse({ error: `use GET or POST on ${ADMIN_PATH}` }, 405);
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["refresh_token"]);
  if (extra) return jsonResponse({ error: extra }, 400);
  const refreshToken = body.refresh_token;
  if (typeof refreshToken !== "string" || !REFRESH_TOKEN.test(refreshToken)) {
    return jsonResponse({
      error: `refresh_token must be an emulator refresh token: ${REFRESH_TOKEN_PREFIX}<channel>, the channel 1..100 letters, digits, '.', '_' or '-'`,
    }, 400);
  }
  const dropped = await ctx.tokens.revoke(refreshToken);
  return jsonResponse({ refresh_token: refreshToken, channel: refreshToken.slice(REFRESH_TOKEN_PREFIX.length), access_tokens_revoked: dropped });
}

export async function handleRevocation(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === REVOKE_PATH) return await revokeEndpoint(req, url, ctx);
  if (url.pathname === ADMIN_PATH) return await revocationsAdmin(req, ctx);
  return undefined;
}
