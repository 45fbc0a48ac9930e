/**
 * The emulator's OAuth state: authorization codes waiting to be redeemed (memory only), issued
 * access tokens, mirrored to `<data dir>/oauth/tokens.json` so uploads in flight survive a restart,
 * revoked refresh tokens (`<data dir>/oauth/revoked.json`), refused until the channel is
 * connected again, and the scopes each refresh token's consent granted (`<data dir>/oauth/grants.json`;
 * a refresh token never consented here carries DEFAULT_GRANT).
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import process from "node:process";
import { OAuthClientBook } from "./clients.ts";

export const REFRESH_TOKEN_PREFIX = "emulator-refresh-";
export const TOKEN_LIFETIME_S = 3599;
/**
 * What a refresh token that no consent here recorded was granted (tests hand the engine
 * `emulator-refresh-<channel>` directly): everything `mdame account connect youtube` asks.
 */
export const DEFAULT_GRANT = [
  "https://www.googleapis.com/auth/youtube.upload",
  "https://www.googleapis.com/auth/youtube.readonly",
  "https://www.googleapis.com/auth/yt-analytics.readonly",
].join(" ");
const CODE_LIFETIME_MS = 10 * 60_000;

/** An authorization code waiting to be exchanged (kept in memory: a restart loses them, as a user's consent would time out). */
export interface PendingCode {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  channel: string;
  offline: boolean;
  expires_at: number;
}

export interface IssuedToken {
  access_token: string;
  /** Channel name taken from the refresh token. */
  channel: string;
  client_id: string;
  expires_at: number;
  /** The space-separated scopes the token carries (absent on tokens issued before scopes were kept: DEFAULT_GRANT). */
  scope?: string;
}

/** Whether an access token carries `scope`. */
export function hasScope(token: IssuedToken, scope: string): boolean {
  return (token.scope ?? DEFAULT_GRANT).split(/\s+/).includes(scope);
}

export class TokenStore {
  #tokens = new Map<string, IssuedToken>();
  #codes = new Map<string, PendingCode>();
  #revoked = new Set<string>();
  #grants = new Map<string, string>();
  readonly #file: string;
  readonly #revokedFile: string;
  readonly #grantsFile: string;
  /** The registered clients, whose client each refresh token is, and the refresh log (clients.ts). */
  readonly clients: OAuthClientBook;

  constructor(dataDir: string, clients: Record<string, string> = {}) {
    this.clients = new OAuthClientBook(dataDir, clients);
    this.#file = path.join(dataDir, "oauth", "tokens.json");
    this.#revokedFile = path.join(dataDir, "oauth", "revoked.json");
    this.#grantsFile = path.join(dataDir, "oauth", "grants.json");
  }

  async load(): Promise<void> {
    const text = await readFile(this.#file, "utf8").catch(() => "[]");
    for (const token of JSON.parse(text) as IssuedToken[]) this.#tokens.set(token.access_token, token);
    const revoked = await readFile(this.#revokedFile, "utf8").catch(() => "[]");
    this.#revoked = new Set(JSON.parse(revoked) as string[]);
    const grants = await readFile(this.#grantsFile, "utf8").catch(() => "{}");
    this.#grants = new Map(Object.entries(JSON.parse(grants) as Record<string, string>));
    await this.clients.load();
  }

  /** The scopes a refresh token was granted: its recorded consent's, else DEFAULT_GRANT. */
  grantedScope(refreshToken: string): string {
    return this.#grants.get(refreshToken) ?? DEFAULT_GRANT;
  }

  /** Records what a consent granted the refresh token (a new consent replaces the old grant). */
  async recordGrant(refreshToken: string, scope: string): Promise<void> {
    this.#grants.set(refreshToken, scope);
    await mkdir(path.dirname(this.#grantsFile), { recursive: true });
    const tmp = `${this.#grantsFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(Object.fromEntries(this.#grants)));
    await rename(tmp, this.#grantsFile);
  }

  /** Whether a refresh token was revoked (and its channel not connected again since). */
  isRevoked(refreshToken: string): boolean {
    return this.#revoked.has(refreshToken);
  }

  /** The access token behind a bare token string (no `Bearer`), when issued and unexpired. */
  accessToken(token: string): IssuedToken | undefined {
    return this.verify(`Bearer ${token}`);
  }

  /**
   * Revokes a refresh token for good, with every access token issued from it, as a user removing
   * the app's access does. Answers how many access tokens went with it.
   */
  async revoke(refreshToken: string): Promise<number> {
    this.#revoked.add(refreshToken);
    const channel = refreshToken.slice(REFRESH_TOKEN_PREFIX.length);
    let dropped = 0;
    for (const [key, token] of this.#tokens) {
      if (token.channel === channel) {
        this.#tokens.delete(key);
        dropped += 1;
      }
    }
    await this.#persist();
    await this.#persistRevoked();
    return dropped;
  }

  /** A new consent for the channel: its refresh token works again. */
  async restore(refreshToken: string): Promise<void> {
    if (!this.#revoked.delete(refreshToken)) return;
    await this.#persistRevoked();
  }

  revokedTokens(): string[] {
    return [...this.#revoked].sort();
  }

  async issue(refreshToken: string, clientId: string, scope = this.grantedScope(refreshToken)): Promise<IssuedToken> {
    const token: IssuedToken = {
      scope,
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

  /** A fresh authorization code for a consent. */
  issueCode(pending: Omit<PendingCode, "expires_at">): string {
    const code = `4/emulator-${randomBytes(24).toString("base64url")}`;
    this.#codes.set(code, { ...pending, expires_at: Date.now() + CODE_LIFETIME_MS });
    return code;
  }

  /** Takes a code out (a code is redeemed at most once, whatever the outcome); undefined when unknown or expired. */
  takeCode(code: string): PendingCode | undefined {
    const pending = this.#codes.get(code);
    this.#codes.delete(code);
    return pending && pending.expires_at > Date.now() ? pending : undefined;
  }

  async clear(): Promise<void> {
    this.#tokens.clear();
    this.#codes.clear();
    this.#revoked.clear();
    this.#grants.clear();
    await this.clients.clear();
    await rm(this.#grantsFile, { force: true });
    await rm(this.#file, { force: true });
    await rm(this.#revokedFile, { force: true });
  }

  async #persistRevoked(): Promise<void> {
    await mkdir(path.dirname(this.#revokedFile), { recursive: true });
    const tmp = `${this.#revokedFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify([...this.#revoked]));
    await rename(tmp, this.#revokedFile);
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
