/**
 * Which publish failures defer an account instead of failing the unit: the real provider clients
 * (the resumable upload's session start, the OAuth token refresh) against a local server answering
 * as YouTube and Google do, then classifyYouTubeRefusal on what they throw.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createYouTubeAccessTokenSource } from "../../shared/providers/youtube/oauth.ts";
import { classifyYouTubeRefusal } from "../../shared/providers/youtube/refusals.ts";
import { startUploadSession } from "../../shared/providers/youtube/resumable-upload.ts";
import { queryVideoTotals } from "../../shared/providers/youtube/analytics.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";

/** The answer the next request gets: status and JSON body. */
let next: { status: number; body: unknown } = { status: 200, body: {} };
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json(next.body, { status: next.status }) });
});
afterAll(() => server.stop(true));

function dataApiError(status: number, reason: string, domain = "youtube.video") {
  const message = `refused: ${reason}`;
  return { error: { code: status, message, errors: [{ message, domain, reason }] } };
}

async function sessionStartError(status: number, body: unknown): Promise<unknown> {
  next = { status, body };
  return startUploadSession({
    baseUrl: `http://127.0.0.1:${server.port}`,
    accessToken: "token",
    metadata: { snippet: { title: "t" }, status: { privacyStatus: "public" } },
    contentLength: 10,
    contentType: "video/mp4",
  }).then(() => null, (error) => error);
}

async function tokenRefreshError(status: number, body: unknown): Promise<unknown> {
  next = { status, body };
  return createYouTubeAccessTokenSource({
    clientId: "client",
    clientSecret: "secret",
    tokenUrl: `http://127.0.0.1:${server.port}/token`,
    refreshToken: "refresh",
  }).getAccessToken().then(() => null, (error) => error);
}

describe("classifyYouTubeRefusal", () => {
  test("YouTube's 403 quotaExceeded is the project's bucket spent", async () => {
    const error = await sessionStartError(403, dataApiError(403, "quotaExceeded", "youtube.quota"));
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(classifyYouTubeRefusal(error)).toEqual({ kind: "quota_exceeded" });
  });

  test("the Analytics API's 403 quotaExceeded is its bucket spent too (one error format, another client)", async () => {
    next = { status: 403, body: dataApiError(403, "quotaExceeded", "usageLimits") };
    const error = await queryVideoTotals({
      baseUrl: `http://127.0.0.1:${server.port}`,
      accessToken: "token",
      videoId: "abcdefghijk",
      startDate: "2026-12-01",
      endDate: "2026-12-03",
    })
      .then(() => null, (e) => e);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(classifyYouTubeRefusal(error)).toEqual({ kind: "quota_exceeded" });
  });

  test("YouTube's 400 uploadLimitExceeded is the channel's cap reached", async () => {
    const error = await sessionStartError(400, dataApiError(400, "uploadLimitExceeded"));
    expect(classifyYouTubeRefusal(error)).toEqual({ kind: "upload_limit_exceeded" });
  });

  test("a Data API 401 right after a fresh token is a refused grant", async () => {
    const error = await sessionStartError(401, dataApiError(401, "authError", "global"));
    expect(classifyYouTubeRefusal(error)).toMatchObject({ kind: "grant_refused" });
  });

  test("the token endpoint's 400 invalid_grant is a refused grant, with Google's description", async () => {
    const error = await tokenRefreshError(400, { error: "invalid_grant", error_description: "Token has been expired or revoked." });
    const refusal = classifyYouTubeRefusal(error);
    expect(refusal?.kind).toBe("grant_refused");
    expect(refusal?.kind === "grant_refused" && refusal.reason).toContain("Token has been expired or revoked.");
  });

  test("faults and other refusals are not deferrals: the stage retries or fails them as before", async () => {
    const rateLimited = await sessionStartError(429, dataApiError(429, "rateLimitExceeded", "youtube.quota"));
    expect(rateLimited).toBeInstanceOf(ProviderUnavailableError);
    expect(classifyYouTubeRefusal(rateLimited)).toBeNull();
    expect(classifyYouTubeRefusal(await sessionStartError(503, { error: { code: 503, message: "backend error" } }))).toBeNull();
    expect(classifyYouTubeRefusal(await sessionStartError(400, dataApiError(400, "invalidTitle")))).toBeNull();
    expect(classifyYouTubeRefusal(await sessionStartError(403, dataApiError(403, "forbidden")))).toBeNull();
    expect(classifyYouTubeRefusal(await tokenRefreshError(400, { error: "invalid_request" }))).toBeNull();
    expect(classifyYouTubeRefusal(await tokenRefreshError(401, { error: "invalid_client" }))).toBeNull();
    expect(classifyYouTubeRefusal(new Error("quotaExceeded"))).toBeNull();
  });
});
