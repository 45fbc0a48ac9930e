/**
 * Google OAuth 2.0 token endpoint, refresh-token grant only (what google-auth-library's
 * OAuth2Client sends from `getAccessToken()`): `POST /token`, form-encoded
 * `grant_type=refresh_token&client_id&client_secret&refresh_token`.
 *
 * A refresh token is accepted when it starts with `emulator-refresh-`; the rest of it names the
 * channel the uploads land on (`emulator-refresh-tech-daily` -> channel `tech-daily`). Issued
 * access tokens are kept in memory and mirrored to `<data dir>/oauth/tokens.json`, so uploads
 * in flight survive an emulator restart as they survive a restart of Google's servers.
 */
import { randomBytes, createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile, rename } from "node:fs/promises";
import path from "node:path";
import process from "node:process";
import type { EmulatorContext } from "./context.ts";
import { jsonResponse } from "./context.ts";

export const REFRESH_TOKEN_PREFIX = "emulator-refresh-";
export const UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload";
const TOKEN_LIFETIME_S = 3599;

export interface IssuedToken {
  access_token: string;
  /** Channel name taken from the refresh token. */
  channel: string;
  client_id: string;
  expires_at: number;
}

export class TokenStore {
  #tokens = new Map<string, IssuedToken>();
  readonly #file: string;

  constructor(dataDir: string) {
    this.#file = path.join(dataDir, "oauth", "tokens.json");
  }

  async load(): Promise<void> {
    const text = await readFile(this.#file, "utf8").catch(() => "[]");
    for (const token of JSON.parse(text) as IssuedToken[]) this.#tokens.set(token.access_token, token);
  }

  async issue(refreshToken: string, clientId: string): Promise<IssuedToken> {
    const token: IssuedToken = {
      access_token: `ya29.emulator-${randomBytes(24).toString("base64url")}`,
      channel: refreshToken.slice(REFRESH_TOKEN_PREFIX.length),
      client_id: clientId,
      expires_at: Date.now() + TOKEN_LIFETIME_S * 1000,
    };
    this.#tokens.set(token.access_token, token);
    await this.#persist();
    return token;
  }

  /** The token behind an `Authorization: Bearer` header, or undefined when unknown or expired. */
  verify(authorization: string | null): IssuedToken | undefined {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
    const token = match ? this.#tokens.get(match[1]) : undefined;
    return token && token.expires_at > Date.now() ? token : undefined;
  }

  async clear(): Promise<void> {
    this.#tokens.clear();
    await rm(this.#file, { force: true });
  }

  async #persist(): Promise<void> {
    const now = Date.now();
    for (const [key, token] of this.#tokens) if (token.expires_at <= now) this.#tokens.delete(key);
    await mkdir(path.dirname(this.#file), { recursive: true });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify([...this.#tokens.values()]));
    await rename(tmp, this.#file);
  }
}

/** YouTube's channel id form (`UC` + 22 characters), derived from the channel name. */
export function channelIdFor(channel: string): string {
  return `UC${createHash("sha256").update(channel).digest("base64url").slice(0, 22)}`;
}

function oauthError(status: number, error: string, description: string): Response {
  return jsonResponse({ error, error_description: description }, status);
}

export async function handleOAuth(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname !== "/token") return undefined;
  if (req.method !== "POST") return oauthError(405, "invalid_request", "Token requests must use POST.");
  const type = req.headers.get("content-type") ?? "";
  const raw = await req.text();
  const form: Record<string, string> = type.includes("application/json")
    ? Object.fromEntries(Object.entries(JSON.parse(raw || "{}")).map(([k, v]) => [k, String(v)]))
    : Object.fromEntries(new URLSearchParams(raw));

  if (form.grant_type !== "refresh_token") {
    return oauthError(400, "unsupported_grant_type", `Invalid grant_type: ${form.grant_type ?? ""}`);
  }
  if (!form.client_id || !form.client_secret) return oauthError(401, "invalid_client", "The OAuth client was not found.");
  const refreshToken = form.refresh_token ?? "";
  if (!refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || refreshToken.length === REFRESH_TOKEN_PREFIX.length) {
    return oauthError(400, "invalid_grant", "Token has been expired or revoked.");
  }
  const token = await ctx.tokens.issue(refreshToken, form.client_id);
  return jsonResponse({
    access_token: token.access_token,
    expires_in: TOKEN_LIFETIME_S,
    token_type: "Bearer",
    scope: UPLOAD_SCOPE,
  });
}
