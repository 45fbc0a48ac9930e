/**
 * The Meta emulator's state, under `<data dir>/meta/`, so that apps, users, grants, tokens,
 * containers, uploads in flight and posts survive an emulator restart as they survive a restart of
 * Meta's servers:
 *
 *   state.json            apps, users, Pages, Instagram accounts, grants, tokens, containers,
 *                         Instagram media, Facebook Reels, settings, per-account publishing limits
 *   uploads/<id>.bin      the bytes of a container or Reel (its size is what arrived)
 *
 * Authorization codes live in memory only: a restart loses them, as a consent page would.
 * `POST /_emulator/reset` clears everything (`reset()`).
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { KeyedLock } from "../keyed-lock.ts";
import { StateFile } from "../state-file.ts";
import { UploadFiles } from "./upload-files.ts";
import {
  type AccessToken,
  CODE_LIFETIME_MS,
  DEFAULT_SETTINGS,
  type FbReel,
  type Grant,
  type IgAccount,
  type IgContainer,
  type IgMedia,
  igUserIdFor,
  LONG_LIVED_S,
  type MetaApp,
  type MetaPage,
  type MetaSettings,
  type MetaUser,
  pageIdFor,
  type PageSpec,
  type PendingCode,
  type RevokeReason,
  SHORT_LIVED_S,
  userIdFor,
} from "./model.ts";

/** Expired tokens are kept this long, so that they are answered "expired" (463) rather than "cannot parse". */
const KEEP_EXPIRED_MS = 90 * 86_400_000;

interface Saved {
  apps: MetaApp[];
  users: MetaUser[];
  pages: MetaPage[];
  ig_accounts: IgAccount[];
  grants: Grant[];
  tokens: AccessToken[];
  containers: IgContainer[];
  media: IgMedia[];
  reels: FbReel[];
  settings: Partial<MetaSettings>;
  limits: Array<[string, number]>;
}

const grantKey = (appId: string, userId: string) => `${appId}\n${userId}`;

export class MetaStore {
  readonly root: string;
  #apps = new Map<string, MetaApp>();
  #users = new Map<string, MetaUser>();
  #pages = new Map<string, MetaPage>();
  #ig = new Map<string, IgAccount>();
  #grants = new Map<string, Grant>();
  #tokens = new Map<string, AccessToken>();
  #containers = new Map<string, IgContainer>();
  #media = new Map<string, IgMedia>();
  #reels = new Map<string, FbReel>();
  #settings: Partial<MetaSettings> = {};
  #limits = new Map<string, number>();
  #codes = new Map<string, PendingCode>();
  #usedCodes = new Set<string>();
  #locks = new KeyedLock();
  readonly #state: StateFile<Saved>;
  /** The bytes of containers and Reels, under `uploads/`. */
  readonly files: UploadFiles;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, "meta");
    this.#state = new StateFile(path.join(this.root, "state.json"));
    this.files = new UploadFiles(path.join(this.root, "uploads"));
  }

  async load(): Promise<void> {
    const saved = await this.#state.read();
    if (saved === undefined) return;
    this.#apps = new Map((saved.apps ?? []).map((a) => [a.app_id, a]));
    this.#users = new Map((saved.users ?? []).map((u) => [u.user_id, u]));
    this.#pages = new Map((saved.pages ?? []).map((p) => [p.page_id, p]));
    this.#ig = new Map((saved.ig_accounts ?? []).map((a) => [a.ig_user_id, a]));
    this.#grants = new Map((saved.grants ?? []).map((g) => [grantKey(g.app_id, g.user_id), g]));
    this.#tokens = new Map((saved.tokens ?? []).map((t) => [t.token, t]));
    this.#containers = new Map((saved.containers ?? []).map((c) => [c.id, c]));
    this.#media = new Map((saved.media ?? []).map((m) => [m.id, m]));
    this.#reels = new Map((saved.reels ?? []).map((r) => [r.video_id, r]));
    this.#settings = saved.settings ?? {};
    this.#limits = new Map(saved.limits ?? []);
  }

  save(): Promise<void> {
    return this.#state.write(() => ({
      apps: [...this.#apps.values()],
      users: [...this.#users.values()],
      pages: [...this.#pages.values()],
      ig_accounts: [...this.#ig.values()],
      grants: [...this.#grants.values()],
      tokens: [...this.#tokens.values()],
      containers: [...this.#containers.values()],
      media: [...this.#media.values()],
      reels: [...this.#reels.values()],
      settings: this.#settings,
      limits: [...this.#limits],
    }));
  }

  // --- settings and limits ---

  settings(): MetaSettings {
    return { ...DEFAULT_SETTINGS, ...this.#settings };
  }

  async setSettings(patch: Partial<MetaSettings>): Promise<MetaSettings> {
    this.#settings = { ...this.#settings, ...patch };
    await this.save();
    return this.settings();
  }

  /** The publishing limit of an Instagram account or a Page: its own when set, else the default. */
  limitFor(accountId: string, fallback: number): number {
    return this.#limits.get(accountId) ?? fallback;
  }

  limits(): Record<string, number> {
    return Object.fromEntries(this.#limits);
  }

  async setLimit(accountId: string, limit: number | null): Promise<void> {
    if (limit === null) this.#limits.delete(accountId);
    else this.#limits.set(accountId, limit);
    await this.save();
  }

  // --- apps and the directory ---

  app(appId: string): MetaApp | undefined {
    return this.#apps.get(appId);
  }

  apps(): MetaApp[] {
    return [...this.#apps.values()];
  }

  async putApp(app: MetaApp): Promise<void> {
    this.#apps.set(app.app_id, app);
    await this.save();
  }

  user(userId: string): MetaUser | undefined {
    return this.#users.get(userId);
  }

  userByLogin(login: string): MetaUser | undefined {
    return this.#users.get(userIdFor(login));
  }

  users(): MetaUser[] {
    return [...this.#users.values()];
  }

  page(pageId: string): MetaPage | undefined {
    return this.#pages.get(pageId);
  }

  igAccount(igUserId: string): IgAccount | undefined {
    return this.#ig.get(igUserId);
  }

  /**
   * Creates (or replaces) a user and their Pages, each Page with its Instagram professional account
   * unless `instagram_username` is null. Posts already made stay where they are.
   */
  async putUser(login: string, name: string, pages: PageSpec[]): Promise<MetaUser> {
    const userId = userIdFor(login);
    const old = this.#users.get(userId);
    for (const pageId of old?.page_ids ?? []) {
      const page = this.#pages.get(pageId);
      if (page?.ig_user_id) this.#ig.delete(page.ig_user_id);
      this.#pages.delete(pageId);
    }
    const user: MetaUser = { user_id: userId, login, name, page_ids: [] };
    for (const spec of pages) {
      const pageId = pageIdFor(userId, spec.name);
      const page: MetaPage = { page_id: pageId, name: spec.name, category: "Media", user_id: userId };
      if (spec.instagram_username !== null) {
        const account: IgAccount = {
          ig_user_id: igUserIdFor(pageId, spec.instagram_username),
          username: spec.instagram_username,
          name: spec.name,
          page_id: pageId,
        };
        this.#ig.set(account.ig_user_id, account);
        page.ig_user_id = account.ig_user_id;
      }
      this.#pages.set(pageId, page);
      user.page_ids.push(pageId);
    }
    this.#users.set(userId, user);
    await this.save();
    return user;
  }

  // --- grants, codes, tokens ---

  grant(appId: string, userId: string): Grant | undefined {
    return this.#grants.get(grantKey(appId, userId));
  }

  grants(): Grant[] {
    return [...this.#grants.values()];
  }

  /** A consent in the dialog: the permissions asked are granted (added to a live grant's, or replacing a revoked one's). */
  async consent(appId: string, userId: string, scopes: string[], now: number): Promise<Grant> {
    const old = this.grant(appId, userId);
    const kept = old && !old.revoked ? old.scopes : [];
    const grant: Grant = { app_id: appId, user_id: userId, scopes: [...new Set([...kept, ...scopes])], consented_at: now };
    this.#grants.set(grantKey(appId, userId), grant);
    await this.save();
    return grant;
  }

  async setGrantScopes(appId: string, userId: string, scopes: string[], now: number): Promise<Grant> {
    const grant: Grant = { ...(this.grant(appId, userId) ?? { app_id: appId, user_id: userId, consented_at: now }), scopes };
    this.#grants.set(grantKey(appId, userId), grant);
    await this.save();
    return grant;
  }

  issueCode(pending: Omit<PendingCode, "expires_at">, now: number): string {
    const code = `AQ${randomBytes(48).toString("base64url")}`;
    this.#codes.set(code, { ...pending, expires_at: now + CODE_LIFETIME_MS });
    return code;
  }

  /** A code is redeemed at most once, whatever the outcome; `expired` when its ten minutes passed. */
  takeCode(code: string, now: number): PendingCode | "unknown" | "used" | "expired" {
    if (this.#usedCodes.has(code)) return "used";
    const pending = this.#codes.get(code);
    if (!pending) return "unknown";
    this.#codes.delete(code);
    this.#usedCodes.add(code);
    return pending.expires_at > now ? pending : "expired";
  }

  token(token: string): AccessToken | undefined {
    return this.#tokens.get(token);
  }

  async issueUserToken(appId: string, userId: string, longLived: boolean, now: number): Promise<AccessToken> {
    for (const [key, old] of this.#tokens) if (old.expires_at !== null && old.expires_at + KEEP_EXPIRED_MS <= now) this.#tokens.delete(key);
    const token: AccessToken = {
      token: `EAA${randomBytes(42).toString("base64url").replace(/[-_]/g, "Z")}`,
      kind: "user",
      app_id: appId,
      user_id: userId,
      issued_at: now,
      expires_at: now + (longLived ? LONG_LIVED_S : SHORT_LIVED_S) * 1000,
      long_lived: longLived,
    };
    this.#tokens.set(token.token, token);
    await this.save();
    return token;
  }

  /**
   * The Page token `/me/accounts` hands out with a user token: the same one on every call. It never
   * expires when the user token is long-lived, else it expires with it.
   */
  async pageTokenFor(userToken: AccessToken, pageId: string): Promise<AccessToken> {
    for (const t of this.#tokens.values()) {
      if (t.kind === "page" && t.from_token === userToken.token && t.page_id === pageId && !t.revoked) return t;
    }
    const token: AccessToken = {
      token: `EAA${randomBytes(42).toString("base64url").replace(/[-_]/g, "P")}`,
      kind: "page",
      app_id: userToken.app_id,
      user_id: userToken.user_id,
      page_id: pageId,
      issued_at: userToken.issued_at,
      expires_at: userToken.long_lived ? null : userToken.expires_at,
      long_lived: userToken.long_lived,
      from_token: userToken.token,
    };
    this.#tokens.set(token.token, token);
    await this.save();
    return token;
  }

  /** Revokes a user's grant to an app: every token of it is refused from now on. Answers how many tokens went. */
  async revokeGrant(appId: string, userId: string, reason: RevokeReason): Promise<number> {
    const grant = this.grant(appId, userId);
    if (grant) grant.revoked = reason;
    let count = 0;
    for (const t of this.#tokens.values()) {
      if (t.app_id === appId && t.user_id === userId && !t.revoked) {
        t.revoked = reason;
        count += 1;
      }
    }
    await this.save();
    return count;
  }

  /** Revokes one token and the Page tokens handed out with it. */
  async revokeToken(token: AccessToken, reason: RevokeReason): Promise<number> {
    let count = 0;
    for (const t of this.#tokens.values()) {
      if ((t.token === token.token || t.from_token === token.token) && !t.revoked) {
        t.revoked = reason;
        count += 1;
      }
    }
    await this.save();
    return count;
  }

  revokedTokens(): AccessToken[] {
    return [...this.#tokens.values()].filter((t) => t.revoked);
  }

  // --- containers, media, Reels ---

  container(id: string): IgContainer | undefined {
    return this.#containers.get(id);
  }

  containers(): IgContainer[] {
    return [...this.#containers.values()].sort((a, b) => a.created_at - b.created_at);
  }

  async putContainer(container: IgContainer): Promise<void> {
    this.#containers.set(container.id, container);
    await this.save();
  }

  media(id: string): IgMedia | undefined {
    return this.#media.get(id);
  }

  mediaList(): IgMedia[] {
    return [...this.#media.values()].sort((a, b) => a.published_at - b.published_at);
  }

  async addMedia(media: IgMedia, container: IgContainer): Promise<void> {
    this.#media.set(media.id, media);
    this.#containers.set(container.id, container);
    await this.save();
  }

  reel(videoId: string): FbReel | undefined {
    return this.#reels.get(videoId);
  }

  reels(): FbReel[] {
    return [...this.#reels.values()].sort((a, b) => a.created_at - b.created_at);
  }

  async putReel(reel: FbReel): Promise<void> {
    this.#reels.set(reel.video_id, reel);
    await this.save();
  }

  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#locks.run(key, fn);
  }

  async reset(): Promise<void> {
    await this.#state.settled();
    for (const map of [this.#apps, this.#users, this.#pages, this.#ig, this.#grants, this.#tokens, this.#containers, this.#media, this.#reels]) map.clear();
    this.#settings = {};
    this.#limits.clear();
    this.#codes.clear();
    this.#usedCodes.clear();
    await rm(this.root, { recursive: true, force: true });
  }
}
