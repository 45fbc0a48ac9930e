/**
 * YouTube Analytics for published videos, end to end on the engine's side: the real Postgres (the
 * hourly schedule's RPC, the analytics_fetches queue, the quota ledger), the real pipeline app's
 * /pipeline/tick, the real @googleapis/youtubeanalytics client and Google OAuth token refresh
 * against the emulators. A video is published through the real publish stage first, then the
 * engine's and the emulator's clocks are moved on together:
 * - day 3 and day 7: one row per window, views growing, the queries charged to the project's own
 *   analytics bucket (the Data API units untouched), and a repeat of a window changing nothing
 *   but fetched_at;
 * - the lag: a window due on the engine's clock before YouTube has processed its data writes
 *   nothing, stays queued and is fetched on a later try;
 * - a revoked grant marks the account needs_reconnect and keeps the fetch queued;
 * - a quotaExceeded answer fills the project's analytics bucket for the Pacific day and the fetch
 *   waits for the reset;
 * - an outage retries, and a fetch out of attempts is given up with an event, never looping;
 * - `mdame doctor` names each active YouTube account whose grant lacks yt-analytics.readonly.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { formatRunAnalytics } from "../../cli/commands/status.ts";
import { publishingChecks } from "../../cli/doctor/publishing.ts";
import { RunAnalyticsList } from "../../shared/contracts/analytics.ts";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { MAX_ATTEMPTS } from "../../functions/pipeline/analytics/fetch.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { addYouTubeAccount, type PublishBench, runStages, startPublishBench, stopPublishBench, tickOnce, unitAtPublish } from "./fixtures/publish-stage.ts";

const admin = adminSql();
const DAY_MS = 86_400_000;
const PROJECT = "analytics-it.apps.googleusercontent.com";
const CHANNEL = "analytics-channel";

let bench: PublishBench;
let app: ReturnType<typeof createPipelineApp>;

beforeAll(async () => {
  bench = await startPublishBench("analytics", randomBytes(200 * 1024));
  app = createPipelineApp(bench.deps);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await bench.emulator.reset();
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

const tick = () => tickOnce(app, bench.env);

/** Publishes one video through the real publish stage; its publication and the emulator's video id. */
async function publishOne(): Promise<{ accountId: string; publicationId: string; videoId: string; unitId: string; runId: string }> {
  const accountId = await addYouTubeAccount(admin, {
    dimension: "tech-explained",
    handle: `@${CHANNEL}`,
    project: PROJECT,
    refreshToken: `emulator-refresh-${CHANNEL}`,
    key: bench.env.CREDENTIALS_KEY!,
  });
  const { unitId, runId } = await unitAtPublish(admin, bench.deps, bench.videoPath, "tech-explained");
  await runStages(bench.deps);
  const [publication] = await admin<{ id: string; external_id: string; status: string }[]>`
    select id, external_id, status from mdame.publications where unit_id = ${unitId}`;
  expect(publication?.status).toBe("published");
  return { accountId, publicationId: publication!.id, videoId: publication!.external_id, unitId, runId };
}

/** Moves the engine's clock to `days` after now and the emulator's to `emulatorDays` after real time. */
async function moveClocks(days: number, emulatorDays = days): Promise<void> {
  await admin`select mdame.set_engine_clock(make_interval(secs => ${days * 86_400 + 60}))`;
  const response = await fetch(`${bench.emulator.url}/_emulator/clock`, {
    method: "POST",
    body: JSON.stringify({ offset_ms: emulatorDays * DAY_MS + 60_000 }),
  });
  expect(response.status).toBe(200);
}

const schedule = async () => (await admin<{ n: number }[]>`select mdame.schedule_analytics_fetches() as n`)[0]!.n;
/** Makes every queued fetch message visible now (a retry's delay passed). */
const retryNow = () => admin`update pgmq.q_analytics_fetches set vt = clock_timestamp() - interval '1 second'`;

type Row = {
  window_days: number;
  views: string;
  engaged_views: string;
  likes: string;
  average_view_percentage: string;
  average_view_duration_s: string;
  fetched_at: Date;
  retention: Array<{ ratio: number; watch_ratio: number }>;
};
const rowsOf = (publicationId: string) =>
  admin<Row[]>`
  select window_days, views, engaged_views, likes, average_view_percentage, average_view_duration_s, fetched_at, retention
    from mdame.video_analytics where publication_id = ${publicationId} order by window_days`;
const fetchOf = async (publicationId: string, window: number) =>
  (await admin<{ status: string; attempts: number; last_error: string | null }[]>`
    select status, attempts, last_error from mdame.analytics_fetches where publication_id = ${publicationId} and window_days = ${window}`)[0];
const analyticsLedger = () =>
  admin<{ bucket: string; status: string; entry: string; cost: number }[]>`
  select bucket, status, entry, cost from mdame.quota_ledger where call_kind = 'analytics.reports.query' order by created_at, id`;

test("day 3 and day 7 are fetched once each, charged to the analytics bucket, and a repeat changes only fetched_at", async () => {
  const { publicationId, videoId, runId } = await publishOne();
  await fetch(`${bench.emulator.url}/_emulator/youtube-analytics/videos/${videoId}`, { method: "PUT", body: JSON.stringify({ duration_s: 40 }) });

  await moveClocks(2);
  expect(await schedule()).toBe(0);

  await moveClocks(3);
  expect(await schedule()).toBe(1);
  await tick();
  const [day3] = await rowsOf(publicationId);
  expect(day3?.window_days).toBe(3);
  expect(Number(day3!.views)).toBeGreaterThan(0);
  expect(Number(day3!.engaged_views)).toBeLessThanOrEqual(Number(day3!.views));
  expect(Number(day3!.likes)).toBeLessThan(Number(day3!.views));
  expect(day3!.retention).toHaveLength(100);
  const meanWatch = day3!.retention.reduce((sum, p) => sum + p.watch_ratio, 0) / 100;
  expect(Number(day3!.average_view_percentage)).toBeCloseTo(meanWatch * 100, 1);
  expect(Number(day3!.average_view_duration_s)).toBe(Math.round(meanWatch * 40));
  expect((await fetchOf(publicationId, 3))?.status).toBe("fetched");
  expect(await schedule()).toBe(0);

  const ledger = await analyticsLedger();
  expect(ledger.map((e) => [e.bucket, e.status])).toEqual([["analytics", "settled"], ["analytics", "settled"]]);
  const [units] = await admin<{ n: number }[]>`select count(*)::int as n from mdame.quota_ledger where bucket = 'units'`;
  expect(units!.n).toBe(0);

  // The same window fetched again (a message delivered twice): the same figures, a later fetched_at.
  await admin`update mdame.analytics_fetches set status = 'queued' where publication_id = ${publicationId} and window_days = 3`;
  await admin`select pgmq.send('analytics_fetches', ${admin.json({ publication_id: publicationId, window_days: 3 })}::jsonb)`;
  await admin`select mdame.set_engine_clock(make_interval(secs => ${3 * 86_400 + 3600}))`;
  await tick();
  const [repeat] = await rowsOf(publicationId);
  const { fetched_at: firstAt, ...firstFigures } = day3!;
  const { fetched_at: repeatAt, ...repeatFigures } = repeat!;
  expect(repeatFigures).toEqual(firstFigures);
  expect(repeatAt.getTime()).toBeGreaterThan(firstAt.getTime());

  await moveClocks(7);
  expect(await schedule()).toBe(1);
  await tick();
  const rows = await rowsOf(publicationId);
  expect(rows.map((r) => r.window_days)).toEqual([3, 7]);
  expect(Number(rows[1]!.views)).toBeGreaterThan(Number(rows[0]!.views));
  const [queued] = await admin<{ n: number }[]>`select count(*)::int as n from pgmq.q_analytics_fetches`;
  expect(queued!.n).toBe(0);
  const queries = (await (await fetch(`${bench.emulator.url}/_emulator/youtube-analytics/queries`)).json()) as { queries: Array<{ video_id: string }> };
  expect(queries.queries).toHaveLength(6);
  expect(queries.queries.every((q) => q.video_id === videoId)).toBe(true);

  // What `mdame status` shows of the run: each window's figures, through the operator route.
  const answer = await app.request(`http://edge.test/pipeline/runs/${runId}/analytics`, { headers: { authorization: `Bearer ${bench.env.SERVICE_ROLE_KEY}` } });
  expect(answer.status).toBe(200);
  const { analytics } = RunAnalyticsList.parse(await answer.json());
  expect(analytics.map((a) => [a.external_id, a.window_days, a.views])).toEqual(rows.map((r) => [videoId, r.window_days, Number(r.views)]));
  const lines = formatRunAnalytics(analytics, Date.now());
  expect(lines[1]).toMatch(/^unit\s+video\s+window\s+views\s+engaged views\s+avg % viewed/);
  expect(lines.some((l) => l.includes(videoId) && l.includes("day 7") && l.includes(`${Number(rows[1]!.average_view_percentage).toFixed(1)}%`))).toBe(true);
  const unauthorized = await app.request(`http://edge.test/pipeline/runs/${runId}/analytics`);
  expect(unauthorized.status).toBe(401);
  const badId = await app.request("http://edge.test/pipeline/runs/not-a-run/analytics", { headers: { authorization: `Bearer ${bench.env.SERVICE_ROLE_KEY}` } });
  expect(badId.status).toBe(400);
  // A well-formed id of no run is a 404 here as on GET /runs/:id, not an empty list.
  for (const path of ["", "/analytics"]) {
    const unknown = await app.request(`http://edge.test/pipeline/runs/00000000-0000-4000-8000-000000000000${path}`, {
      headers: { authorization: `Bearer ${bench.env.SERVICE_ROLE_KEY}` },
    });
    expect({ path, status: unknown.status }).toEqual({ path, status: 404 });
  }
}, 120_000);

test("a window due before YouTube processed its data stays queued and is fetched on a later try", async () => {
  const { publicationId } = await publishOne();
  // The engine's clock says day 3; YouTube's has only passed one day: no rows yet.
  await moveClocks(3, 1);
  expect(await schedule()).toBe(1);
  await tick();
  expect(await rowsOf(publicationId)).toHaveLength(0);
  const waiting = await fetchOf(publicationId, 3);
  expect(waiting?.status).toBe("queued");
  expect(waiting?.last_error).toContain("no data");
  const [message] = await admin<{ vt: Date }[]>`select vt from pgmq.q_analytics_fetches`;
  expect(message!.vt.getTime()).toBeGreaterThan(Date.now() + 2 * 3600_000);
  // The empty answer was a query YouTube counted.
  expect((await analyticsLedger()).map((e) => e.status)).toEqual(["settled"]);

  await moveClocks(3);
  await retryNow();
  await tick();
  expect((await rowsOf(publicationId)).map((r) => r.window_days)).toEqual([3]);
  expect((await fetchOf(publicationId, 3))?.attempts).toBe(2);
}, 120_000);

test("a revoked grant marks the account needs_reconnect and keeps the fetch queued", async () => {
  const { publicationId, accountId } = await publishOne();
  const revoked = await fetch(`${bench.emulator.url}/_emulator/oauth/revocations`, {
    method: "POST",
    body: JSON.stringify({ refresh_token: `emulator-refresh-${CHANNEL}` }),
  });
  expect(revoked.status).toBe(200);
  await moveClocks(3);
  expect(await schedule()).toBe(1);
  await tick();
  expect(await rowsOf(publicationId)).toHaveLength(0);
  const [account] = await admin<
    { health_state: string; health_reason: string }[]
  >`select health_state, health_reason from mdame.dimension_accounts where id = ${accountId}`;
  expect(account?.health_state).toBe("needs_reconnect");
  expect(account?.health_reason).toContain("invalid_grant");
  const [event] = await admin<{ n: number }[]>`select count(*)::int as n from mdame.events where kind = 'account_needs_reconnect'`;
  expect(event!.n).toBe(1);
  expect((await fetchOf(publicationId, 3))?.status).toBe("queued");
  // Nothing was asked of YouTube Analytics: no query reserved.
  expect(await analyticsLedger()).toHaveLength(0);
}, 120_000);

test("quotaExceeded fills the project's analytics bucket for the day and the fetch waits for the reset", async () => {
  const { publicationId } = await publishOne();
  await moveClocks(3);
  expect(await schedule()).toBe(1);
  await bench.emulator.armFault({ service: "youtube-analytics", kind: "quota_exceeded", count: 1 });
  await tick();
  expect(await rowsOf(publicationId)).toHaveLength(0);
  const waiting = await fetchOf(publicationId, 3);
  expect(waiting?.status).toBe("queued");
  expect(waiting?.last_error).toContain("quotaExceeded");
  const ledger = await analyticsLedger();
  expect(ledger.find((e) => e.entry === "call")?.status).toBe("released");
  const [size] = await admin<{ n: number }[]>`select analytics_queries_per_day as n from mdame.youtube_projects where oauth_client_id = ${PROJECT}`;
  expect(ledger.find((e) => e.entry === "correction")?.cost).toBe(size!.n);
  // The Data API's units are a quota of their own: untouched.
  const [units] = await admin<{ n: number }[]>`select count(*)::int as n from mdame.quota_ledger where bucket = 'units'`;
  expect(units!.n).toBe(0);
  // A later try the same day is refused by the ledger without asking YouTube.
  await retryNow();
  await tick();
  expect(await analyticsLedger()).toHaveLength(2);
  expect((await fetchOf(publicationId, 3))?.last_error).toContain("analytics quota spent");
}, 120_000);

test("an outage is retried with backoff and a fetch out of attempts is given up with an event", async () => {
  const { publicationId, unitId } = await publishOne();
  await moveClocks(3);
  expect(await schedule()).toBe(1);
  await bench.emulator.armFault({ service: "youtube-analytics", kind: "http_503", count: 1000, for_ms: 600_000 });
  await tick();
  const first = await fetchOf(publicationId, 3);
  expect(first?.status).toBe("queued");
  expect(first?.last_error).toContain("503");
  // An outage's query was never accepted: released.
  expect((await analyticsLedger()).map((e) => e.status)).toEqual(["released"]);

  await admin`update mdame.analytics_fetches set attempts = ${MAX_ATTEMPTS - 1} where publication_id = ${publicationId}`;
  await retryNow();
  await tick();
  const last = await fetchOf(publicationId, 3);
  expect(last?.status).toBe("given_up");
  expect(last?.attempts).toBe(MAX_ATTEMPTS);
  const [event] = await admin<{ n: number }[]>`
    select count(*)::int as n from mdame.events where kind = 'analytics_fetch_given_up' and unit_id = ${unitId}`;
  expect(event!.n).toBe(1);
  const [queued] = await admin<{ n: number }[]>`select count(*)::int as n from pgmq.q_analytics_fetches`;
  expect(queued!.n).toBe(0);
  expect(await schedule()).toBe(0);
}, 120_000);

test("the doctor warns for each active YouTube account whose grant lacks the analytics scope, with the command", async () => {
  const accountId = await addYouTubeAccount(admin, {
    dimension: "tech-explained",
    handle: `@${CHANNEL}`,
    project: PROJECT,
    refreshToken: `emulator-refresh-${CHANNEL}`,
    key: bench.env.CREDENTIALS_KEY!,
  });
  const scopeChecks = async () => (await publishingChecks(admin)).filter((c) => c.name.startsWith("analytics scope"));
  const [unrecorded] = await scopeChecks();
  expect(unrecorded?.status).toBe("warn");
  expect(unrecorded?.fix).toStartWith(`mdame account connect youtube --dimension tech-explained --channel @${CHANNEL}`);

  await admin`select mdame.record_account_scopes(${accountId}::uuid, ${admin.array(["https://www.googleapis.com/auth/youtube.upload"])}::text[])`;
  const [narrow] = await scopeChecks();
  expect(narrow?.message).toContain("lacks https://www.googleapis.com/auth/yt-analytics.readonly");

  await admin`select mdame.record_account_scopes(${accountId}::uuid, ${
    admin.array(["https://www.googleapis.com/auth/youtube.upload", "https://www.googleapis.com/auth/yt-analytics.readonly"])
  }::text[])`;
  expect(await scopeChecks()).toEqual([]);
  await admin`update mdame.dimension_accounts set granted_scopes = null, active = false where id = ${accountId}`;
  expect(await scopeChecks()).toEqual([]);
}, 60_000);
