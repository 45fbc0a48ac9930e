/**
 * The TikTok emulator over real HTTP, part 3: the Display API's video/query after real Direct Posts
 * (fields, the 20-id limit, the video.list scope, whose posts are answered, figures growing on the
 * emulator clock and pinned by the admin route, the 600-a-minute limit, `tiktok` faults), and the
 * engine's client for it (shared/providers/tiktok/video-query.ts) against the emulator.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ProviderError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { TikTokApiError } from "../../shared/providers/tiktok/content-posting.ts";
import { classifyTikTokRefusal } from "../../shared/providers/tiktok/refusals.ts";
import { MAX_VIDEO_IDS_PER_QUERY, queryVideoFigures } from "../../shared/providers/tiktok/video-query.ts";
import { postIdFor } from "../../emulators/tiktok/store.ts";
import { freePort, startTestEmulator } from "./fixtures/emulator-harness.ts";
import {
  advanceClock,
  connect,
  directPost,
  fetchStatus,
  initVideo,
  listPosts,
  postFigures,
  postInfo,
  putChunk,
  type QueriedVideo,
  queryVideos,
  SCOPES_WITH_VIDEO_LIST,
  setAudited,
  setSettings,
  tokenCall,
} from "./fixtures/tiktok-client.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let base: string;
let grant: Awaited<ReturnType<typeof connect>>;
let token: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  base = emulator.url;
});
afterAll(() => emulator.stop());
beforeEach(async () => {
  await emulator.reset();
  grant = await connect(base, "sky-facts", { scope: SCOPES_WITH_VIDEO_LIST });
  token = grant.access_token;
}, 60_000);

/** Moves the emulator clock on; access tokens live 24 hours on it, so the grant's token is refreshed. */
async function later(ms: number): Promise<void> {
  await advanceClock(base, ms);
  const refreshed = await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token });
  if (refreshed.status !== 200) throw new Error(`refresh refused: ${JSON.stringify(refreshed.body)}`);
  token = String(refreshed.body.access_token);
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** An id no post has (post ids are 16 digits from 1 000 000 000 000 000). */
const unknownId = (n: number) => String(900_000_000_000_000 + n);

describe("video/query", () => {
  test("answers a public Direct Post by the id status fetch reported, with the asked fields, zero counts at creation", async () => {
    await setAudited(base, true);
    const { publishId, postId } = await directPost(base, token, postInfo({ privacy_level: "PUBLIC_TO_EVERYONE", title: "Auroras tonight" }));
    const status = await fetchStatus(base, token, publishId);
    expect(status.data.status).toBe("PUBLISH_COMPLETE");
    expect(status.data.publicaly_available_post_id).toEqual([Number(postId)]);
    const [listed] = await listPosts(base);

    const answer = await queryVideos(base, token, [String(status.data.publicaly_available_post_id[0])]);
    expect(answer.status).toBe(200);
    expect(answer.error).toMatchObject({ code: "ok", message: "" });
    expect(answer.error.log_id).toMatch(/^\d{14}[0-9A-F]{18}$/);
    expect(answer.data.has_more).toBe(false);
    expect(answer.data.cursor).toBe(0);
    expect(answer.data.videos).toHaveLength(1);
    const video = answer.data.videos[0] as QueriedVideo;
    expect(Object.keys(video).sort()).toEqual(["comment_count", "create_time", "duration", "id", "like_count", "share_count", "title", "view_count"]);
    expect(video).toMatchObject({ id: postId, title: "Auroras tonight", view_count: 0, like_count: 0, comment_count: 0, share_count: 0 });
    expect(video.create_time).toBe(Math.floor(Date.parse(listed!.completed_at) / 1000));
    // Random bytes are no video ffprobe reads: a seeded 15..60 s.
    expect(video.duration).toBeGreaterThanOrEqual(15);
    expect(video.duration).toBeLessThanOrEqual(60);
  });

  test("each video carries only the asked fields; unknown names are ignored; no known field is invalid_params", async () => {
    const { postId } = await directPost(base, token);
    const two = await queryVideos(base, token, [postId], "view_count,id");
    expect(two.data.videos).toEqual([{ id: postId, view_count: 0 }]);
    const withUnknown = await queryVideos(base, token, [postId], "id,title,fps");
    expect(withUnknown.data.videos).toEqual([{ id: postId, title: "How auroras form #science" }]);
    const display = await queryVideos(base, token, [postId], "share_url,embed_link,width,height,cover_image_url,video_description,embed_html");
    expect(display.data.videos[0]).toMatchObject({
      share_url: `https://www.tiktok.com/@sky-facts/video/${postId}`,
      width: 1080,
      height: 1920,
      video_description: "How auroras form #science",
    });
    expect(String((display.data.videos[0] as unknown as Record<string, unknown>).embed_html)).toContain(`data-video-id="${postId}"`);
    for (const fields of [null, "", "fps,bitrate"]) {
      const refused = await queryVideos(base, token, [postId], fields);
      expect(refused.status, String(fields)).toBe(400);
      expect(refused.error.code).toBe("invalid_params");
      expect(refused.error.message).toContain("fields");
    }
  });

  test("a SELF_ONLY post is the user's and is answered; unknown, processing and FAILED ones are absent; asked order, each once", async () => {
    const first = await directPost(base, token);
    const second = await directPost(base, token, postInfo({ title: "Second" }));
    expect((await fetchStatus(base, token, first.publishId)).data.publicaly_available_post_id).toEqual([]);
    // A publish whose last byte arrived has a post id, but is processing; another ends FAILED.
    const bytes = new Uint8Array(1000);
    const layout = { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };
    const pending = await initVideo(base, token, layout);
    expect((await putChunk(pending.data.upload_url, bytes, 0, 999)).status).toBe(201);
    expect((await fetchStatus(base, token, pending.data.publish_id)).data.status).toBe("PROCESSING_DOWNLOAD");
    await emulator.armFault({ service: "tiktok", kind: "fail_processing" });
    const failed = await initVideo(base, token, layout);
    expect((await putChunk(failed.data.upload_url, bytes, 0, 999)).status).toBe(201);
    // Their post ids exist already (derived from the publish id, as the emulator's store does).
    const [pendingId, failedId] = [postIdFor(pending.data.publish_id), postIdFor(failed.data.publish_id)];
    expect((await listPosts(base)).map((p) => p.post_id)).toEqual([first.postId, second.postId]);

    const asked = [second.postId, unknownId(1), pendingId, first.postId, failedId, second.postId, "not-a-number"];
    const answer = await queryVideos(base, token, asked, "id,title");
    expect(answer.status).toBe(200);
    expect(answer.data.videos).toEqual([{ id: second.postId, title: "Second" }, { id: first.postId, title: "How auroras form #science" }]);

    // Once the processing delay is over, the pending post is answered; the FAILED one never.
    await advanceClock(base, 5_000);
    expect((await fetchStatus(base, token, failed.data.publish_id)).data.status).toBe("FAILED");
    expect((await queryVideos(base, token, [failedId, pendingId], "id")).data.videos).toEqual([{ id: pendingId }]);
  });

  test("at most 20 ids a call; filters.video_ids must be a list of 1..20 strings", async () => {
    const { postId } = await directPost(base, token);
    const twenty = [postId, ...Array.from({ length: 19 }, (_, i) => unknownId(i))];
    const ok = await queryVideos(base, token, twenty, "id");
    expect(ok.status).toBe(200);
    expect(ok.data.videos).toEqual([{ id: postId }]);

    const refusals: Array<[unknown, string]> = [
      [[...twenty, unknownId(99)], "at most 20"],
      [[], "1 to 20"],
      [[Number(postId)], "strings"],
      ["just-one", "1 to 20"],
    ];
    for (const [ids, says] of refusals) {
      const refused = await queryVideos(base, token, ids, "id");
      expect(refused.status, JSON.stringify(ids).slice(0, 60)).toBe(400);
      expect(refused.error.code).toBe("invalid_params");
      expect(refused.error.message).toContain(says);
      expect(refused.data as unknown).toEqual({});
    }
    const noFilters = await fetch(`${base}/v2/video/query/?fields=id`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ video_ids: [postId] }),
    });
    expect(noFilters.status).toBe(400);
    expect(((await noFilters.json()) as { error: { code: string } }).error.code).toBe("invalid_params");
  });

  test("needs a live bearer token whose grant holds video.list; the consent grants video.list when asked", async () => {
    const { postId } = await directPost(base, token);
    const publishOnly = await connect(base, "sky-facts", { scope: "user.info.basic,video.publish,video.upload", clientKey: "publish-only-client" });
    expect(publishOnly.scope).not.toContain("video.list");
    const refused = await queryVideos(base, publishOnly.access_token, [postId]);
    expect(refused.status).toBe(401);
    expect(refused.error.code).toBe("scope_not_authorized");
    expect(refused.error.message).toContain("video.list");

    const none = await fetch(`${base}/v2/video/query/?fields=id`, { method: "POST", body: JSON.stringify({ filters: { video_ids: [postId] } }) });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("access_token_invalid");

    const listOnly = await connect(base, "sky-facts", { scope: "video.list", clientKey: "analytics-client" });
    expect(listOnly.scope).toBe("video.list");
    // The same user's posts, whichever client posted them.
    expect((await queryVideos(base, listOnly.access_token, [postId], "id")).data.videos).toEqual([{ id: postId }]);
  });

  test("another user's post ids are simply absent", async () => {
    const mine = await directPost(base, token);
    const other = await connect(base, "someone-else", { scope: SCOPES_WITH_VIDEO_LIST });
    const theirs = await directPost(base, other.access_token, postInfo({ title: "Theirs" }));
    const answer = await queryVideos(base, other.access_token, [mine.postId, theirs.postId], "id,title");
    expect(answer.status).toBe(200);
    expect(answer.data.videos).toEqual([{ id: theirs.postId, title: "Theirs" }]);
    expect((await queryVideos(base, token, [theirs.postId], "id")).data.videos).toEqual([]);
  });

  test("the counts grow with the post's age on the emulator clock and are the same for the same seed", async () => {
    const { postId } = await directPost(base, token);
    const at = async () => (await queryVideos(base, token, [postId])).data.videos[0] as QueriedVideo;
    const seen = [await at()];
    for (const step of [HOUR_MS, DAY_MS, 2 * DAY_MS, 7 * DAY_MS]) {
      await later(step);
      seen.push(await at());
    }
    expect(seen[0]).toMatchObject({ view_count: 0, like_count: 0, comment_count: 0, share_count: 0 });
    expect(seen[1]!.view_count).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i += 1) {
      const [before, now] = [seen[i - 1]!, seen[i]!];
      expect(now.view_count).toBeGreaterThan(before.view_count);
      for (const count of ["like_count", "comment_count", "share_count"] as const) {
        expect(now[count]).toBeGreaterThanOrEqual(before[count]);
        expect(now[count]).toBeLessThan(Math.max(1, now.view_count));
      }
      expect(now.create_time).toBe(seen[0]!.create_time);
      expect(now.duration).toBe(seen[0]!.duration);
    }
    // After ten days the views have nearly stopped growing, and most posts have some likes by then.
    expect(seen[4]!.like_count).toBeGreaterThan(0);

    const last = seen[4]!;
    expect((await setSettings(base, { figures_seed: "another-seed" })).status).toBe(200);
    expect((await at()).view_count).not.toBe(last.view_count);
    expect((await setSettings(base, { figures_seed: "md-ame" })).status).toBe(200);
    expect(await at()).toEqual(last);
    expect((await setSettings(base, { figures_seed: "" })).status).toBe(400);
  });

  test("the admin route pins a post's figures exactly; null goes back to the seeded curve; bad bodies are 400", async () => {
    const { postId, publishId } = await directPost(base, token);
    const before = await postFigures(base, postId);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ post_id: postId, publish_id: publishId, user: "sky-facts", view_count: 0, pinned: {} });

    const pinned = await postFigures(base, postId, { view_count: 12_345, like_count: 678, duration: 42 });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ view_count: 12_345, like_count: 678, duration: 42, pinned: { view_count: 12_345, like_count: 678, duration: 42 } });
    await later(3 * DAY_MS);
    const video = (await queryVideos(base, token, [postId])).data.videos[0] as QueriedVideo;
    expect(video).toMatchObject({ id: postId, view_count: 12_345, like_count: 678, duration: 42 });
    // Unpinned counts follow the pinned views.
    expect(video.comment_count).toBeLessThan(12_345 * 0.006);
    expect(video.share_count).toBeLessThan(12_345 * 0.011);
    expect(video.comment_count + video.share_count).toBeGreaterThan(0);
    expect((await postFigures(base, postId)).body.pinned).toEqual({ view_count: 12_345, like_count: 678, duration: 42 });

    const unpinned = await postFigures(base, postId, { view_count: null, like_count: null });
    expect(unpinned.body.pinned).toEqual({ duration: 42 });
    const seeded = (await queryVideos(base, token, [postId])).data.videos[0] as QueriedVideo;
    expect(seeded.view_count).not.toBe(12_345);
    expect(seeded.view_count).toBeGreaterThan(0);

    const bad: Array<Record<string, unknown>> = [{}, { view_count: -1 }, { like_count: 2 ** 31 }, { share_count: "5" }, { duration: 0 }, { views: 5 }, {
      comment_count: 1.5,
    }];
    for (const body of bad) {
      const refused = await postFigures(base, postId, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(String(refused.body.error).length).toBeGreaterThan(10);
    }
    expect((await postFigures(base, unknownId(7))).status).toBe(404);
    expect((await postFigures(base, "abc")).status).toBe(400);
    const notJson = await fetch(`${base}/_emulator/tiktok/posts/${postId}/figures`, { method: "PUT", body: "{" });
    expect(notJson.status).toBe(400);
    const tooLarge = await fetch(`${base}/_emulator/tiktok/posts/${postId}/figures`, {
      method: "PUT",
      body: JSON.stringify({ view_count: 1, x: "y".repeat(20_000) }),
    });
    expect(tooLarge.status).toBe(413);
    expect((await fetch(`${base}/_emulator/tiktok/posts/${postId}/figures`, { method: "POST", body: "{}" })).status).toBe(405);
  });

  test("600 calls a minute per client and user (every token of the grant), then 429 until the window slides", async () => {
    const ids = [unknownId(0)];
    for (let i = 0; i < 600; i += 1) {
      const answer = await queryVideos(base, token, ids, "id");
      if (answer.status !== 200) throw new Error(`call ${i + 1} answered ${answer.status} ${answer.error.code}`);
    }
    const limited = await queryVideos(base, token, ids, "id");
    expect(limited.status).toBe(429);
    expect(limited.error.code).toBe("rate_limit_exceeded");
    // A refreshed token of the same grant shares the window; another user has their own.
    const refreshed = await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token });
    expect((await queryVideos(base, String(refreshed.body.access_token), ids, "id")).status).toBe(429);
    const other = await connect(base, "someone-else", { scope: SCOPES_WITH_VIDEO_LIST });
    expect((await queryVideos(base, other.access_token, ids, "id")).status).toBe(200);
    await advanceClock(base, 60_000);
    expect((await queryVideos(base, token, ids, "id")).status).toBe(200);
  }, 120_000);

  test("tiktok faults hit video/query once each, then it answers again", async () => {
    const { postId } = await directPost(base, token);
    const expected: Array<[string, number, string]> = [
      ["rate_limited", 429, "rate_limit_exceeded"],
      ["http_503", 503, "internal_error"],
      ["internal_error", 500, "internal_error"],
      ["access_token_invalid", 401, "access_token_invalid"],
    ];
    for (const [kind, status, code] of expected) {
      await emulator.armFault({ service: "tiktok", kind });
      const failed = await queryVideos(base, token, [postId], "id");
      expect(failed.status, kind).toBe(status);
      expect(failed.error.code).toBe(code);
    }
    expect((await queryVideos(base, token, [postId], "id")).data.videos).toEqual([{ id: postId }]);
  });
});

describe("queryVideoFigures, the engine's client", () => {
  test("asks 20 ids a call and returns the user's posts typed, absent ones left out", async () => {
    await setAudited(base, true);
    const first = await directPost(base, token, postInfo({ privacy_level: "PUBLIC_TO_EVERYONE", title: "First" }));
    const second = await directPost(base, token, postInfo({ title: "Second" }));
    await postFigures(base, first.postId, { view_count: 5_000, like_count: 400, comment_count: 30, share_count: 12, duration: 37 });
    await advanceClock(base, HOUR_MS);
    const created = Math.floor(Date.parse((await listPosts(base))[0]!.completed_at) / 1000) * 1000;

    const ids = [first.postId, ...Array.from({ length: 42 }, (_, i) => unknownId(i)), second.postId, first.postId];
    const callsBefore = emulator.logs.filter((l) => l.path === "/v2/video/query/").length;
    const figures = await queryVideoFigures({ accessToken: token, baseUrl: base, postIds: ids });
    const calls = emulator.logs.filter((l) => l.path === "/v2/video/query/").length - callsBefore;
    expect(calls).toBe(Math.ceil(44 / MAX_VIDEO_IDS_PER_QUERY));

    expect(figures.map((f) => f.id)).toEqual([first.postId, second.postId]);
    expect(figures[0]).toEqual({
      id: first.postId,
      createTime: new Date(created),
      title: "First",
      durationS: 37,
      viewCount: 5_000,
      likeCount: 400,
      commentCount: 30,
      shareCount: 12,
    });
    expect(figures[1]!.title).toBe("Second");
    expect(figures[1]!.viewCount).toBeGreaterThan(0);
    expect(figures[1]!.createTime).toBeInstanceOf(Date);

    expect(await queryVideoFigures({ accessToken: token, baseUrl: base, postIds: [] })).toEqual([]);
    const before = emulator.logs.length;
    await expect(queryVideoFigures({ accessToken: token, baseUrl: base, postIds: [first.postId, "12ab"] })).rejects.toThrow(RangeError);
    expect(emulator.logs.length).toBe(before);
  });

  test("19-digit post ids keep every digit, as strings or bare numbers, and an answer outside the envelope is an outage", async () => {
    // TikTok's own ids are int64 (the emulator's stay below 2^53), so a stand-in answers them.
    const answers: string[] = [
      `{"data":{"videos":[{"id":"7077642457847991554","create_time":1700000000,"duration":31,"view_count":12,"like_count":3,"comment_count":1,"share_count":0}],"cursor":0,"has_more":false},"error":{"code":"ok","message":"","log_id":"x"}}`,
      `{"data":{"videos":[{"id": 7080217258529737986 ,"create_time":1700000000,"duration":31,"view_count":12,"like_count":3,"comment_count":1,"share_count":0}]},"error":{"code":"ok","message":"","log_id":"x"}}`,
      `<html>bad gateway</html>`,
    ];
    const asked: unknown[] = [];
    const stand = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        asked.push({ url: new URL(req.url).pathname + new URL(req.url).search, body: await req.json() });
        const text = answers.shift()!;
        return new Response(text, { status: text.startsWith("<") ? 502 : 200, headers: { "content-type": "application/json" } });
      },
    });
    try {
      const baseUrl = `http://127.0.0.1:${stand.port}`;
      const quoted = await queryVideoFigures({ accessToken: "act.x", baseUrl, postIds: ["7077642457847991554"] });
      expect(quoted.map((f) => [f.id, f.createTime.toISOString(), f.title])).toEqual([["7077642457847991554", "2023-11-14T22:13:20.000Z", null]]);
      const bare = await queryVideoFigures({ accessToken: "act.x", baseUrl, postIds: ["7080217258529737986"] });
      expect(bare.map((f) => f.id)).toEqual(["7080217258529737986"]);
      expect(asked[0]).toEqual({
        url: "/v2/video/query/?fields=id,create_time,title,duration,view_count,like_count,comment_count,share_count",
        body: { filters: { video_ids: ["7077642457847991554"] } },
      });
      const outage = await queryVideoFigures({ accessToken: "act.x", baseUrl, postIds: ["1"] }).catch((e) => e);
      expect(outage).toBeInstanceOf(ProviderUnavailableError);
      expect(outage).toMatchObject({ status: 502, retriable: true });
    } finally {
      await stand.stop(true);
    }
  });

  test("refusals are ProviderErrors with TikTok's code: a missing scope is final, rate limits and outages retriable", async () => {
    const { postId } = await directPost(base, token);
    const publishOnly = await connect(base, "sky-facts", { clientKey: "publish-only-client" });
    const refusal = await queryVideoFigures({ accessToken: publishOnly.access_token, baseUrl: base, postIds: [postId] }).catch((e) => e);
    expect(refusal).toBeInstanceOf(TikTokApiError);
    expect(refusal).toMatchObject({ code: "scope_not_authorized", status: 401, retriable: false, apiReason: "scope_not_authorized" });
    expect(classifyTikTokRefusal(refusal)?.kind).toBe("needs_reconnect");

    for (const [kind, status, code] of [["rate_limited", 429, "rate_limit_exceeded"], ["http_503", 503, "internal_error"]] as const) {
      await emulator.armFault({ service: "tiktok", kind });
      const error = await queryVideoFigures({ accessToken: token, baseUrl: base, postIds: [postId] }).catch((e) => e);
      expect(error).toBeInstanceOf(TikTokApiError);
      expect(error).toMatchObject({ code, status, retriable: true });
    }
    const limited = await (async () => {
      await emulator.armFault({ service: "tiktok", kind: "rate_limited" });
      return await queryVideoFigures({ accessToken: token, baseUrl: base, postIds: [postId] }).catch((e) => e);
    })();
    expect(classifyTikTokRefusal(limited, new Date(0))).toEqual({
      kind: "try_later",
      limit: "rate",
      reason: "rate_limit_exceeded",
      notBefore: new Date(60_000),
    });

    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await queryVideoFigures({ accessToken: token, baseUrl: closed, postIds: [postId] }).catch((e) => e);
    expect(unreachable).toBeInstanceOf(ProviderUnavailableError);
    expect((unreachable as ProviderError).retriable).toBe(true);
    expect(String((unreachable as Error).message)).not.toContain(token);

    // After the faults, the same call answers.
    expect((await queryVideoFigures({ accessToken: token, baseUrl: base, postIds: [postId] })).map((f) => f.id)).toEqual([postId]);
  });
});
