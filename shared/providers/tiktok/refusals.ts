/**
 * Which failures of a TikTok publish are TikTok saying "not this grant", "not now" or "not with
 * this app's settings" rather than a fault, so the publish stage can mark the account, defer the
 * publication, or stop retrying. Decided from the error class, status and TikTok's error code the
 * clients attach (oauth.ts, content-posting.ts), never from the message.
 */
import { ProviderError } from "../errors.ts";
import { TikTokApiError } from "./content-posting.ts";
import { TikTokOAuthError } from "./oauth.ts";

/** TikTok counts API calls per minute per token (6 inits, 30 status fetches). */
const RATE_LIMIT_WAIT_MS = 60_000;
/** The post caps are daily and TikTok does not say when they reset: a full day is the wait that surely clears them. */
const DAILY_CAP_WAIT_MS = 24 * 60 * 60_000;

type TikTokRefusal =
  /** The grant is gone: the refresh token's `invalid_grant`, or a 401 on a token just refreshed. The user must connect again. */
  | { kind: "needs_reconnect"; reason: string }
  /**
   * TikTok limits the account or the app for a while: publish again no earlier than `notBefore`.
   * `limit`: a per-minute rate limit, or a cap on the creator's posts.
   */
  | { kind: "try_later"; limit: "rate" | "posts"; reason: string; notBefore: Date }
  /** The app's setup or the post's settings make TikTok refuse it: retrying cannot help until an operator changes them. */
  | { kind: "configuration"; reason: string; retryable: false };

/**
 * `now` anchors the suggested not-before. A 401 counts as a refused grant because the publish
 * stage always calls with a token it just refreshed (as the YouTube classifier assumes).
 */
export function classifyTikTokRefusal(error: unknown, now: Date = new Date()): TikTokRefusal | null {
  if (!(error instanceof ProviderError)) return null;
  const after = (ms: number) => new Date(now.getTime() + ms);
  if (error instanceof TikTokOAuthError) {
    if (error.error === "invalid_grant") return { kind: "needs_reconnect", reason: `invalid_grant: ${error.description}` };
    return null;
  }
  if (!(error instanceof TikTokApiError)) return null;
  switch (error.code) {
    case "access_token_invalid":
    case "scope_not_authorized":
      return { kind: "needs_reconnect", reason: `TikTok refused a fresh access token (${error.status} ${error.code})` };
    case "rate_limit_exceeded":
      return { kind: "try_later", limit: "rate", reason: error.code, notBefore: after(RATE_LIMIT_WAIT_MS) };
    case "spam_risk_too_many_posts":
    case "reached_active_user_cap":
      return { kind: "try_later", limit: "posts", reason: error.code, notBefore: after(DAILY_CAP_WAIT_MS) };
    case "unaudited_client_can_only_post_to_private_accounts":
      return {
        kind: "configuration",
        retryable: false,
        reason: "the TikTok app is not audited yet: it may only post to private accounts (set privacy_level SELF_ONLY or make the account private)",
      };
    case "privacy_level_option_mismatch":
      return {
        kind: "configuration",
        retryable: false,
        reason: "privacy_level is not among the creator's privacy_level_options (query creator info and choose one of them)",
      };
  }
  if (error.status === 429) return { kind: "try_later", limit: "rate", reason: `http_429 ${error.code}`, notBefore: after(RATE_LIMIT_WAIT_MS) };
  return null;
}
