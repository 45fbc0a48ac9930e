/**
 * The YouTube emulator's state for one data dir (uploads on disk, quota and caps), and the checks
 * every Data API call goes through: a bearer token the emulator's `/token` issued, then its cost
 * charged to the token's project.
 */
import type { EmulatorContext } from "../context.ts";
import type { IssuedToken } from "../google-oauth/token-store.ts";
import { quotaExceeded, unauthorized } from "./errors.ts";
import { type ApiMethod, COSTS, YouTubeRules } from "./rules.ts";
import { YouTubeStore } from "./store.ts";

interface YouTubeState {
  store: YouTubeStore;
  rules: YouTubeRules;
}

const states = new Map<string, Promise<YouTubeState>>();

export function youtubeFor(ctx: EmulatorContext): Promise<YouTubeState> {
  let state = states.get(ctx.dataDir);
  if (!state) {
    const rules = new YouTubeRules(ctx.dataDir, ctx.youtubeLimits);
    state = rules.load().then(() => ({ store: new YouTubeStore(ctx.dataDir), rules }));
    states.set(ctx.dataDir, state);
  }
  return state;
}

export async function resetYouTube(ctx: EmulatorContext): Promise<void> {
  const { store, rules } = await youtubeFor(ctx);
  await rules.reset();
  await store.reset();
}

/**
 * The token of an authorized call whose cost fitted what its project's bucket for the call has
 * left today (and was charged), or the error answer: 401 without a valid token, 403
 * `quotaExceeded` when spent.
 */
export async function chargeApiCall(req: Request, ctx: EmulatorContext, method: ApiMethod): Promise<IssuedToken | Response> {
  const token = ctx.tokens.verify(req.headers.get("authorization"));
  if (!token) return unauthorized();
  const { rules } = await youtubeFor(ctx);
  const { bucket, cost } = COSTS[method];
  return await rules.charge(token.client_id, bucket, cost, ctx.clock.now()) ? token : quotaExceeded();
}
