/**
 * The closed loop on Instagram and Facebook, end to end on the engine's side: a dimension on both
 * publishes a Reel to each through the real publish stage, the engine's and the emulator's clocks
 * move 3 days on, the hourly schedule's RPC enqueues both day-3 windows, and the real /pipeline/tick
 * reads each Reel's insights through Graph with the adapter's token (the user's for Instagram, the
 * Page's for Facebook):
 * - each row holds the figures Graph answers for the Reel at that moment (views, likes, comments,
 *   shares, reach, Instagram's saves, the average watch time in seconds), and none of YouTube's;
 * - the weekly report shows each platform's totals;
 * - a grant the user revoked marks the accounts needs_reconnect and keeps their fetches queued.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { WeeklyReport } from "../../shared/contracts/weekly-report.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { addMetaAccounts } from "./fixtures/meta-accounts.ts";
import { graph, mp4 } from "./fixtures/meta-client.ts";
import { type PublishBench, runStages, startPublishBench, stopPublishBench, tickOnce, unitAtPublish } from "./fixtures/publish-stage.ts";

const admin = adminSql();
const DAY_MS = 86_400_000;
const DIMENSION = "tech-explained";
const VIDEO = mp4({ durationS: 30, padBytes: 300 * 1024, seed: "analytics-meta" });

let bench: PublishBench;
let app: ReturnType<typeof createPipelineApp>;

beforeAll(async () => {
  bench = await startPublishBench("analytics-meta", VIDEO, { MDAME_META_POLL_INTERVAL_MS: "200", MDAME_META_PART_BYTES: String(128 * 1024) });
  app = createPipelineApp(bench.deps);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await bench.emulator.reset();
  await emulatorCall("PUT", "/_emulator/meta/settings", { ig_processing_delay_ms: 300, fb_processing_delay_ms: 300 });
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

async function emulatorCall(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${bench.emulator.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return await response.json().catch(() => null);
}

const tick = () => tickOnce(app, bench.env);

/** A Reel on Instagram and on Facebook through the real publish stage (the dimension's other accounts paused); their publications. */
async function publishReels() {
  const accounts = await addMetaAccounts(admin, bench.deps, bench.env, DIMENSION, "loop-facts");
  await admin`update mdame.dimension_accounts set active = platform in ('instagram', 'facebook') where dimension_id = ${DIMENSION}`;
  const { unitId } = await unitAtPublish(admin, bench.deps, bench.videoPath, DIMENSION, 30);
  await runStages(bench.deps);
  const rows = await admin<{ id: string; platform: string; external_id: string; status: string }[]>`
    select id, platform, external_id, status from mdame.publications where unit_id = ${unitId} order by platform`;
  expect(rows.map((r) => [r.platform, r.status])).toEqual([["facebook", "published"], ["instagram", "published"]]);
  return { accounts, facebook: rows[0]!, instagram: rows[1]! };
}

async function moveClocks(days: number): Promise<void> {
  await admin`select mdame.set_engine_clock(make_interval(secs => ${days * 86_400 + 60}))`;
  await emulatorCall("POST", "/_emulator/clock", { offset_ms: days * DAY_MS + 60_000 });
}

/** Graph's own answer for a Reel's insights, metric by metric, read with `token`. */
async function rawInsights(path: string, metrics: string, token: string): Promise<Record<string, any>> {
  const answer = await graph(bench.emulator.url, "GET", path, { metric: metrics }, token);
  expect(answer.status).toBe(200);
  return Object.fromEntries((answer.body.data as Array<{ name: string; values: Array<{ value: unknown }> }>).map((m) => [m.name, m.values.at(-1)!.value]));
}

const rowOf = async (publicationId: string) =>
  (await admin`
    select platform, views, likes, comments, shares, reach, saved, average_view_duration_s, engaged_views, average_view_percentage, retention
      from mdame.video_analytics where publication_id = ${publicationId} and window_days = 3`)[0];

test("each Reel's day-3 insights are read through Graph with its platform's token and stored as that platform's figures", async () => {
  const { accounts, instagram, facebook } = await publishReels();
  await moveClocks(3);
  expect((await admin<{ n: number }[]>`select mdame.schedule_analytics_fetches() as n`)[0]!.n).toBe(2);
  await tick();

  const ig = await rawInsights(`${instagram.external_id}/insights`, "views,likes,comments,shares,reach,saved,ig_reels_avg_watch_time", accounts.userToken);
  expect(ig.views).toBeGreaterThan(0);
  expect({ ...(await rowOf(instagram.id)) }).toEqual({
    platform: "instagram",
    views: String(ig.views),
    likes: String(ig.likes),
    comments: String(ig.comments),
    shares: String(ig.shares),
    reach: String(ig.reach),
    saved: String(ig.saved),
    average_view_duration_s: String(Math.round(ig.ig_reels_avg_watch_time / 10) / 100),
    engaged_views: null,
    average_view_percentage: null,
    retention: null,
  });

  const pages = await graph(bench.emulator.url, "GET", "me/accounts", { fields: "id,access_token" }, accounts.userToken);
  const pageToken = (pages.body.data as Array<{ id: string; access_token: string }>).find((p) => p.id === accounts.pageId)!.access_token;
  const fb = await rawInsights(
    `${facebook.external_id}/video_insights`,
    "blue_reels_play_count,post_impressions_unique,post_video_avg_time_watched,post_video_likes_by_reaction_type,post_video_social_actions",
    pageToken,
  );
  const reactions = Object.values(fb.post_video_likes_by_reaction_type as Record<string, number>).reduce((sum, n) => sum + n, 0);
  expect({ ...(await rowOf(facebook.id)) }).toMatchObject({
    platform: "facebook",
    views: String(fb.blue_reels_play_count),
    likes: String(reactions),
    comments: String(fb.post_video_social_actions.COMMENT ?? 0),
    shares: String(fb.post_video_social_actions.SHARE ?? 0),
    reach: String(fb.post_impressions_unique),
    saved: null,
    engaged_views: null,
  });

  const [{ report }] = await admin<{ report: unknown }[]>`
    select mdame.weekly_report(d.id, (mdame.engine_now() at time zone coalesce(nullif(d.publishing->>'time_zone', ''), 'UTC'))::date) as report
      from mdame.dimensions d where d.id = ${DIMENSION}`;
  const weekly = WeeklyReport.parse(report);
  expect(weekly.videos.by_platform.map((p) => [p.platform, p.videos, p.views])).toEqual([
    ["facebook", 1, fb.blue_reels_play_count],
    ["instagram", 1, ig.views],
  ]);
}, 90_000);

test("a grant the user revoked marks the accounts needs_reconnect and keeps the fetches queued", async () => {
  const { instagram, facebook } = await publishReels();
  await moveClocks(3);
  expect((await admin<{ n: number }[]>`select mdame.schedule_analytics_fetches() as n`)[0]!.n).toBe(2);
  await emulatorCall("POST", "/_emulator/meta/revocations", { app_id: bench.env.META_APP_ID, user: "loop-facts" });
  await tick();
  const fetches = await admin<{ status: string; last_error: string }[]>`
    select status, last_error from mdame.analytics_fetches where publication_id in (${instagram.id}, ${facebook.id})`;
  expect(fetches).toHaveLength(2);
  for (const f of fetches) {
    expect(f.status).toBe("queued");
    expect(f.last_error).toContain("account needs reconnecting");
  }
  const health = await admin<{ health_state: string }[]>`
    select health_state from mdame.dimension_accounts where platform in ('instagram', 'facebook') and dimension_id = ${DIMENSION}`;
  expect(health.map((h) => h.health_state)).toEqual(["needs_reconnect", "needs_reconnect"]);
  expect(await admin`select 1 from mdame.video_analytics where publication_id in (${instagram.id}, ${facebook.id})`).toHaveLength(0);
}, 90_000);
