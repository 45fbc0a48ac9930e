/**
 * The TikTok emulator's state for one data dir (store.ts), loaded once, and the bearer-token check
 * every Content Posting API call goes through.
 */
import type { EmulatorContext } from "../context.ts";
import { accessTokenInvalid, scopeNotAuthorized } from "./errors.ts";
import { type AccessToken, type Grant, TikTokStore } from "./store.ts";

const stores = new Map<string, Promise<TikTokStore>>();

export function tiktokFor(ctx: EmulatorContext): Promise<TikTokStore> {
  let store = stores.get(ctx.dataDir);
  if (!store) {
    const created = new TikTokStore(ctx.dataDir);
    store = created.load().then(() => created);
    stores.set(ctx.dataDir, store);
  }
  return store;
}

export async function resetTikTok(ctx: EmulatorContext): Promise<void> {
  await (await tiktokFor(ctx)).reset();
}

export interface Caller {
  store: TikTokStore;
  token: AccessToken;
  grant: Grant;
  now: number;
}

/**
 * The caller of an API call: a live `Authorization: Bearer` access token whose grant holds one of
 * `scopes`; else 401 `access_token_invalid` or 401 `scope_not_authorized`. An armed `tiktok`
 * `access_token_invalid` fault refuses a valid token the same way.
 */
export async function authorizeCall(req: Request, ctx: EmulatorContext, scopes: readonly string[]): Promise<Caller | Response> {
  const store = await tiktokFor(ctx);
  const now = ctx.clock.now();
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  const found = match ? store.verify(match[1]!, now) : undefined;
  if (!found) return accessTokenInvalid();
  if (ctx.faults.take("tiktok", (kind) => kind === "access_token_invalid")) return accessTokenInvalid();
  const granted = found.grant.scope.split(",");
  if (!scopes.some((s) => granted.includes(s))) return scopeNotAuthorized(scopes.join(" or "));
  return { store, ...found, now };
}
