/**
 * The Meta emulator over real HTTP, Instagram Reels publishing, part 2: media_publish (not ready,
 * expired, error, published once only, the 24-hour publishing limit and content_publishing_limit,
 * permissions), the published media, insights and Graph-call faults. Containers and the rupload
 * host: meta-emulator-instagram.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import {
  admin,
  advanceClock,
  connect,
  type Connected,
  containerStatus,
  createResumable,
  finishedContainer,
  graph,
  type GraphErrorBody,
  mp4,
  publishContainer,
  registerApp,
  rupload,
  setSettings,
} from "./fixtures/meta-client.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let base: string;
let c: Connected;

beforeAll(async () => {
  emulator = await startTestEmulator();
  base = emulator.url;
});
afterAll(() => emulator.stop());
beforeEach(async () => {
  await emulator.reset();
  await registerApp(base);
  c = await connect(base);
  await setSettings(base, { ig_processing_delay_ms: DELAY });
}, 60_000);

const DAY = 86_400_000;
/** The processing delay the tests set: long enough that a check right after an upload sees IN_PROGRESS on a busy machine. */
const DELAY = 10_000;

const resumable = (params: Record<string, string> = {}) => createResumable(base, c, params);
const status = (id: string) => containerStatus(base, c, id);
const publish = (id: string) => publishContainer(base, c, id);
/** A container whose bytes arrived and were processed: FINISHED. */
const finished = (bytes = mp4(), params: Record<string, string> = {}) => finishedContainer(base, c, DELAY, bytes, params);

describe("media_publish", () => {
  test("a container not FINISHED is refused with 9007/2207027; the processing delay is settable", async () => {
    await setSettings(base, { ig_processing_delay_ms: 60_000 });
    const container = await resumable();
    const noBytes = await publish(container.id);
    expect(noBytes.status).toBe(400);
    expect((noBytes.body as GraphErrorBody).error).toMatchObject({ code: 9007, error_subcode: 2207027, message: "Media ID is not available" });
    await rupload(container.uri, c.userToken, mp4());
    expect((await publish(container.id)).body.error.code).toBe(9007);
    await advanceClock(base, 50_000);
    expect((await status(container.id)).status_code).toBe("IN_PROGRESS");
    await advanceClock(base, 10_001);
    expect((await publish(container.id)).status).toBe(200);

    expect((await setSettings(base, { ig_processing_delay_ms: 0 })).status).toBe(200);
    const instant = await resumable();
    await rupload(instant.uri, c.userToken, mp4());
    expect((await status(instant.id)).status_code).toBe("FINISHED");
    expect((await setSettings(base, { ig_processing_delay_ms: -1 })).status).toBe(400);
  });

  test("publishing the same container twice creates one post: the second call is refused and the container says PUBLISHED", async () => {
    const container = await finished(mp4(), { caption: "Once #only", cover_url: "https://cdn.example.com/cover.jpg" });
    const first = await publish(container.id);
    expect(first.status).toBe(200);
    expect(first.body.id).toMatch(/^\d{17}$/);
    const second = await publish(container.id);
    expect(second.status).toBe(400);
    expect((second.body as GraphErrorBody).error.code).toBe(100);
    expect((await status(container.id)).status_code).toBe("PUBLISHED");
    const posts = (await admin(base, "GET", "posts")).body.instagram;
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      media_id: first.body.id,
      caption: "Once #only",
      cover_url: "https://cdn.example.com/cover.jpg",
      state: "PUBLISHED",
      share_to_feed: true,
    });
  });

  test("another account's container, an unknown creation_id and a missing one are code 100", async () => {
    const other = await connect(base, "another-creator");
    const theirs = await graph(base, "POST", `${other.igUserId}/media`, { media_type: "REELS", upload_type: "resumable" }, other.userToken);
    const cases: Array<Record<string, string>> = [{ creation_id: theirs.body.id }, { creation_id: "17890000000000001" }, {}];
    for (const params of cases) {
      const answer = await graph(base, "POST", `${c.igUserId}/media_publish`, params, c.userToken);
      expect((answer.body as GraphErrorBody).error.code, JSON.stringify(params)).toBe(100);
    }
    // Publishing to someone else's account is an object this token cannot see.
    const foreign = await graph(base, "POST", `${other.igUserId}/media_publish`, { creation_id: theirs.body.id }, c.userToken);
    expect((foreign.body as GraphErrorBody).error).toMatchObject({ code: 100, error_subcode: 33, type: "GraphMethodException" });
  });

  test("the publishing limit (50 by default, set per account) refuses with 9/2207042 in a moving 24 hours; content_publishing_limit reports it", async () => {
    const limit = await graph(base, "GET", `${c.igUserId}/content_publishing_limit`, { fields: "config,quota_usage" }, c.userToken);
    expect(limit.body).toEqual({ data: [{ config: { quota_total: 50, quota_duration: 86400 }, quota_usage: 0 }] });
    expect((await admin(base, "PUT", `limits/${c.igUserId}`, { limit: 2 })).body).toMatchObject({ kind: "instagram", limit: 2 });
    const containers = [await finished(), await finished(), await finished()];
    expect((await publish(containers[0]!.id)).status).toBe(200);
    await advanceClock(base, 3_600_000);
    expect((await publish(containers[1]!.id)).status).toBe(200);
    const refused = await publish(containers[2]!.id);
    expect(refused.status).toBe(400);
    expect((refused.body as GraphErrorBody).error).toMatchObject({ code: 9, error_subcode: 2207042 });
    const usage = await graph(base, "GET", `${c.igUserId}/content_publishing_limit`, {}, c.userToken);
    expect(usage.body).toEqual({ data: [{ quota_usage: 2 }] });
    const since = Math.floor((Date.now() + (await (await fetch(`${base}/_emulator/clock`)).json() as { offset_ms: number }).offset_ms) / 1000) - 1800;
    expect((await graph(base, "GET", `${c.igUserId}/content_publishing_limit`, { since }, c.userToken)).body).toEqual({ data: [{ quota_usage: 1 }] });
    expect((await graph(base, "GET", `${c.igUserId}/content_publishing_limit`, { since: since - 2 * 86400 }, c.userToken)).status).toBe(400);
    // The first post leaves the moving window 24 hours after it was published; the second is still in it.
    await advanceClock(base, DAY - 3_600_000);
    expect((await publish((await finished()).id)).status).toBe(200);
    expect((await publish((await finished()).id)).body.error).toMatchObject({ code: 9, error_subcode: 2207042 });
    expect((await graph(base, "GET", `${c.igUserId}/content_publishing_limit`, { fields: "rate_limit_settings" }, c.userToken)).body).toEqual({
      data: [{ config: { quota_total: 2, quota_duration: 86400 } }],
    });
    expect((await admin(base, "PUT", `limits/${c.igUserId}`, { limit: null })).body.limit).toBe(50);
    expect((await admin(base, "PUT", "limits/999", { limit: 3 })).status).toBe(404);
    expect((await admin(base, "PUT", `limits/${c.igUserId}`, { limit: "many" })).status).toBe(400);
  });

  test("publishing needs instagram_content_publish: code 10 without it", async () => {
    const container = await finished();
    await admin(base, "PUT", "grants", { app_id: "1234567890123", user: "sky-facts", scopes: ["instagram_basic", "pages_show_list"] });
    const refused = await publish(container.id);
    expect(refused.status).toBe(400);
    expect((refused.body as GraphErrorBody).error).toMatchObject({ code: 10, type: "OAuthException" });
    expect((refused.body as GraphErrorBody).error.message).toContain("instagram_content_publish");
    expect((await status(container.id)).status_code).toBe("FINISHED");
  });
});

describe("media, insights and faults", () => {
  test("the published media reads like Graph's IG Media; the account lists it", async () => {
    const container = await finished(mp4({ durationS: 30 }), { caption: "Why the sky is blue" });
    const id = (await publish(container.id)).body.id;
    const media = await graph(
      base,
      "GET",
      id,
      { fields: "id,permalink,media_type,media_product_type,caption,timestamp,shortcode,username,is_shared_to_feed" },
      c.userToken,
    );
    expect(media.body).toMatchObject({
      id,
      media_type: "VIDEO",
      media_product_type: "REELS",
      caption: "Why the sky is blue",
      username: "sky_facts",
      is_shared_to_feed: true,
    });
    expect(media.body.permalink).toBe(`https://www.instagram.com/reel/${media.body.shortcode}/`);
    expect(media.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/);
    expect((await graph(base, "GET", id, {}, c.userToken)).body).toEqual({ id });
    expect((await graph(base, "GET", `${c.igUserId}/media`, { fields: "id,caption" }, c.userToken)).body).toEqual({
      data: [{ id, caption: "Why the sky is blue" }],
    });
    expect((await graph(base, "GET", c.igUserId, { fields: "username,media_count" }, c.userToken)).body).toEqual({
      id: c.igUserId,
      username: "sky_facts",
      media_count: 1,
    });
  });

  test("insights are deterministic for a seed and an age, grow with age, and refuse deprecated metrics", async () => {
    const metrics = "views,reach,likes,comments,shares,saved,total_interactions,ig_reels_avg_watch_time,ig_reels_video_view_total_time";
    const container = await finished(mp4({ durationS: 30 }));
    const id = (await publish(container.id)).body.id;
    const read = async () =>
      Object.fromEntries(
        ((await graph(base, "GET", `${id}/insights`, { metric: metrics }, c.userToken)).body.data as Array<{ name: string; values: Array<{ value: number }> }>)
          .map((m) => [m.name, m.values[0]!.value]),
      );
    const atPublish = await read();
    expect(atPublish.views).toBe(0);
    await advanceClock(base, 2 * DAY);
    const day2 = await read();
    expect(await read()).toEqual(day2);
    expect(day2.views).toBeGreaterThan(0);
    expect(day2.reach).toBeLessThanOrEqual(day2.views);
    expect(day2.total_interactions).toBe(day2.likes + day2.comments + day2.shares + day2.saved);
    expect(day2.ig_reels_avg_watch_time).toBeGreaterThan(0);
    expect(day2.ig_reels_avg_watch_time).toBeLessThan(30_000);
    await advanceClock(base, 5 * DAY);
    const day7 = await read();
    for (const name of Object.keys(day2)) expect(day7[name]!, name).toBeGreaterThanOrEqual(day2[name]!);
    expect(day7.views).toBeGreaterThan(day2.views!);
    await setSettings(base, { seed: "another-seed" });
    expect(await read()).not.toEqual(day7);

    const one = await graph(base, "GET", `${id}/insights`, { metric: "reach" }, c.userToken);
    expect(one.body.data[0]).toMatchObject({ name: "reach", period: "lifetime", id: `${id}/insights/reach/lifetime` });
    for (const metric of ["plays", "impressions", "clips_replays_count", "video_views"]) {
      const refused = await graph(base, "GET", `${id}/insights`, { metric }, c.userToken);
      expect((refused.body as GraphErrorBody).error.message, metric).toStartWith("(#100) metric[0] must be one of the following values: views");
    }
    expect((await graph(base, "GET", `${id}/insights`, {}, c.userToken)).body.error.message).toBe("(#100) The parameter metric is required");
    await admin(base, "PUT", "grants", { app_id: "1234567890123", user: "sky-facts", scopes: ["instagram_basic"] });
    expect((await graph(base, "GET", `${id}/insights`, { metric: "reach" }, c.userToken)).body.error.code).toBe(10);
  });

  test("rate_limited answers Business Use Case code 80002 with X-Business-Use-Case-Usage; http_500 answers 500 code 2; both once", async () => {
    await emulator.armFault({ service: "meta", kind: "rate_limited" });
    const limited = await graph(base, "GET", `${c.igUserId}/content_publishing_limit`, {}, c.userToken);
    expect(limited.status).toBe(400);
    expect((limited.body as GraphErrorBody).error).toMatchObject({ code: 80002, is_transient: true });
    const usage = JSON.parse(limited.headers.get("x-business-use-case-usage")!);
    expect(usage[c.igUserId][0]).toMatchObject({ type: "instagram", call_count: 100 });
    expect((await graph(base, "GET", `${c.igUserId}/content_publishing_limit`, {}, c.userToken)).status).toBe(200);

    await emulator.armFault({ service: "meta", kind: "http_500" });
    const outage = await graph(base, "POST", `${c.igUserId}/media`, { media_type: "REELS", upload_type: "resumable" }, c.userToken);
    expect(outage.status).toBe(500);
    expect((outage.body as GraphErrorBody).error).toMatchObject({ code: 2, is_transient: true });
    expect((await admin(base, "GET", "uploads")).body.containers).toEqual([]);
    expect((await graph(base, "POST", `${c.igUserId}/media`, { media_type: "REELS", upload_type: "resumable" }, c.userToken)).status).toBe(200);
  });
});
