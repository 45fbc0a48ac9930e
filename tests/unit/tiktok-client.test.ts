/**
 * The TikTok clients (shared/providers/tiktok/oauth.ts, content-posting.ts) against a local server
 * that checks each request byte for byte (path, headers, form fields, JSON bodies, each chunk's
 * Content-Range and bytes) and answers as TikTok documents, refusals included.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planChunks } from "../../shared/providers/tiktok/chunks.ts";
import {
  type ChunkProgress,
  fetchPostStatus,
  initDirectPost,
  queryCreatorInfo,
  TikTokApiError,
  uploadChunks,
} from "../../shared/providers/tiktok/content-posting.ts";
import {
  buildAuthorizeUrl,
  codeChallengeFor,
  createCodeVerifier,
  exchangeCode,
  refreshAccessToken,
  revokeToken,
  TikTokOAuthError,
} from "../../shared/providers/tiktok/oauth.ts";
import { ProviderUnavailableError } from "../../shared/providers/errors.ts";

interface Seen {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  body: Uint8Array;
}

let seen: Seen[] = [];
let answer: (request: Seen) => Response = () => new Response("no answer set", { status: 500 });
let server: ReturnType<typeof Bun.serve>;
let base: string;
let dir: string;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const entry = {
        method: request.method,
        path: url.pathname,
        search: url.search,
        headers: request.headers,
        body: new Uint8Array(await request.arrayBuffer()),
      };
      seen.push(entry);
      return answer(entry);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  dir = await mkdtemp(join(tmpdir(), "tiktok-client-"));
});
afterAll(async () => {
  server.stop(true);
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  seen = [];
});

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const LOG_ID = "202612020118FAKELOGID";
const ok = (data: unknown) => Response.json({ data, error: { code: "ok", message: "", log_id: LOG_ID } });
const refused = (status: number, code: string, message: string) => Response.json({ data: {}, error: { code, message, log_id: LOG_ID } }, { status });
const caught = (promise: Promise<unknown>) =>
  promise.then(() => {
    throw new Error("expected a rejection");
  }, (error: unknown) => error);

const CREDENTIALS = { clientKey: "awclientkey123", clientSecret: "S3CRET-client-secret" };
const REDIRECT = "http://127.0.0.1:3455/callback/";
const ACCESS = "act.SECRET-access-token!4321";
const REFRESH = "rft.SECRET-refresh-token!8765";
const TOKEN_ANSWER = {
  access_token: ACCESS,
  expires_in: 86400,
  open_id: "afd97af1-b87b-48b9-ac98-410aghda5344",
  refresh_expires_in: 31536000,
  refresh_token: REFRESH,
  scope: "user.info.basic,video.publish",
  token_type: "Bearer",
};

describe("Login Kit: authorize URL and PKCE", () => {
  test("the code_challenge is the hex SHA-256 of the verifier, as TikTok's desktop guide asks (not base64url)", async () => {
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const expected = createHash("sha256").update(verifier).digest("hex");
    expect(await codeChallengeFor(verifier)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the URL carries exactly the documented query, scopes comma-separated", async () => {
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const url = await buildAuthorizeUrl({
      clientKey: CREDENTIALS.clientKey,
      scopes: ["user.info.basic", "video.publish"],
      redirectUri: REDIRECT,
      state: "st4te",
      codeVerifier: verifier,
      authBaseUrl: base,
    });
    const challenge = createHash("sha256").update(verifier).digest("hex");
    expect(url).toBe(
      `${base}/v2/auth/authorize/?client_key=awclientkey123&scope=user.info.basic%2Cvideo.publish&response_type=code` +
        `&redirect_uri=http%3A%2F%2F127.0.0.1%3A3455%2Fcallback%2F&state=st4te&code_challenge=${challenge}&code_challenge_method=S256`,
    );
    expect(new URL(url).searchParams.get("scope")).toBe("user.info.basic,video.publish");
    expect(await buildAuthorizeUrl({ clientKey: "k", scopes: ["a"], redirectUri: REDIRECT, state: "s", codeVerifier: verifier })).toStartWith(
      "https://www.tiktok.com/v2/auth/authorize/?",
    );
  });

  test("a code_verifier is 43..128 unreserved characters and new every time", () => {
    const a = createCodeVerifier();
    expect(a).toMatch(/^[A-Za-z0-9\-._~]{64}$/);
    expect(createCodeVerifier(43)).toHaveLength(43);
    expect(createCodeVerifier()).not.toBe(a);
    expect(() => createCodeVerifier(42)).toThrow(RangeError);
  });
});

describe("Login Kit: token endpoint", () => {
  test("exchangeCode posts the documented form, code_verifier included, and returns the token set", async () => {
    answer = () => Response.json(TOKEN_ANSWER);
    const tokens = await exchangeCode({ ...CREDENTIALS, apiBaseUrl: base, code: "CODE*!xyz", redirectUri: REDIRECT, codeVerifier: "verifier-abc" });
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v2/oauth/token/");
    expect(request.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(request.headers.get("cache-control")).toBe("no-cache");
    expect(request.headers.get("authorization")).toBeNull();
    expect(text(request.body)).toBe(
      "client_key=awclientkey123&client_secret=S3CRET-client-secret&code=CODE*%21xyz&grant_type=authorization_code" +
        "&redirect_uri=http%3A%2F%2F127.0.0.1%3A3455%2Fcallback%2F&code_verifier=verifier-abc",
    );
    expect(tokens).toEqual({
      accessToken: ACCESS,
      expiresIn: 86400,
      refreshToken: REFRESH,
      refreshExpiresIn: 31536000,
      openId: TOKEN_ANSWER.open_id,
      scopes: ["user.info.basic", "video.publish"],
      tokenType: "Bearer",
    });
  });

  test("refreshAccessToken posts grant_type=refresh_token and returns the new refresh token", async () => {
    answer = () => Response.json({ ...TOKEN_ANSWER, refresh_token: "rft.NEW" });
    const tokens = await refreshAccessToken({ ...CREDENTIALS, apiBaseUrl: base, refreshToken: REFRESH });
    expect(seen[0].path).toBe("/v2/oauth/token/");
    expect(text(seen[0].body)).toBe(
      `client_key=awclientkey123&client_secret=S3CRET-client-secret&grant_type=refresh_token&refresh_token=rft.SECRET-refresh-token%218765`,
    );
    expect(tokens.refreshToken).toBe("rft.NEW");
  });

  test("a refused refresh is a TikTokOAuthError with status, error and description, and no secret in its message", async () => {
    answer = () => Response.json({ error: "invalid_grant", error_description: "Refresh token is invalid or expired.", log_id: LOG_ID }, { status: 400 });
    const error = await caught(refreshAccessToken({ ...CREDENTIALS, apiBaseUrl: base, refreshToken: REFRESH }));
    expect(error).toBeInstanceOf(TikTokOAuthError);
    const e = error as TikTokOAuthError;
    expect([e.status, e.error, e.description, e.logId, e.retriable, e.apiReason]).toEqual([
      400,
      "invalid_grant",
      "Refresh token is invalid or expired.",
      LOG_ID,
      false,
      "invalid_grant",
    ]);
    expect(e.message).not.toContain(REFRESH);
    expect(e.message).not.toContain(CREDENTIALS.clientSecret);
  });

  test("an OAuth error in a 200 answer is still an error; an outage page is ProviderUnavailableError", async () => {
    answer = () => Response.json({ error: "invalid_request", error_description: "Code verifier or code challenge is invalid.", log_id: LOG_ID });
    const error = await caught(exchangeCode({ ...CREDENTIALS, apiBaseUrl: base, code: "c", redirectUri: REDIRECT, codeVerifier: "v" }));
    expect(error).toBeInstanceOf(TikTokOAuthError);
    expect((error as TikTokOAuthError).error).toBe("invalid_request");

    answer = () => new Response("<html>bad gateway</html>", { status: 502 });
    const outage = await caught(refreshAccessToken({ ...CREDENTIALS, apiBaseUrl: base, refreshToken: REFRESH }));
    expect(outage).toBeInstanceOf(ProviderUnavailableError);
    expect((outage as ProviderUnavailableError).status).toBe(502);
  });

  test("a token answer missing fields is malformed, named by field, never echoing the token", async () => {
    answer = () => Response.json({ access_token: ACCESS, expires_in: 86400 });
    const error = await caught(refreshAccessToken({ ...CREDENTIALS, apiBaseUrl: base, refreshToken: REFRESH }));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toContain("refresh_token");
    expect((error as Error).message).not.toContain(ACCESS);
  });

  test("revokeToken posts client_key, client_secret and token to /v2/oauth/revoke/", async () => {
    answer = () => new Response(null, { status: 200 });
    await revokeToken({ ...CREDENTIALS, apiBaseUrl: base, accessToken: ACCESS });
    expect(seen[0].path).toBe("/v2/oauth/revoke/");
    expect(seen[0].headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(text(seen[0].body)).toBe(`client_key=awclientkey123&client_secret=S3CRET-client-secret&token=act.SECRET-access-token%214321`);

    answer = () => Response.json({ error: "invalid_request", error_description: "Token is invalid.", log_id: LOG_ID }, { status: 400 });
    expect(await caught(revokeToken({ ...CREDENTIALS, apiBaseUrl: base, accessToken: ACCESS }))).toBeInstanceOf(TikTokOAuthError);
  });
});

describe("Content Posting API: creator info, init, status", () => {
  const CREATOR = {
    creator_avatar_url: "https://p16.example/avatar.jpeg",
    creator_username: "tiktok",
    creator_nickname: "TikTok Official",
    privacy_level_options: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
    comment_disabled: false,
    duet_disabled: false,
    stitch_disabled: true,
    max_video_post_duration_sec: 300,
  };

  test("queryCreatorInfo posts with the bearer token and no body", async () => {
    answer = () => ok(CREATOR);
    const info = await queryCreatorInfo({ accessToken: ACCESS, baseUrl: base });
    expect(seen[0].method).toBe("POST");
    expect(seen[0].path).toBe("/v2/post/publish/creator_info/query/");
    expect(seen[0].headers.get("authorization")).toBe(`Bearer ${ACCESS}`);
    expect(seen[0].headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(seen[0].body).toHaveLength(0);
    expect(info).toEqual(CREATOR);
  });

  test("initDirectPost sends post_info and the FILE_UPLOAD layout byte for byte", async () => {
    answer = () => ok({ publish_id: "v_pub_file~v2-1.123456789", upload_url: `${base}/upload/?upload_id=67890&upload_token=Xza123` });
    const plan = planChunks(50_000_123);
    const result = await initDirectPost({
      accessToken: ACCESS,
      baseUrl: base,
      plan,
      postInfo: {
        is_aigc: true,
        brand_organic_toggle: false,
        brand_content_toggle: false,
        video_cover_timestamp_ms: 1000,
        disable_stitch: false,
        disable_comment: true,
        disable_duet: false,
        privacy_level: "SELF_ONLY",
        title: "Why the sky is blue #science",
      },
    });
    expect(seen[0].path).toBe("/v2/post/publish/video/init/");
    expect(seen[0].headers.get("authorization")).toBe(`Bearer ${ACCESS}`);
    expect(seen[0].headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(text(seen[0].body)).toBe(
      '{"post_info":{"title":"Why the sky is blue #science","privacy_level":"SELF_ONLY","disable_duet":false,' +
        '"disable_comment":true,"disable_stitch":false,"video_cover_timestamp_ms":1000,"brand_content_toggle":false,"brand_organic_toggle":false,"is_aigc":true},' +
        '"source_info":{"source":"FILE_UPLOAD","video_size":50000123,"chunk_size":10000000,"total_chunk_count":5}}',
    );
    expect(result).toEqual({ publishId: "v_pub_file~v2-1.123456789", uploadUrl: `${base}/upload/?upload_id=67890&upload_token=Xza123` });
  });

  test("invalid post_info is refused before any request", async () => {
    const error = await caught(initDirectPost({
      accessToken: ACCESS,
      baseUrl: base,
      plan: planChunks(10),
      postInfo: { privacy_level: "EVERYONE" as never, brand_content_toggle: false, brand_organic_toggle: false },
    }));
    expect(error).toBeInstanceOf(RangeError);
    expect(seen).toHaveLength(0);
  });

  test("each documented refusal becomes a TikTokApiError with status, code, message and log_id; no token in the message", async () => {
    const cases: [number, string, boolean][] = [
      [403, "spam_risk_too_many_posts", false],
      [403, "unaudited_client_can_only_post_to_private_accounts", false],
      [400, "privacy_level_option_mismatch", false],
      [401, "access_token_invalid", false],
      [429, "rate_limit_exceeded", true],
      [500, "internal_error", true],
    ];
    for (const [status, code, retriable] of cases) {
      answer = () => refused(status, code, `TikTok says ${code}`);
      const error = await caught(initDirectPost({
        accessToken: ACCESS,
        baseUrl: base,
        plan: planChunks(10),
        postInfo: { privacy_level: "PUBLIC_TO_EVERYONE", brand_content_toggle: false, brand_organic_toggle: false },
      }));
      expect(error).toBeInstanceOf(TikTokApiError);
      const e = error as TikTokApiError;
      expect([e.status, e.code, e.logId, e.retriable, e.provider]).toEqual([status, code, LOG_ID, retriable, "tiktok"]);
      expect(e.message).toContain(`TikTok says ${code}`);
      expect(e.message).not.toContain(ACCESS);
    }
  });

  test("an error code other than ok in a 200 answer is an error too; an answer without the envelope is an outage", async () => {
    answer = () => refused(200, "reached_active_user_cap", "The daily quota for active publishing users from your client is reached.");
    const error = await caught(queryCreatorInfo({ accessToken: ACCESS, baseUrl: base }));
    expect(error).toBeInstanceOf(TikTokApiError);
    expect((error as TikTokApiError).code).toBe("reached_active_user_cap");

    answer = () => new Response("upstream timeout", { status: 504 });
    expect(await caught(queryCreatorInfo({ accessToken: ACCESS, baseUrl: base }))).toBeInstanceOf(ProviderUnavailableError);
    answer = () => ok({ privacy_level_options: "all" });
    expect(await caught(queryCreatorInfo({ accessToken: ACCESS, baseUrl: base }))).toBeInstanceOf(ProviderUnavailableError);
  });

  test("fetchPostStatus posts the publish_id and types each status; int64 post ids keep every digit", async () => {
    answer = () => ok({ status: "PROCESSING_UPLOAD", uploaded_bytes: 10_000_000 });
    expect(await fetchPostStatus({ accessToken: ACCESS, baseUrl: base, publishId: "v_pub_file~v2-1.123" }))
      .toEqual({ status: "PROCESSING_UPLOAD", uploaded_bytes: 10_000_000, publicaly_available_post_id: [] });
    expect(seen[0].path).toBe("/v2/post/publish/status/fetch/");
    expect(seen[0].headers.get("authorization")).toBe(`Bearer ${ACCESS}`);
    expect(text(seen[0].body)).toBe('{"publish_id":"v_pub_file~v2-1.123"}');

    // Written by hand: Response.json could not carry a number past 2^53 either.
    answer = () =>
      new Response(
        `{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7400000000000000001, 7400000000000000002],"uploaded_bytes":50000123},` +
          `"error":{"code":"ok","message":"","log_id":"${LOG_ID}"}}`,
        { headers: { "content-type": "application/json" } },
      );
    const complete = await fetchPostStatus({ accessToken: ACCESS, baseUrl: base, publishId: "p" });
    expect(complete.status).toBe("PUBLISH_COMPLETE");
    expect(complete.publicaly_available_post_id).toEqual(["7400000000000000001", "7400000000000000002"]);

    answer = () => ok({ status: "FAILED", fail_reason: "file_format_check_failed" });
    expect(await fetchPostStatus({ accessToken: ACCESS, baseUrl: base, publishId: "p" })).toMatchObject({
      status: "FAILED",
      fail_reason: "file_format_check_failed",
    });

    answer = () => ok({ status: "SEND_TO_USER_INBOX" });
    expect((await fetchPostStatus({ accessToken: ACCESS, baseUrl: base, publishId: "p" })).status).toBe("SEND_TO_USER_INBOX");

    answer = () => refused(400, "invalid_publish_id", "publish_id does not exist");
    expect(await caught(fetchPostStatus({ accessToken: ACCESS, baseUrl: base, publishId: "p" }))).toBeInstanceOf(TikTokApiError);
  });
});

describe("Content Posting API: chunk upload", () => {
  const MiB = 1024 * 1024;
  const SIZE = 3 * 5 * MiB + 1234; // three 5 MiB chunks, the last one holding the trailing 1234 bytes
  let file: string;
  let video: Uint8Array;

  beforeAll(async () => {
    video = new Uint8Array(SIZE);
    for (let i = 0; i < SIZE; i++) video[i] = (i * 31 + (i >> 13)) & 255;
    file = join(dir, "video.mp4");
    await writeFile(file, video);
  });

  /** Answers as TikTok: 206 while chunks remain, 201 once the last byte arrived; `fail` refuses chosen chunks. */
  function uploadServer(fail: (index: number) => Response | undefined = () => undefined) {
    answer = (request) => {
      const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(request.headers.get("content-range") ?? "");
      if (!range) return new Response("bad range", { status: 400 });
      const index = Math.floor(Number(range[1]) / (5 * MiB));
      return fail(index) ?? new Response(null, { status: Number(range[2]) + 1 === Number(range[3]) ? 201 : 206 });
    };
  }

  test("each chunk is PUT in order with Content-Type, Content-Length, Content-Range and its exact bytes; onChunk follows each accepted one", async () => {
    const plan = planChunks(SIZE, 5 * MiB);
    expect([plan.chunkSize, plan.totalChunkCount]).toEqual([5 * MiB, 3]);
    uploadServer();
    const progress: ChunkProgress[] = [];
    const uploadUrl = `${base}/upload/?upload_id=67890&upload_token=Xza123`;
    await uploadChunks({
      uploadUrl,
      filePath: file,
      plan,
      onChunk: (p) => {
        progress.push(p);
      },
    });

    expect(seen.map((r) => [r.method, r.path, r.search])).toEqual(Array(3).fill(["PUT", "/upload/", "?upload_id=67890&upload_token=Xza123"]));
    expect(seen.map((r) => r.headers.get("content-range"))).toEqual([
      `bytes 0-5242879/${SIZE}`,
      `bytes 5242880-10485759/${SIZE}`,
      `bytes 10485760-${SIZE - 1}/${SIZE}`,
    ]);
    expect(seen.map((r) => r.headers.get("content-length"))).toEqual(["5242880", "5242880", String(5 * MiB + 1234)]);
    expect(seen.every((r) => r.headers.get("content-type") === "video/mp4")).toBe(true);
    expect(seen.every((r) => r.headers.get("authorization") === null)).toBe(true);
    plan.ranges.forEach((range, i) => expect(Buffer.from(seen[i].body).equals(Buffer.from(video.subarray(range.first, range.last + 1)))).toBe(true));
    expect(progress).toEqual([
      { index: 0, totalChunkCount: 3, uploadedBytes: 5 * MiB },
      { index: 1, totalChunkCount: 3, uploadedBytes: 10 * MiB },
      { index: 2, totalChunkCount: 3, uploadedBytes: SIZE },
    ]);
  });

  test("an interrupted upload resumes from the chunk after the last one onChunk reported", async () => {
    const plan = planChunks(SIZE, 5 * MiB);
    let failures = 1;
    uploadServer((index) => (index === 1 && failures-- > 0 ? new Response("busy", { status: 503 }) : undefined));
    let next = 0;
    const onChunk = (p: ChunkProgress) => {
      next = p.index + 1;
    };
    const uploadUrl = `${base}/upload/?upload_id=1&upload_token=t`;

    const error = await caught(uploadChunks({ uploadUrl, filePath: file, plan, onChunk }));
    expect(error).toBeInstanceOf(TikTokApiError);
    expect([(error as TikTokApiError).status, (error as TikTokApiError).retriable]).toEqual([503, true]);
    expect((error as Error).message).not.toContain("upload_token");
    expect(next).toBe(1);

    seen = [];
    await uploadChunks({ uploadUrl, filePath: file, plan, fromChunk: next, onChunk });
    expect(seen.map((r) => r.headers.get("content-range"))).toEqual([`bytes 5242880-10485759/${SIZE}`, `bytes 10485760-${SIZE - 1}/${SIZE}`]);
    expect(Buffer.from(seen[1].body).equals(Buffer.from(video.subarray(10 * MiB)))).toBe(true);
    expect(next).toBe(3);
  });

  test("a range TikTok does not expect (416) is a non-retriable TikTokApiError; its envelope's code is kept when it has one", async () => {
    const plan = planChunks(SIZE, 5 * MiB);
    uploadServer(() => new Response(null, { status: 416 }));
    const error = await caught(uploadChunks({ uploadUrl: `${base}/upload/`, filePath: file, plan, fromChunk: 2 }));
    expect([(error as TikTokApiError).status, (error as TikTokApiError).code, (error as TikTokApiError).retriable]).toEqual([416, "http_416", false]);

    uploadServer(() => refused(403, "upload_url_expired", "the upload url expired"));
    const expired = await caught(uploadChunks({ uploadUrl: `${base}/upload/`, filePath: file, plan }));
    expect((expired as TikTokApiError).code).toBe("upload_url_expired");
  });

  test("a file whose size differs from the plan, or a chunk index outside it, is refused before any request", async () => {
    uploadServer();
    expect(await caught(uploadChunks({ uploadUrl: `${base}/upload/`, filePath: file, plan: planChunks(SIZE + 1, 5 * MiB) }))).toBeInstanceOf(RangeError);
    expect(await caught(uploadChunks({ uploadUrl: `${base}/upload/`, filePath: file, plan: planChunks(SIZE, 5 * MiB), fromChunk: 3 }))).toBeInstanceOf(
      RangeError,
    );
    expect(seen).toHaveLength(0);
  });

  test("a dropped connection is ProviderUnavailableError", async () => {
    const plan = planChunks(SIZE, 5 * MiB);
    const error = await caught(uploadChunks({ uploadUrl: "http://127.0.0.1:1/upload/", filePath: file, plan }));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
  });
});
