/**
 * The closed loop on TikTok, end to end on the engine's side: a TikTok-only dimension publishes a
 * post through the real publish stage (an audited app, so the post is public and has its post id),
 * the engine's and the emulator's clocks move 3 days on, the hourly schedule's RPC enqueues the
 * day-3 window, and the real /pipeline/tick asks TikTok's video/query through the engine's client:
 * - the post's counts (views, likes, comments, shares) land in video_analytics as TikTok's, with no
 *   watch figures, charged to the account's video.query rate window;
 * - the weekly report of that dimension shows the post's figures under TikTok, in SQL and in the
 *   Markdown the report is sent as;
 * - a grant without video.list marks the account needs_reconnect and keeps the fetch queued.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { TIKTOK_SCOPES } from "../../cli/tiktok-connect.ts";
import { WeeklyReport } from "../../shared/contracts/weekly-report.ts";
import { renderWeeklyMarkdown } from "../../shared/reports/weekly-markdown.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { addTikTokAccount } from "./fixtures/tiktok-account.ts";
import { type PublishBench, runStages, startPublishBench, stopPublishBench, tickOnce, unitAtPublish } from "./fixtures/publish-stage.ts";

const admin = adminSql();
const DAY_MS = 86_400_000;
const DIMENSION = "sains-singkat";

let bench: PublishBench;
let app: ReturnType<typeof createPipelineApp>;

beforeAll(async () => {
  bench = await startPublishBench("analytics-tiktok", randomBytes(300 * 1024));
  app = createPipelineApp(bench.deps);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await bench.emulator.reset();
  await emulatorCall("PUT", "/_emulator/tiktok/settings", { processing_delay_ms: 0 });
  // An audited app posts publicly, so TikTok names the post by an id video/query knows.
  await emulatorCall("PUT", `/_emulator/tiktok/clients/${bench.env.TIKTOK_CLIENT_KEY}`, { audited: true });
  // TikTok only: the dimension's YouTube accounts are paused.
  await admin`update mdame.dimension_accounts set active = false where dimension_id = ${DIMENSION} and platform = 'youtube'`;
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

async function emulatorCall(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${bench.emulator.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return await response.json().catch(() => null);
}

/** A TikTok account of the dimension for creator `user`, connected with `scopes` and sealed. */
const connectTikTok = (user: string, scopes: readonly string[]) => addTikTokAccount(admin, bench, DIMENSION, user, scopes);

const tick = () => tickOnce(app, bench.env);

/** Publishes one post through the real publish stage; its publication and TikTok's post id. */
async function publishPost(): Promise<{ publicationId: string; postId: string }> {
  const { unitId } = await unitAtPublish(admin, bench.deps, bench.videoPath, DIMENSION);
  await runStages(bench.deps);
  const [publication] = await admin<{ id: string; external_id: string; status: string; platform: string }[]>`
    select id, external_id, status, platform from mdame.publications where unit_id = ${unitId}`;
  expect(publication).toMatchObject({ status: "published", platform: "tiktok" });
  expect(publication!.external_id).toMatch(/^\d+$/);
  return { publicationId: publication!.id, postId: publication!.external_id };
}

/** Moves the engine's and the emulator's clocks `days` on. */
async function moveClocks(days: number): Promise<void> {
  await admin`select mdame.set_engine_clock(make_interval(secs => ${days * 86_400 + 60}))`;
  await emulatorCall("POST", "/_emulator/clock", { offset_ms: days * DAY_MS + 60_000 });
}

test("a TikTok-only dimension's post is measured at day 3 and its weekly report shows the post's figures", async () => {
  await connectTikTok("tt-creator", TIKTOK_SCOPES);
  const { publicationId, postId } = await publishPost();
  await emulatorCall("PUT", `/_emulator/tiktok/posts/${postId}/figures`, { view_count: 1234, like_count: 56, comment_count: 7, share_count: 8 });

  await moveClocks(3);
  expect((await admin<{ n: number }[]>`select mdame.schedule_analytics_fetches() as n`)[0]!.n).toBe(1);
  await tick();
  const rows = await admin`
    select platform, window_days, views, likes, comments, shares, engaged_views, average_view_percentage, retention
      from mdame.video_analytics where publication_id = ${publicationId}`;
  expect(rows.map((r) => ({ ...r }))).toEqual([{
    platform: "tiktok",
    window_days: 3,
    views: "1234",
    likes: "56",
    comments: "7",
    shares: "8",
    engaged_views: null,
    average_view_percentage: null,
    retention: null,
  }]);
  const [fetch] = await admin`select status from mdame.analytics_fetches where publication_id = ${publicationId}`;
  expect(fetch!.status).toBe("fetched");
  const calls = await admin`select call_kind from mdame.tiktok_calls where call_kind = 'video.query'`;
  expect(calls).toHaveLength(1);

  // The week the figures arrived in, in the dimension's own time zone.
  const [{ report }] = await admin<{ report: unknown }[]>`
    select mdame.weekly_report(d.id, (mdame.engine_now() at time zone coalesce(nullif(d.publishing->>'time_zone', ''), 'UTC'))::date) as report
      from mdame.dimensions d where d.id = ${DIMENSION}`;
  const weekly = WeeklyReport.parse(report);
  expect(weekly.videos.count).toBe(1);
  expect(weekly.videos.best_engaged).toBeNull();
  expect(weekly.videos.by_platform).toHaveLength(1);
  expect(weekly.videos.by_platform[0]).toMatchObject({
    platform: "tiktok",
    videos: 1,
    views: 1234,
    likes: 56,
    comments: 7,
    shares: 8,
    engaged_views: null,
    most_viewed: { platform: "tiktok", views: 1234, url: `https://www.tiktok.com/@tt-creator/video/${postId}` },
  });
  const markdown = renderWeeklyMarkdown(weekly);
  expect(markdown).toContain("### TikTok\n\n1 video, 1234 views, 56 likes, 7 comments, 8 shares.");
  expect(markdown).toContain("(tiktok, day 3): 1234 views, 56 likes, 7 comments, 8 shares");
}, 60_000);

test("a grant without video.list marks the account needs_reconnect and keeps the fetch queued", async () => {
  const accountId = await connectTikTok("tt-narrow", TIKTOK_SCOPES.filter((scope) => scope !== "video.list"));
  const { publicationId } = await publishPost();
  await moveClocks(3);
  expect((await admin<{ n: number }[]>`select mdame.schedule_analytics_fetches() as n`)[0]!.n).toBe(1);
  await tick();
  const [account] = await admin`select health_state from mdame.dimension_accounts where id = ${accountId}`;
  expect(account!.health_state).toBe("needs_reconnect");
  const [fetch] = await admin`select status, last_error from mdame.analytics_fetches where publication_id = ${publicationId}`;
  expect(fetch!.status).toBe("queued");
  expect(fetch!.last_error).toContain("account needs reconnecting");
  expect(await admin`select 1 from mdame.video_analytics where publication_id = ${publicationId}`).toHaveLength(0);
}, 60_000);
