/**
 * The TikTok emulator over real HTTP, part 2: Direct Post video init (every chunk rule, privacy and
 * audit rules), the chunked upload PUTs (in order, out of order, repeated, wrong ranges), status
 * transitions on the emulator clock, rate limits, the spam cap, each `tiktok` fault, and the posts
 * listing. OAuth and creator_info: tiktok-emulator.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import {
  advanceClock,
  connect,
  fetchStatus,
  initVideo,
  listPosts,
  MB,
  postInfo,
  putChunk,
  setAudited,
  setSettings,
  sha256,
  tokenCall,
} from "./fixtures/tiktok-client.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let base: string;
let token: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  base = emulator.url;
});
afterAll(() => emulator.stop());
beforeEach(async () => {
  await emulator.reset();
  token = (await connect(base)).access_token;
}, 60_000);

/** A fresh minute for the 6-inits-a-minute limit. */
const nextMinute = () => advanceClock(base, 61_000);

describe("video init", () => {
  const layouts: Array<[string, number, number, number, boolean]> = [
    ["a small video whole", 1000, 1000, 1, true],
    ["just under 5 MB whole", 5 * MB - 1, 5 * MB - 1, 1, true],
    ["exactly 5 MB in one chunk", 5 * MB, 5 * MB, 1, true],
    ["the guide's example: 50,000,123 bytes in 10,000,000-byte chunks", 50_000_123, 10_000_000, 5, true],
    ["64 MB in one chunk", 64 * MB, 64 * MB, 1, true],
    ["200 MB in 64 MB chunks, the last one 72 MB", 200 * MB, 64 * MB, 3, true],
    ["1000 chunks of 5 MB", 1000 * 5 * MB, 5 * MB, 1000, true],
    ["a small video in two chunks", 1000, 500, 2, false],
    ["a small video with a larger chunk_size", 1000, 5 * MB, 1, false],
    ["a small video declaring two chunks", 1000, 1000, 2, false],
    ["chunks under 5 MB", 10 * MB, 4 * MB, 2, false],
    ["chunks over 64 MB", 130 * MB, 65 * MB, 2, false],
    ["a chunk count above the rounded-down quotient", 50_000_123, 10_000_000, 6, false],
    ["a chunk count below the rounded-down quotient", 50_000_123, 10_000_000, 4, false],
    ["a video over 64 MB in one chunk", 100 * MB, 64 * MB, 1, false],
    ["1001 chunks", 1001 * 5 * MB, 5 * MB, 1001, false],
    ["chunk_size larger than the video", 10 * MB, 20 * MB, 0, false],
    ["a zero video_size", 0, 0, 1, false],
    ["a fractional chunk_size", 10 * MB, 5 * MB + 0.5, 1, false],
  ];
  for (const [name, videoSize, chunkSize, count, good] of layouts) {
    test(`${good ? "accepts" : "refuses"} ${name}`, async () => {
      await nextMinute();
      const answer = await initVideo(base, token, { video_size: videoSize, chunk_size: chunkSize, total_chunk_count: count });
      if (good) {
        expect(answer.status).toBe(200);
        expect(answer.error.code).toBe("ok");
        expect(answer.data.publish_id).toStartWith("v_pub_file~v2-1.");
        const uploadUrl = new URL(answer.data.upload_url);
        expect(uploadUrl.origin).toBe(base);
        expect(uploadUrl.searchParams.get("upload_id")).toBe(answer.data.publish_id);
      } else {
        expect(answer.status).toBe(400);
        expect(answer.error.code).toBe("invalid_params");
        expect(answer.error.message.length).toBeGreaterThan(10);
        expect(answer.data as unknown).toEqual({});
      }
    });
  }

  test("refuses malformed post_info and source_info with invalid_params", async () => {
    const bodies: unknown[] = [
      { source_info: { source: "FILE_UPLOAD", video_size: 1000, chunk_size: 1000, total_chunk_count: 1 } },
      { post_info: postInfo({ privacy_level: undefined }), source_info: { source: "FILE_UPLOAD", video_size: 1000, chunk_size: 1000, total_chunk_count: 1 } },
      { post_info: postInfo({ title: "x".repeat(2201) }), source_info: { source: "FILE_UPLOAD", video_size: 1000, chunk_size: 1000, total_chunk_count: 1 } },
      { post_info: postInfo({ is_aigc: "yes" }), source_info: { source: "FILE_UPLOAD", video_size: 1000, chunk_size: 1000, total_chunk_count: 1 } },
      { post_info: postInfo(), source_info: { source: "PULL_FROM_URL", video_url: "https://example.com/v.mp4" } },
      { post_info: postInfo() },
    ];
    for (const body of bodies) {
      await nextMinute();
      const response = await fetch(`${base}/v2/post/publish/video/init/`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_params");
    }
    await nextMinute();
    expect((await initVideo(base, token, { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 }, postInfo({ title: "x".repeat(2200) }))).status).toBe(
      200,
    );
  });

  test("an unaudited client may post only SELF_ONLY; an audited one only the creator's options", async () => {
    const layout = { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };
    const unaudited = await initVideo(base, token, layout, postInfo({ privacy_level: "PUBLIC_TO_EVERYONE" }));
    expect(unaudited.status).toBe(403);
    expect(unaudited.error.code).toBe("unaudited_client_can_only_post_to_private_accounts");
    await setAudited(base, true);
    const follower = await initVideo(base, token, layout, postInfo({ privacy_level: "FOLLOWER_OF_CREATOR" }));
    expect(follower.status).toBe(403);
    expect(follower.error.code).toBe("privacy_level_option_mismatch");
    const bogus = await initVideo(base, token, layout, postInfo({ privacy_level: "PUBLIC" }));
    expect(bogus.error.code).toBe("privacy_level_option_mismatch");
    const pub = await initVideo(base, token, layout, postInfo({ privacy_level: "PUBLIC_TO_EVERYONE" }));
    expect(pub.status).toBe(200);
  });

  test("needs the video.publish scope", async () => {
    const uploadOnly = await connect(base, "drafts-only", { scope: "user.info.basic,video.upload" });
    const refused = await initVideo(base, uploadOnly.access_token, { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 });
    expect(refused.status).toBe(401);
    expect(refused.error.code).toBe("scope_not_authorized");
  });

  test("6 inits a minute per access token (refused ones count), then 429 until the minute passes", async () => {
    const layout = { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };
    expect((await initVideo(base, token, { ...layout, total_chunk_count: 2 })).status).toBe(400);
    for (let i = 0; i < 5; i += 1) expect((await initVideo(base, token, layout)).status).toBe(200);
    const limited = await initVideo(base, token, layout);
    expect(limited.status).toBe(429);
    expect(limited.error.code).toBe("rate_limit_exceeded");
    // Another token of the same user has its own window.
    const other = await tokenCall(base, { grant_type: "refresh_token", refresh_token: (await connect(base, "second-account")).refresh_token });
    expect((await initVideo(base, String(other.body.access_token), layout)).status).toBe(200);
    await advanceClock(base, 60_000);
    expect((await initVideo(base, token, layout)).status).toBe(200);
  });

  test("the creator's posts in 24 hours are capped: spam_risk_too_many_posts, lifted as the window rolls on", async () => {
    expect((await setSettings(base, { posts_per_24h: 2 })).status).toBe(200);
    const layout = { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };
    expect((await initVideo(base, token, layout)).status).toBe(200);
    expect((await initVideo(base, token, layout)).status).toBe(200);
    const capped = await initVideo(base, token, layout);
    expect(capped.status).toBe(403);
    expect(capped.error.code).toBe("spam_risk_too_many_posts");
    await advanceClock(base, 86_400_000 + 60_000);
    const fresh = await connect(base);
    expect((await initVideo(base, fresh.access_token, layout)).status).toBe(200);
    expect((await setSettings(base, { posts_per_24h: -1 })).status).toBe(400);
  });
});

describe("upload and status", () => {
  const video = new Uint8Array(randomBytes(10 * MB + 123));
  const layout = { video_size: video.length, chunk_size: 5 * MB, total_chunk_count: 2 };

  test("chunks in order: 206 then 201; repeated and out-of-order chunks and wrong ranges are handled; status runs on the emulator clock", async () => {
    await setAudited(base, true);
    const init = await initVideo(base, token, layout, postInfo({ privacy_level: "PUBLIC_TO_EVERYONE", title: "Auroras tonight" }));
    const url = init.data.upload_url;
    const publishId = init.data.publish_id;
    expect((await fetchStatus(base, token, publishId)).data).toEqual({ status: "PROCESSING_UPLOAD", publicaly_available_post_id: [], uploaded_bytes: 0 });

    const outOfOrder = await putChunk(url, video, 5 * MB, video.length - 1);
    expect(outOfOrder.status).toBe(416);
    expect(outOfOrder.headers.get("content-range")).toBe(`bytes */${video.length}`);
    expect(((await outOfOrder.json()) as { error: { message: string } }).error.message).toContain(`bytes 0-${5 * MB - 1}/${video.length}`);

    const notAChunk = await putChunk(url, video, 0, 1023);
    expect(notAChunk.status).toBe(416);
    const malformed = await putChunk(url, video, 0, 5 * MB - 1, { "content-range": `bytes 0-${5 * MB - 1}` });
    expect(malformed.status).toBe(400);
    const wrongTotal = await putChunk(url, video, 0, 5 * MB - 1, { "content-range": `bytes 0-${5 * MB - 1}/${video.length + 1}` });
    expect(wrongTotal.status).toBe(400);
    const shortBody = await fetch(url, {
      method: "PUT",
      headers: { "content-type": "video/mp4", "content-range": `bytes 0-${5 * MB - 1}/${video.length}` },
      body: video.subarray(0, 100),
    });
    expect(shortBody.status).toBe(400);
    const notVideo = await putChunk(url, video, 0, 5 * MB - 1, { "content-type": "text/plain" });
    expect(notVideo.status).toBe(400);
    expect((await fetchStatus(base, token, publishId)).data.uploaded_bytes).toBe(0);

    expect((await putChunk(url, video, 0, 5 * MB - 1)).status).toBe(206);
    const repeated = await putChunk(url, video, 0, 5 * MB - 1);
    expect(repeated.status).toBe(206);
    const halfway = await fetchStatus(base, token, publishId);
    expect(halfway.data).toMatchObject({ status: "PROCESSING_UPLOAD", uploaded_bytes: 5 * MB });

    expect((await putChunk(url, video, 5 * MB, video.length - 1)).status).toBe(201);
    expect((await putChunk(url, video, 5 * MB, video.length - 1)).status).toBe(201);
    const processing = await fetchStatus(base, token, publishId);
    expect(processing.data).toEqual({ status: "PROCESSING_DOWNLOAD", publicaly_available_post_id: [], uploaded_bytes: video.length });
    expect(await listPosts(base)).toEqual([]);

    await advanceClock(base, 5_000);
    const done = await fetchStatus(base, token, publishId);
    expect(done.data.status).toBe("PUBLISH_COMPLETE");
    expect(done.data.publicaly_available_post_id).toHaveLength(1);
    const postId = done.data.publicaly_available_post_id[0]!;
    expect(Number.isSafeInteger(postId)).toBe(true);

    const [post, ...others] = await listPosts(base);
    expect(others).toEqual([]);
    expect(post).toMatchObject({
      publish_id: publishId,
      post_id: String(postId),
      user: "sky-facts",
      privacy_level: "PUBLIC_TO_EVERYONE",
      title: "Auroras tonight",
      is_aigc: true,
      size_bytes: video.length,
      sha256: sha256(video),
      publicaly_available: true,
    });
    expect(post!.open_id.length).toBeGreaterThan(8);
  });

  test("a SELF_ONLY post completes with no public post id; the processing delay is configurable", async () => {
    expect((await setSettings(base, { processing_delay_ms: 60_000 })).status).toBe(200);
    const small = new Uint8Array(randomBytes(4096));
    const init = await initVideo(base, token, { video_size: small.length, chunk_size: small.length, total_chunk_count: 1 });
    expect((await putChunk(init.data.upload_url, small, 0, small.length - 1)).status).toBe(201);
    await advanceClock(base, 59_000);
    expect((await fetchStatus(base, token, init.data.publish_id)).data.status).toBe("PROCESSING_DOWNLOAD");
    await advanceClock(base, 2_000);
    const done = await fetchStatus(base, token, init.data.publish_id);
    expect(done.data).toEqual({ status: "PUBLISH_COMPLETE", publicaly_available_post_id: [], uploaded_bytes: small.length });
    const [post] = await listPosts(base);
    expect(post).toMatchObject({ privacy_level: "SELF_ONLY", publicaly_available: false, sha256: sha256(small) });
    expect(post!.post_id).toMatch(/^\d{16}$/);
    expect(Number(post!.post_id)).toBeLessThan(2 ** 53);
  });

  test("status: another user's publish_id is invalid_params; 30 calls a minute per token, then 429", async () => {
    const init = await initVideo(base, token, { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 });
    const stranger = await connect(base, "someone-else");
    const foreign = await fetchStatus(base, stranger.access_token, init.data.publish_id);
    expect(foreign.status).toBe(400);
    expect(foreign.error.code).toBe("invalid_params");
    for (let i = 0; i < 30; i += 1) expect((await fetchStatus(base, token, init.data.publish_id)).status).toBe(200);
    const limited = await fetchStatus(base, token, init.data.publish_id);
    expect(limited.status).toBe(429);
    expect(limited.error.code).toBe("rate_limit_exceeded");
    await advanceClock(base, 61_000);
    expect((await fetchStatus(base, token, init.data.publish_id)).status).toBe(200);
  });

  test("an unknown upload URL is 404", async () => {
    const response = await putChunk(`${base}/tiktok-upload/video/?upload_id=v_pub_file~v2-1.nothing`, new Uint8Array(10), 0, 9);
    expect(response.status).toBe(404);
  });
});

describe("faults", () => {
  const layout = { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };

  test("rate_limited, http_503 and internal_error answer once, then the API works again", async () => {
    await emulator.armFault({ service: "tiktok", kind: "rate_limited" });
    const limited = await initVideo(base, token, layout);
    expect(limited.status).toBe(429);
    expect(limited.error.code).toBe("rate_limit_exceeded");
    await emulator.armFault({ service: "tiktok", kind: "http_503" });
    const unavailable = await initVideo(base, token, layout);
    expect(unavailable.status).toBe(503);
    expect(unavailable.error.code).toBe("internal_error");
    await emulator.armFault({ service: "tiktok", kind: "internal_error" });
    expect((await initVideo(base, token, layout)).status).toBe(500);
    expect(await (await fetch(`${base}/_emulator/tiktok/publishes`)).json()).toEqual([]);
    expect((await initVideo(base, token, layout)).status).toBe(200);
  });

  test("http_503 on an upload PUT stores nothing; the chunk sent again completes the upload", async () => {
    const bytes = new Uint8Array(randomBytes(1000));
    const init = await initVideo(base, token, layout);
    await emulator.armFault({ service: "tiktok", kind: "http_503" });
    expect((await putChunk(init.data.upload_url, bytes, 0, 999)).status).toBe(503);
    expect((await fetchStatus(base, token, init.data.publish_id)).data.uploaded_bytes).toBe(0);
    expect((await putChunk(init.data.upload_url, bytes, 0, 999)).status).toBe(201);
  });

  test("access_token_invalid refuses a valid token once; spam_risk_too_many_posts refuses one init", async () => {
    await emulator.armFault({ service: "tiktok", kind: "access_token_invalid" });
    const refused = await initVideo(base, token, layout);
    expect(refused.status).toBe(401);
    expect(refused.error.code).toBe("access_token_invalid");
    await emulator.armFault({ service: "tiktok", kind: "spam_risk_too_many_posts" });
    const spam = await initVideo(base, token, layout);
    expect(spam.status).toBe(403);
    expect(spam.error.code).toBe("spam_risk_too_many_posts");
    expect((await initVideo(base, token, layout)).status).toBe(200);
  });

  test("fail_processing ends the publish FAILED with a fail_reason, and it is not listed as a post", async () => {
    const bytes = new Uint8Array(randomBytes(1000));
    const init = await initVideo(base, token, layout);
    await emulator.armFault({ service: "tiktok", kind: "fail_processing" });
    expect((await putChunk(init.data.upload_url, bytes, 0, 999)).status).toBe(201);
    expect((await fetchStatus(base, token, init.data.publish_id)).data.status).toBe("PROCESSING_DOWNLOAD");
    await advanceClock(base, 5_000);
    const failed = await fetchStatus(base, token, init.data.publish_id);
    expect(failed.data).toEqual({ status: "FAILED", fail_reason: "file_format_check_failed", publicaly_available_post_id: [], uploaded_bytes: 1000 });
    expect(await listPosts(base)).toEqual([]);
  });

  test("slow delays the call by delay_ms and then answers normally", async () => {
    await emulator.armFault({ service: "tiktok", kind: "slow", delay_ms: 400 });
    const started = performance.now();
    const answer = await initVideo(base, token, layout);
    expect(performance.now() - started).toBeGreaterThanOrEqual(380);
    expect(answer.status).toBe(200);
  });
});
