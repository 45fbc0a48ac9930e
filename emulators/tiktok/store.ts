/**
 * The TikTok emulator's state, under `<data dir>/tiktok/`, so grants, tokens and uploads in flight
 * survive an emulator restart as they survive a restart of TikTok's servers:
 *
 *   state.json                 clients (audited or not), settings, grants (refresh tokens), access
 *                              tokens, publishes (init, layout, received chunks, outcome), post times,
 *                              a post's measured length and the figures an admin pinned
 *   uploads/<publish_id>.bin   the bytes of a publish, chunk after chunk (its size is what arrived)
 *
 * Authorization codes and the rate-limit windows live in memory only: a restart loses
 * them, as a user's consent page or a minute's window would. Times are the emulator clock's.
 * `POST /_emulator/reset` clears everything (`reset()`).
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { KeyedLock } from "../keyed-lock.ts";
import { StateFile } from "../state-file.ts";

/** Access tokens live 24 hours (`expires_in: 86400`). */
export const ACCESS_TOKEN_LIFETIME_S = 86_400;
/** Refresh tokens live 365 days (`refresh_expires_in`). */
const REFRESH_TOKEN_LIFETIME_S = 365 * 86_400;
const CODE_LIFETIME_MS = 10 * 60_000;

const DEFAULT_SETTINGS = {
  /** How long TikTok "processes" a fully uploaded video before it is PUBLISH_COMPLETE (or FAILED). */
  processing_delay_ms: 5_000,
  /** Successful inits a creator may make in any rolling 24 hours before `spam_risk_too_many_posts`. */
  posts_per_24h: 15,
  /**
   * Whether a refresh answers with a new refresh token and the one it was made with stops working
   * (what TikTok's newer token pages describe); off, a grant keeps its refresh token.
   */
  rotate_refresh_tokens: false,
  /** What video/query's figures are drawn from (figures.ts): the same seed gives the same figures. */
  figures_seed: "md-ame",
};
export type TikTokSettings = typeof DEFAULT_SETTINGS;

export interface PendingCode {
  client_key: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  user: string;
  expires_at: number;
}

/** One user's consent to one client: its refresh token and what it allows. */
export interface Grant {
  refresh_token: string;
  client_key: string;
  user: string;
  open_id: string;
  scope: string;
  /** Emulator-clock epoch ms. */
  refresh_expires_at: number;
  revoked: boolean;
}

export interface AccessToken {
  access_token: string;
  refresh_token: string;
  expires_at: number;
}

export interface Publish {
  publish_id: string;
  client_key: string;
  user: string;
  open_id: string;
  access_token: string;
  post_info: {
    title: string;
    privacy_level: string;
    disable_duet: boolean;
    disable_comment: boolean;
    disable_stitch: boolean;
    video_cover_timestamp_ms: number;
    brand_content_toggle: boolean;
    brand_organic_toggle: boolean;
    is_aigc: boolean;
  };
  video_size: number;
  chunk_size: number;
  total_chunk_count: number;
  /** Chunks received so far (always the first n: chunks arrive in order). */
  chunks_received: number;
  created_at: number;
  /** When the last byte arrived (emulator clock). */
  uploaded_at?: number;
  sha256?: string;
  /** Set when the upload completed while a `fail_processing` fault was armed. */
  fail_reason?: string;
  post_id?: string;
  /** Counts and duration an admin set (admin.ts); the others follow the seeded curve (figures.ts). */
  pinned_figures?: Partial<Record<"view_count" | "like_count" | "comment_count" | "share_count" | "duration", number>>;
  /** The video's length (whole seconds) and size, measured when video/query first reports it. */
  media?: { duration_s: number; width: number; height: number };
}

interface Saved {
  clients: Array<[string, { audited?: boolean }]>;
  settings: Partial<TikTokSettings>;
  grants: Grant[];
  tokens: AccessToken[];
  publishes: Publish[];
}

export function openIdFor(clientKey: string, user: string): string {
  return `-000${createHash("sha256").update(`${clientKey}\n${user}`).digest("base64url").slice(0, 28)}`;
}

/**
 * A post id: a 16-digit decimal, derived from the publish id. TikTok's are int64 (19 digits); these
 * stay below 2^53 so a JavaScript client reading `publicaly_available_post_id` gets them exactly.
 */
export function postIdFor(publishId: string): string {
  const n = createHash("sha256").update(publishId).digest().readBigUInt64BE(0) % 8_000_000_000_000_000n;
  return String(1_000_000_000_000_000n + n);
}

export class TikTokStore {
  readonly root: string;
  #clients = new Map<string, { audited?: boolean }>();
  #settings: Partial<TikTokSettings> = {};
  #grants = new Map<string, Grant>();
  #tokens = new Map<string, AccessToken>();
  #publishes = new Map<string, Publish>();
  #codes = new Map<string, PendingCode>();
  /** Per access token and endpoint: the emulator-clock times of its recent calls. */
  #windows = new Map<string, number[]>();
  #locks = new KeyedLock();
  readonly #state: StateFile<Saved>;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, "tiktok");
    this.#state = new StateFile(path.join(this.root, "state.json"));
  }

  uploadFile(publishId: string): string {
    return path.join(this.root, "uploads", `${publishId}.bin`);
  }

  async load(): Promise<void> {
    const saved = await this.#state.read();
    if (saved === undefined) return;
    this.#clients = new Map(saved.clients ?? []);
    this.#settings = saved.settings ?? {};
    this.#grants = new Map((saved.grants ?? []).map((g) => [g.refresh_token, g]));
    this.#tokens = new Map((saved.tokens ?? []).map((t) => [t.access_token, t]));
    this.#publishes = new Map((saved.publishes ?? []).map((p) => [p.publish_id, p]));
  }

  // --- clients and settings ---

  /** A client is unaudited unless marked audited (TikTok's default for a new API client). */
  audited(clientKey: string): boolean {
    return this.#clients.get(clientKey)?.audited ?? false;
  }

  async setAudited(clientKey: string, audited: boolean): Promise<void> {
    this.#clients.set(clientKey, { ...this.#clients.get(clientKey), audited });
    await this.#save();
  }

  settings(): TikTokSettings {
    return { ...DEFAULT_SETTINGS, ...this.#settings };
  }

  async setSettings(patch: Partial<TikTokSettings>): Promise<TikTokSettings> {
    this.#settings = { ...this.#settings, ...patch };
    await this.#save();
    return this.settings();
  }

  // --- OAuth ---

  issueCode(pending: Omit<PendingCode, "expires_at">, now: number): string {
    const code = `emu-code-${randomBytes(24).toString("base64url")}`;
    this.#codes.set(code, { ...pending, expires_at: now + CODE_LIFETIME_MS });
    return code;
  }

  /** A code is redeemed at most once, whatever the outcome; undefined when unknown or expired. */
  takeCode(code: string, now: number): PendingCode | undefined {
    const pending = this.#codes.get(code);
    this.#codes.delete(code);
    return pending && pending.expires_at > now ? pending : undefined;
  }

  /**
   * A new consent: the user's earlier grants to this client (revoked or not) are replaced by one
   * fresh grant, whose refresh token is returned with a first access token.
   */
  async grant(clientKey: string, user: string, scope: string, now: number): Promise<{ grant: Grant; token: AccessToken }> {
    for (const [key, old] of this.#grants) {
      if (old.client_key === clientKey && old.user === user) this.#dropGrant(key);
    }
    const grant: Grant = {
      refresh_token: `rft.emu-${randomBytes(24).toString("base64url")}`,
      client_key: clientKey,
      user,
      open_id: openIdFor(clientKey, user),
      scope,
      refresh_expires_at: now + REFRESH_TOKEN_LIFETIME_S * 1000,
      revoked: false,
    };
    this.#grants.set(grant.refresh_token, grant);
    const token = this.#issue(grant, now);
    await this.#save();
    return { grant, token };
  }

  grantFor(refreshToken: string): Grant | undefined {
    return this.#grants.get(refreshToken);
  }

  grants(): Grant[] {
    return [...this.#grants.values()];
  }

  /** A new access token; with rotate_refresh_tokens, the grant's refresh token is replaced first (the old one is refused from then on). */
  async refresh(grant: Grant, now: number): Promise<AccessToken> {
    if (this.settings().rotate_refresh_tokens) {
      const old = grant.refresh_token;
      this.#grants.delete(old);
      grant.refresh_token = `rft.emu-${randomBytes(24).toString("base64url")}`;
      this.#grants.set(grant.refresh_token, grant);
      // Access tokens already issued stay valid until they expire.
      for (const token of this.#tokens.values()) if (token.refresh_token === old) token.refresh_token = grant.refresh_token;
    }
    const token = this.#issue(grant, now);
    await this.#save();
    return token;
  }

  #issue(grant: Grant, now: number): AccessToken {
    const token: AccessToken = {
      access_token: `act.emu-${randomBytes(24).toString("base64url")}`,
      refresh_token: grant.refresh_token,
      expires_at: now + ACCESS_TOKEN_LIFETIME_S * 1000,
    };
    for (const [key, old] of this.#tokens) if (old.expires_at <= now) this.#tokens.delete(key);
    this.#tokens.set(token.access_token, token);
    return token;
  }

  /** The grant behind a live access token, or undefined (unknown, expired, or its grant revoked). */
  verify(accessToken: string, now: number): { token: AccessToken; grant: Grant } | undefined {
    const token = this.#tokens.get(accessToken);
    if (!token || token.expires_at <= now) return undefined;
    const grant = this.#grants.get(token.refresh_token);
    return grant && !grant.revoked ? { token, grant } : undefined;
  }

  /** Revokes the grant: its refresh token and every access token issued from it. Answers how many access tokens went. */
  async revoke(grant: Grant): Promise<number> {
    grant.revoked = true;
    let dropped = 0;
    for (const [key, token] of this.#tokens) {
      if (token.refresh_token === grant.refresh_token) {
        this.#tokens.delete(key);
        dropped += 1;
      }
    }
    await this.#save();
    return dropped;
  }

  #dropGrant(refreshToken: string): void {
    this.#grants.delete(refreshToken);
    for (const [key, token] of this.#tokens) if (token.refresh_token === refreshToken) this.#tokens.delete(key);
  }

  // --- rate limits ---

  /**
   * Counts a call in `caller`'s window for `endpoint` (an access token, or whatever unit the
   * endpoint is limited by); false when `limit` calls were already made in the last minute.
   */
  allow(caller: string, endpoint: string, limit: number, now: number): boolean {
    const key = `${endpoint}\n${caller}`;
    const recent = (this.#windows.get(key) ?? []).filter((t) => t > now - 60_000 && t <= now);
    if (recent.length >= limit) {
      this.#windows.set(key, recent);
      return false;
    }
    recent.push(now);
    this.#windows.set(key, recent);
    return true;
  }

  // --- publishes ---

  /** Inits the user made in the 24 hours up to `now`. */
  postsInWindow(clientKey: string, user: string, now: number): number {
    let count = 0;
    for (const p of this.#publishes.values()) {
      if (p.client_key === clientKey && p.user === user && p.created_at > now - 86_400_000 && p.created_at <= now) count += 1;
    }
    return count;
  }

  async createPublish(publish: Publish): Promise<void> {
    await mkdir(path.join(this.root, "uploads"), { recursive: true });
    await writeFile(this.uploadFile(publish.publish_id), new Uint8Array(0));
    this.#publishes.set(publish.publish_id, publish);
    await this.#save();
  }

  getPublish(publishId: string): Publish | undefined {
    return this.#publishes.get(publishId);
  }

  /** The publish whose post has this id (a post id exists once the last byte arrived). */
  publishByPostId(postId: string): Publish | undefined {
    for (const p of this.#publishes.values()) if (p.post_id === postId) return p;
    return undefined;
  }

  publishes(): Publish[] {
    return [...this.#publishes.values()].sort((a, b) => a.created_at - b.created_at);
  }

  async savePublish(publish: Publish): Promise<void> {
    this.#publishes.set(publish.publish_id, publish);
    await this.#save();
  }

  async receivedBytes(publishId: string): Promise<number> {
    return await stat(this.uploadFile(publishId)).then((s) => s.size, () => 0);
  }

  async openForAppend(publishId: string): Promise<FileHandle> {
    return await open(this.uploadFile(publishId), "a");
  }

  /** Cuts the file back to `bytes` (a chunk that arrived short is discarded whole). */
  async truncate(publishId: string, bytes: number): Promise<void> {
    const file = await open(this.uploadFile(publishId), "r+");
    try {
      await file.truncate(bytes);
    } finally {
      await file.close();
    }
  }

  async sha256(publishId: string): Promise<string> {
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(this.uploadFile(publishId))) hash.update(chunk as Buffer);
    return hash.digest("hex");
  }

  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#locks.run(key, fn);
  }

  async reset(): Promise<void> {
    await this.#state.settled();
    this.#clients.clear();
    this.#settings = {};
    this.#grants.clear();
    this.#tokens.clear();
    this.#publishes.clear();
    this.#codes.clear();
    this.#windows.clear();
    await rm(this.root, { recursive: true, force: true });
  }

  /** Writes the whole state, one write at a time, each whole then renamed. */
  #save(): Promise<void> {
    return this.#state.write(() => ({
      clients: [...this.#clients],
      settings: this.#settings,
      grants: [...this.#grants.values()],
      tokens: [...this.#tokens.values()],
      publishes: [...this.#publishes.values()],
    }));
  }
}
