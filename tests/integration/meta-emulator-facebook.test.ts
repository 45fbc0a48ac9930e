/**
 * The Meta emulator over real HTTP, Facebook Page Reels: upload_phase start / rupload (local bytes
 * resumed from an offset, a hosted file_url) / status on the emulator clock / finish (PUBLISHED
 * once only, DRAFT, SCHEDULED, refused before the upload completes), the Reels rules (3-90 s, 9:16,
 * 540 x 960), the 30-a-day limit, video_insights, the Page-token and permission rules, and the
 * faults that meet a Page. Instagram: meta-emulator-instagram.test.ts; login and tokens:
 * meta-emulator-login.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import {
  admin,
  advanceClock,
  APP_ID,
  connect,
  type Connected,
  graph,
  type GraphErrorBody,
  mp4,
  registerApp,
  rupload,
  serveFiles,
  setSettings,
  sha256,
  VERSION,
} from "./fixtures/meta-client.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let base: string;
let c: Connected;
const hosted = mp4({ durationS: 45, seed: "hosted-reel" });
const files = serveFiles({ "/reel.mp4": hosted });

/** Long enough that a check right after a finish sees the processing under way, on a busy machine. */
const DELAY = 10_000;
const DAY = 86_400_000;

beforeAll(async () => {
  emulator = await startTestEmulator();
  base = emulator.url;
});
afterAll(async () => {
  await emulator.stop();
  await files.stop();
});
beforeEach(async () => {
  await emulator.reset();
  await registerApp(base);
  c = await connect(base, "tech-daily");
  await setSettings(base, { fb_processing_delay_ms: DELAY });
}, 60_000);

async function start(token = c.pageToken) {
  const started = await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "start" }, token);
  expect(started.status).toBe(200);
  return started.body as { video_id: string; upload_url: string };
}

const finish = (videoId: string, params: Record<string, string | number> = {}) =>
  graph(base, "POST", `${c.pageId}/video_reels`, {
    upload_phase: "finish",
    video_id: videoId,
    video_state: "PUBLISHED",
    description: "How tides work",
    ...params,
  }, c.pageToken);
const status = async (videoId: string) => (await graph(base, "GET", videoId, { fields: "status" }, c.pageToken)).body.status;

/** A Reel uploaded whole and finished as PUBLISHED, published once processing is over. */
async function published(bytes = mp4({ durationS: 20 }), params: Record<string, string | number> = {}) {
  const reel = await start();
  expect((await rupload(reel.upload_url, c.pageToken, bytes)).body).toEqual({ success: true });
  expect((await finish(reel.video_id, params)).body).toEqual({ success: true });
  await advanceClock(base, DELAY + 1);
  return reel;
}

describe("upload and status", () => {
  test("start answers {video_id, upload_url} on the emulator's upload host; the status moves from upload to published", async () => {
    const bytes = mp4({ durationS: 25, padBytes: 50_000 });
    const reel = await start();
    expect(reel.video_id).toMatch(/^\d{16}$/);
    expect(reel.upload_url).toBe(`${base}/video-upload/${VERSION}/${reel.video_id}`);
    expect(await status(reel.video_id)).toEqual({
      video_status: "processing",
      uploading_phase: { status: "not_started", bytes_transferred: 0 },
      processing_phase: { status: "not_started" },
      publishing_phase: { status: "not_started" },
    });
    expect((await rupload(reel.upload_url, c.pageToken, bytes, 0, { body: bytes.subarray(0, 30_000) })).body).toEqual({ success: true });
    expect((await status(reel.video_id)).uploading_phase).toEqual({ status: "in_progress", bytes_transferred: 30_000 });
    const gap = await rupload(reel.upload_url, c.pageToken, bytes, 31_000);
    expect(gap.body.debug_info.type).toBe("ParameterValidationError");
    // Resume from 20,000: 10,000 bytes repeat and are not stored twice.
    expect((await rupload(reel.upload_url, c.pageToken, bytes, 20_000)).body).toEqual({ success: true });
    expect(await status(reel.video_id)).toMatchObject({
      video_status: "upload_complete",
      uploading_phase: { status: "complete", bytes_transferred: bytes.length },
    });

    expect((await finish(reel.video_id)).body).toEqual({ success: true });
    expect(await status(reel.video_id)).toMatchObject({
      video_status: "processing",
      processing_phase: { status: "in_progress" },
      publishing_phase: { status: "in_progress", publish_status: "not_published" },
    });
    await advanceClock(base, DELAY + 1);
    const done = await graph(base, "GET", reel.video_id, { fields: "status,description,published,post_id,length" }, c.pageToken);
    expect(done.body).toMatchObject({ description: "How tides work", published: true, post_id: `${c.pageId}_${reel.video_id}`, length: 25 });
    expect(done.body.status).toMatchObject({
      video_status: "ready",
      processing_phase: { status: "complete" },
      publishing_phase: { status: "complete", publish_status: "published" },
    });
    expect(typeof done.body.status.publishing_phase.publish_time).toBe("number");
    const posts = (await admin(base, "GET", "posts")).body.facebook;
    expect(posts).toEqual([
      expect.objectContaining({
        video_id: reel.video_id,
        page_id: c.pageId,
        description: "How tides work",
        duration_s: 25,
        privacy: "EVERYONE",
        sha256: sha256(bytes),
      }),
    ]);
  });

  test("a hosted file through the file_url header is fetched and published", async () => {
    const reel = await start();
    const answer = await fetch(reel.upload_url, { method: "POST", headers: { authorization: `OAuth ${c.pageToken}`, file_url: files.url("/reel.mp4") } });
    expect(await answer.json()).toEqual({ success: true });
    expect((await status(reel.video_id)).uploading_phase).toEqual({ status: "complete", bytes_transferred: hosted.length });
    await finish(reel.video_id);
    await advanceClock(base, DELAY + 1);
    expect((await admin(base, "GET", "posts")).body.facebook[0]).toMatchObject({ sha256: sha256(hosted), duration_s: 45 });
  });

  test("the upload host needs the Page token of the Reel's Page", async () => {
    const reel = await start();
    const bytes = mp4();
    expect((await rupload(reel.upload_url, c.userToken, bytes)).body.debug_info.type).toBe("NotAuthorizedError");
    const other = await connect(base, "other-page-owner");
    expect((await rupload(reel.upload_url, other.pageToken, bytes)).body.debug_info.type).toBe("NotAuthorizedError");
    expect((await rupload(`${base}/video-upload/${VERSION}/1299999999999999`, c.pageToken, bytes)).status).toBe(404);
    expect((await status(reel.video_id)).uploading_phase.bytes_transferred).toBe(0);
  });
});

describe("finish", () => {
  test("a finish before every byte arrived is code 6000; a repeated finish answers success and posts once", async () => {
    const bytes = mp4();
    const reel = await start();
    await rupload(reel.upload_url, c.pageToken, bytes, 0, { body: bytes.subarray(0, 1000) });
    const early = await finish(reel.video_id);
    expect(early.status).toBe(400);
    expect((early.body as GraphErrorBody).error.code).toBe(6000);
    expect((early.body as GraphErrorBody).error.message).toContain("1000 of");
    await rupload(reel.upload_url, c.pageToken, bytes, 1000);
    expect((await finish(reel.video_id)).body).toEqual({ success: true });
    expect((await finish(reel.video_id, { description: "changed" })).body).toEqual({ success: true });
    await advanceClock(base, DELAY + 1);
    expect((await finish(reel.video_id)).body).toEqual({ success: true });
    const posts = (await admin(base, "GET", "posts")).body.facebook;
    expect(posts).toHaveLength(1);
    expect(posts[0].description).toBe("How tides work");
  });

  test("Reels outside 3-90 s, not 9:16, under 540 x 960, or not a video end with the processing in error and no post", async () => {
    const cases = [
      mp4({ durationS: 2.9 }),
      mp4({ durationS: 90.5 }),
      mp4({ width: 1920, height: 1080 }),
      mp4({ width: 360, height: 640 }),
      new TextEncoder().encode("plain text, no video"),
    ];
    const ids: string[] = [];
    for (const bytes of cases) {
      const reel = await start();
      await rupload(reel.upload_url, c.pageToken, bytes);
      expect((await finish(reel.video_id)).body).toEqual({ success: true });
      ids.push(reel.video_id);
    }
    const fine = await published(mp4({ durationS: 90 }));
    const messages: string[] = [];
    for (const id of ids) {
      const s = await status(id);
      expect(s, id).toMatchObject({ video_status: "error", processing_phase: { status: "error" }, publishing_phase: { status: "error" } });
      messages.push(s.processing_phase.error.message);
    }
    expect(messages[0]).toContain("3 to 90 seconds");
    expect(messages[1]).toContain("3 to 90 seconds");
    expect(messages[2]).toContain("9 x 16");
    expect(messages[3]).toContain("540 x 960");
    expect(messages[4]).toContain("'ftyp'");
    expect((await admin(base, "GET", "posts")).body.facebook.map((p: { video_id: string }) => p.video_id)).toEqual([fine.video_id]);
    expect((await graph(base, "GET", `${ids[0]}/video_insights`, {}, c.pageToken)).body).toEqual({ data: [] });
  });

  test("DRAFT is kept unpublished; SCHEDULED publishes at scheduled_publish_time on the emulator clock", async () => {
    const draft = await start();
    await rupload(draft.upload_url, c.pageToken, mp4());
    expect((await finish(draft.video_id, { video_state: "DRAFT" })).body).toEqual({ success: true });
    const scheduled = await start();
    await rupload(scheduled.upload_url, c.pageToken, mp4());
    const clock = await (await fetch(`${base}/_emulator/clock`)).json() as { now: string };
    const at = Math.floor(Date.parse(clock.now) / 1000) + 3600;
    expect((await finish(scheduled.video_id, { video_state: "SCHEDULED", scheduled_publish_time: at - 3000 })).status).toBe(400);
    expect((await finish(scheduled.video_id, { video_state: "SCHEDULED", scheduled_publish_time: at })).body).toEqual({ success: true });
    await advanceClock(base, DELAY + 1);
    expect((await status(draft.video_id)).publishing_phase).toEqual({ status: "complete", publish_status: "draft" });
    expect((await status(scheduled.video_id)).publishing_phase).toEqual({ status: "in_progress", publish_status: "scheduled", publish_time: at });
    expect((await admin(base, "GET", "posts")).body.facebook).toEqual([]);
    await advanceClock(base, 3_600_000);
    expect((await status(scheduled.video_id)).publishing_phase).toMatchObject({ status: "complete", publish_status: "published" });
    expect((await admin(base, "GET", "posts")).body.facebook.map((p: { video_id: string }) => p.video_id)).toEqual([scheduled.video_id]);
    expect((await finish(draft.video_id, { video_state: "LIVE" })).body.error.code).toBe(100);
  });

  test("the Page's API-published Reels are limited in a moving 24 hours (30 by default): the next finish is code 9", async () => {
    expect((await admin(base, "PUT", `limits/${c.pageId}`, { limit: 2 })).body).toEqual({ account_id: c.pageId, kind: "page", limit: 2 });
    await published();
    await published();
    const third = await start();
    await rupload(third.upload_url, c.pageToken, mp4());
    const refused = await finish(third.video_id);
    expect(refused.status).toBe(400);
    expect((refused.body as GraphErrorBody).error.code).toBe(9);
    expect((await status(third.video_id)).publishing_phase).toEqual({ status: "not_started" });
    await advanceClock(base, DAY);
    expect((await finish(third.video_id)).body).toEqual({ success: true });
    expect((await admin(base, "GET", "settings")).body.fb_reels_per_24h).toBe(30);
  });
});

describe("tokens, permissions, insights and faults", () => {
  test("video_reels needs a Page token of that Page with pages_manage_posts: code 200 otherwise", async () => {
    const withUserToken = await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "start" }, c.userToken);
    expect((withUserToken.body as GraphErrorBody).error.code).toBe(200);
    const other = await connect(base, "other-page-owner");
    expect((await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "start" }, other.pageToken)).body.error.code).toBe(200);
    expect((await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "begin" }, c.pageToken)).body.error.code).toBe(100);
    await admin(base, "PUT", "grants", { app_id: APP_ID, user: "tech-daily", scopes: ["pages_show_list", "pages_read_engagement"] });
    const refused = await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "start" }, c.pageToken);
    expect((refused.body as GraphErrorBody).error).toMatchObject({ code: 200, type: "OAuthException" });
    expect((refused.body as GraphErrorBody).error.message).toContain("pages_manage_posts");
    expect((await admin(base, "GET", "uploads")).body.reels).toEqual([]);
  });

  test("video_insights: the Reels metrics, seeded and growing with age; an unknown metric is code 100", async () => {
    const reel = await published(mp4({ durationS: 40 }));
    const read = async () => {
      const answer = await graph(base, "GET", `${reel.video_id}/video_insights`, {}, c.pageToken);
      return Object.fromEntries((answer.body.data as Array<{ name: string; values: Array<{ value: unknown }> }>).map((m) => [m.name, m.values[0]!.value]));
    };
    const first = await read();
    expect(Object.keys(first)).toEqual([
      "blue_reels_play_count",
      "fb_reels_total_plays",
      "fb_reels_replay_count",
      "post_impressions_unique",
      "post_video_avg_time_watched",
      "post_video_view_time",
      "post_video_likes_by_reaction_type",
      "post_video_social_actions",
    ]);
    await advanceClock(base, 3 * DAY);
    const later = await read();
    expect(await read()).toEqual(later);
    expect(later.blue_reels_play_count as number).toBeGreaterThan(first.blue_reels_play_count as number);
    expect(later.fb_reels_total_plays).toBe((later.blue_reels_play_count as number) + (later.fb_reels_replay_count as number));
    expect(later.post_video_view_time).toBe((later.post_video_avg_time_watched as number) * (later.blue_reels_play_count as number));
    expect(Object.keys(later.post_video_likes_by_reaction_type as object)).toEqual(["REACTION_LIKE", "REACTION_LOVE", "REACTION_WOW", "REACTION_HAHA"]);
    expect(Object.keys(later.post_video_social_actions as object)).toEqual(["COMMENT", "SHARE"]);
    const one = await graph(base, "GET", `${reel.video_id}/video_insights`, { metric: "post_impressions_unique" }, c.pageToken);
    expect(one.body.data).toEqual([
      expect.objectContaining({ name: "post_impressions_unique", period: "lifetime", id: `${reel.video_id}/video_insights/post_impressions_unique/lifetime` }),
    ]);
    expect((await graph(base, "GET", `${reel.video_id}/video_insights`, { metric: "page_fans" }, c.pageToken)).body.error.code).toBe(100);
    expect((await graph(base, "GET", `${reel.video_id}/video_insights`, { period: "day" }, c.pageToken)).body.error.code).toBe(100);
  });

  test("rate_limited on a Page-token call is code 80001 with X-Business-Use-Case-Usage; page_rate_limited is code 32 with X-Page-Usage", async () => {
    await emulator.armFault({ service: "meta", kind: "rate_limited" });
    const buc = await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "start" }, c.pageToken);
    expect((buc.body as GraphErrorBody).error).toMatchObject({ code: 80001, is_transient: true });
    expect(JSON.parse(buc.headers.get("x-business-use-case-usage")!)[c.pageId][0]).toMatchObject({ type: "pages", call_count: 100 });
    await emulator.armFault({ service: "meta", kind: "page_rate_limited" });
    const page = await graph(base, "GET", c.pageId, { fields: "name" }, c.pageToken);
    expect((page.body as GraphErrorBody).error.code).toBe(32);
    expect(JSON.parse(page.headers.get("x-page-usage")!)).toMatchObject({ call_count: 100 });
    expect((await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "start" }, c.pageToken)).status).toBe(200);
  });

  test("drop_after_bytes on a Reel upload keeps the bytes before the drop; container_error puts the next completed Reel's processing in error", async () => {
    const bytes = mp4({ padBytes: 20_000 });
    const reel = await start();
    await emulator.armFault({ service: "meta", kind: "drop_after_bytes", bytes: 5000 });
    await expect(rupload(reel.upload_url, c.pageToken, bytes)).rejects.toThrow();
    expect((await status(reel.video_id)).uploading_phase.bytes_transferred).toBe(5000);
    await emulator.armFault({ service: "meta", kind: "container_error" });
    await rupload(reel.upload_url, c.pageToken, bytes, 5000);
    await finish(reel.video_id);
    await advanceClock(base, DELAY + 1);
    expect(await status(reel.video_id)).toMatchObject({
      video_status: "error",
      processing_phase: { status: "error", error: { message: "unknown upload error" } },
    });
  });

  test("http_503 on finish answers 503 code 2 and finishes nothing", async () => {
    const reel = await start();
    await rupload(reel.upload_url, c.pageToken, mp4());
    await emulator.armFault({ service: "meta", kind: "http_503" });
    const outage = await finish(reel.video_id);
    expect(outage.status).toBe(503);
    expect((outage.body as GraphErrorBody).error).toMatchObject({ code: 2, is_transient: true });
    expect((await status(reel.video_id)).publishing_phase).toEqual({ status: "not_started" });
    expect((await finish(reel.video_id)).body).toEqual({ success: true });
  });
});
