/**
 * Which TikTok failures defer or stop a publish instead of failing it as a fault: the real clients
 * (token refresh, Direct Post init) against a local server answering as TikTok does, then
 * classifyTikTokRefusal on what they throw.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { planChunks } from "../../shared/providers/tiktok/chunks.ts";
import { initDirectPost, TikTokApiError } from "../../shared/providers/tiktok/content-posting.ts";
import { refreshAccessToken, TikTokOAuthError } from "../../shared/providers/tiktok/oauth.ts";
import { classifyTikTokRefusal } from "../../shared/providers/tiktok/refusals.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";

let next: { status: number; body: unknown } = { status: 200, body: {} };
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json(next.body, { status: next.status }) });
});
afterAll(() => server.stop(true));

const NOW = new Date("2026-12-02T01:00:00Z");
const MINUTE = 60_000;

async function initError(status: number, code: string): Promise<unknown> {
  next = { status, body: { data: {}, error: { code, message: `refused: ${code}`, log_id: "LOG" } } };
  return initDirectPost({
    accessToken: "act.token",
    baseUrl: `http://127.0.0.1:${server.port}`,
    plan: planChunks(1000),
    postInfo: { privacy_level: "PUBLIC_TO_EVERYONE", brand_content_toggle: false, brand_organic_toggle: false },
  }).then(() => null, (error) => error);
}

async function refreshError(status: number, error: string): Promise<unknown> {
  next = { status, body: { error, error_description: `refused: ${error}`, log_id: "LOG" } };
  return refreshAccessToken({ clientKey: "k", clientSecret: "s", apiBaseUrl: `http://127.0.0.1:${server.port}`, refreshToken: "rft.token" })
    .then(() => null, (e) => e);
}

describe("classifyTikTokRefusal", () => {
  test("a refresh refused with invalid_grant needs a reconnect; other OAuth errors are not refusals", async () => {
    const refused = await refreshError(400, "invalid_grant");
    expect(refused).toBeInstanceOf(TikTokOAuthError);
    expect(classifyTikTokRefusal(refused, NOW)).toEqual({ kind: "needs_reconnect", reason: "invalid_grant: refused: invalid_grant" });
    expect(classifyTikTokRefusal(await refreshError(400, "invalid_client"), NOW)).toBeNull();
    expect(classifyTikTokRefusal(await refreshError(400, "invalid_request"), NOW)).toBeNull();
  });

  test("a 401 access_token_invalid (or scope_not_authorized) on a fresh token needs a reconnect", async () => {
    for (const code of ["access_token_invalid", "scope_not_authorized"]) {
      const refusal = classifyTikTokRefusal(await initError(401, code), NOW);
      expect(refusal?.kind).toBe("needs_reconnect");
      expect(refusal && "reason" in refusal && refusal.reason).toContain(code);
    }
  });

  test("rate limits and daily caps defer the publication, each with a suggested not-before", async () => {
    expect(classifyTikTokRefusal(await initError(429, "rate_limit_exceeded"), NOW))
      .toEqual({ kind: "try_later", limit: "rate", reason: "rate_limit_exceeded", notBefore: new Date(NOW.getTime() + MINUTE) });
    for (const code of ["spam_risk_too_many_posts", "reached_active_user_cap"]) {
      expect(classifyTikTokRefusal(await initError(403, code), NOW))
        .toEqual({ kind: "try_later", limit: "posts", reason: code, notBefore: new Date(NOW.getTime() + 24 * 60 * MINUTE) });
    }
    // A 429 under an undocumented code is still a rate limit.
    expect(classifyTikTokRefusal(await initError(429, "too_many_requests"), NOW)).toMatchObject({
      kind: "try_later",
      limit: "rate",
      notBefore: new Date(NOW.getTime() + MINUTE),
    });
  });

  test("an unaudited app or a privacy level the creator lacks is a non-retryable configuration error", async () => {
    const unaudited = classifyTikTokRefusal(await initError(403, "unaudited_client_can_only_post_to_private_accounts"), NOW);
    expect(unaudited).toMatchObject({ kind: "configuration", retryable: false });
    expect(unaudited && unaudited.reason).toContain("not audited");
    const mismatch = classifyTikTokRefusal(await initError(400, "privacy_level_option_mismatch"), NOW);
    expect(mismatch).toMatchObject({ kind: "configuration", retryable: false });
    expect(mismatch && mismatch.reason).toContain("privacy_level_options");
  });

  test("everything else is unclassified", async () => {
    for (
      const [status, code] of [[400, "invalid_param"], [403, "spam_risk_user_banned_from_posting"], [500, "internal_error"], [
        403,
        "url_ownership_unverified",
      ]] as const
    ) {
      const error = await initError(status, code);
      expect(error).toBeInstanceOf(TikTokApiError);
      expect(classifyTikTokRefusal(error, NOW)).toBeNull();
    }
    expect(classifyTikTokRefusal(new ProviderUnavailableError("tiktok", "connection failed"), NOW)).toBeNull();
    expect(classifyTikTokRefusal(new ProviderRejectedError("youtube", "x", { status: 401 }), NOW)).toBeNull();
    expect(classifyTikTokRefusal(new Error("access_token_invalid"), NOW)).toBeNull();
    expect(classifyTikTokRefusal(undefined, NOW)).toBeNull();
  });
});
