/**
 * The YouTube Analytics emulator's reports.query over HTTP, with googleapis' own client where the
 * engine uses it: the two reports the engine asks (totals and the retention curve) for a video
 * uploaded to the YouTube emulator; the 48-hour lag on the emulator clock; Google's error shapes
 * for a bad token (401), a grant without yt-analytics.readonly (403 insufficientPermissions, and
 * the OAuth emulator's answer naming the scopes granted), bad or unsupported parameters (400), a
 * video of another channel (403), a spent project (403 quotaExceeded) and armed faults; the admin
 * routes (appeal, settings, the queries answered).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { queryVideoRetention, queryVideoTotals } from "../../shared/providers/youtube/analytics.ts";
import { ProviderError } from "../../shared/providers/errors.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { accessToken, errorOf, upload } from "./fixtures/youtube-emulator.ts";

const CLIENT = "analytics-emulator.apps.googleusercontent.com";
const DAY_MS = 86_400_000;
let emulator: Awaited<ReturnType<typeof startTestEmulator>>;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
beforeEach(() => emulator.reset());
afterAll(() => emulator.stop());

const today = () => new Date().toISOString().slice(0, 10);
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
const setClock = (days: number) => fetch(`${emulator.url}/_emulator/clock`, { method: "POST", body: JSON.stringify({ offset_ms: days * DAY_MS }) });
const reports = (token: string, params: Record<string, string>) =>
  fetch(`${emulator.url}/v2/reports?${new URLSearchParams(params)}`, { headers: { authorization: `Bearer ${token}` } });

async function uploadedVideo(channel = "stats-channel"): Promise<{ token: string; videoId: string }> {
  const token = await accessToken(emulator.url, CLIENT, channel);
  const video = await upload(emulator.url, token);
  return { token, videoId: video.id as string };
}

/** An access token from a consent that granted only `scope` (the authorization-code flow with PKCE). */
async function consentedToken(scope: string, channel: string): Promise<{ accessToken: string; scope: string }> {
  const verifier = randomBytes(48).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const redirect = "http://127.0.0.1:9/callback";
  const auth = new URL(`${emulator.url}/o/oauth2/v2/auth`);
  for (
    const [k, v] of Object.entries({
      client_id: CLIENT,
      redirect_uri: redirect,
      response_type: "code",
      scope,
      code_challenge: challenge,
      code_challenge_method: "S256",
      access_type: "offline",
      login_hint: channel,
    })
  ) {
    auth.searchParams.set(k, v);
  }
  const consent = await fetch(auth, { redirect: "manual" });
  const code = new URL(consent.headers.get("location")!).searchParams.get("code")!;
  const exchanged = await fetch(`${emulator.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: CLIENT,
      client_secret: "s",
      redirect_uri: redirect,
      code_verifier: verifier,
    }),
  });
  const body = (await exchanged.json()) as { access_token: string; scope: string };
  return { accessToken: body.access_token, scope: body.scope };
}

test("the engine's two reports: nothing within 48 hours, then totals and a 100-point retention curve", async () => {
  const { token, videoId } = await uploadedVideo();
  const query = { baseUrl: emulator.url, accessToken: token, videoId, startDate: today(), endDate: inDays(3) };
  expect(await queryVideoTotals(query)).toBeNull();
  expect(await queryVideoRetention(query)).toBeNull();

  await setClock(3);
  const totals = (await queryVideoTotals(query))!;
  expect(totals.views).toBeGreaterThan(0);
  expect(totals.engagedViews).toBeLessThanOrEqual(totals.views);
  const curve = (await queryVideoRetention(query))!;
  expect(curve).toHaveLength(100);
  expect(curve[0]!.ratio).toBe(0.01);
  expect(curve[99]!.ratio).toBe(1);
  const mean = curve.reduce((sum, p) => sum + p.watch_ratio, 0) / 100;
  expect(totals.averageViewPercentage).toBeCloseTo(mean * 100, 1);
  expect(await queryVideoTotals(query)).toEqual(totals);

  const raw = await reports(token, { ids: "channel==MINE", startDate: today(), endDate: inDays(3), metrics: "views,likes", filters: `video==${videoId}` });
  expect(await raw.json()).toEqual({
    kind: "youtubeAnalytics#resultTable",
    columnHeaders: [{ name: "views", columnType: "METRIC", dataType: "INTEGER" }, { name: "likes", columnType: "METRIC", dataType: "INTEGER" }],
    rows: [[totals.views, totals.likes]],
  });

  // Appeal set through the admin route lifts retention.
  const set = await fetch(`${emulator.url}/_emulator/youtube-analytics/videos/${videoId}`, { method: "PUT", body: JSON.stringify({ appeal: 3 }) });
  expect(set.status).toBe(200);
  expect((await queryVideoTotals(query))!.averageViewPercentage).toBeGreaterThan(totals.averageViewPercentage);
  const log = (await (await fetch(`${emulator.url}/_emulator/youtube-analytics/queries`)).json()) as { queries: Array<{ video_id: string; rows: number }> };
  expect(log.queries.map((q) => q.rows)).toEqual([0, 0, 1, 100, 1, 1, 1]);
});

test("Google's errors: bad token, a grant without the analytics scope, bad parameters, another channel's video", async () => {
  const { token, videoId } = await uploadedVideo();
  const params = { ids: "channel==MINE", startDate: today(), endDate: today(), metrics: "views", filters: `video==${videoId}` };

  const bad = await reports("ya29.not-issued", params);
  expect(bad.status).toBe(401);
  expect((await errorOf(bad)).errors[0]!.reason).toBe("authError");

  const narrow = await consentedToken("https://www.googleapis.com/auth/youtube.upload", "narrow-channel");
  expect(narrow.scope).toBe("https://www.googleapis.com/auth/youtube.upload");
  const refused = await reports(narrow.accessToken, params);
  expect(refused.status).toBe(403);
  expect((await errorOf(refused)).errors[0]!.reason).toBe("insufficientPermissions");
  const wide = await consentedToken("https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/yt-analytics.readonly", "wide-channel");
  expect(wide.scope).toContain("yt-analytics.readonly");

  for (
    const [change, reason] of [
      [{ ids: "channel==UCsomeoneelse0000000000" }, "invalidValue"],
      [{ startDate: "2026-02-30" }, "invalidValue"],
      [{ startDate: inDays(2), endDate: today() }, "invalidValue"],
      [{ metrics: "views,estimatedRevenue" }, "invalidValue"],
      [{ metrics: "" }, "required"],
      [{ dimensions: "country" }, "badRequest"],
      [{ dimensions: "elapsedVideoTimeRatio", metrics: "views" }, "badRequest"],
      [{ filters: "country==US" }, "badRequest"],
      [{ sort: "-estimatedRevenue" }, "invalidValue"],
      [{ maxResults: "0" }, "invalidValue"],
    ] as const
  ) {
    const response = await reports(token, { ...params, ...change });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).errors[0]!.reason).toBe(reason);
  }
  const posted = await fetch(`${emulator.url}/v2/reports?${new URLSearchParams(params)}`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  expect(posted.status).toBe(405);

  const other = await accessToken(emulator.url, CLIENT, "other-channel");
  const forbidden = await reports(other, params);
  expect(forbidden.status).toBe(403);
  expect((await errorOf(forbidden)).errors[0]!.reason).toBe("forbidden");
});

test("a project's queries per day, armed faults and the client's errors", async () => {
  const { token, videoId } = await uploadedVideo();
  const query = { baseUrl: emulator.url, accessToken: token, videoId, startDate: today(), endDate: today() };
  const settings = await fetch(`${emulator.url}/_emulator/youtube-analytics/settings`, { method: "PUT", body: JSON.stringify({ queries_per_day: 1 }) });
  expect(((await settings.json()) as { queries_per_day: number }).queries_per_day).toBe(1);
  await queryVideoTotals(query);
  const spent = await queryVideoTotals(query).catch((error) => error);
  expect(spent).toBeInstanceOf(ProviderError);
  expect([spent.status, spent.apiReason, spent.retriable]).toEqual([403, "quotaExceeded", false]);

  await fetch(`${emulator.url}/_emulator/youtube-analytics/settings`, { method: "PUT", body: JSON.stringify({ queries_per_day: 100 }) });
  await emulator.armFault({ service: "youtube-analytics", kind: "http_503", count: 1 });
  const outage = await queryVideoTotals(query).catch((error) => error);
  expect([outage.status, outage.retriable]).toEqual([503, true]);
  await emulator.armFault({ service: "youtube-analytics", kind: "quota_exceeded", count: 1 });
  expect((await queryVideoTotals(query).catch((error) => error)).apiReason).toBe("quotaExceeded");
  expect(await queryVideoTotals(query)).toBeNull();

  for (const [body, status] of [[{ appeal: 0 }, 400], [{ appeal: 2, extra: 1 }, 400], [{}, 400], [{ duration_s: 30 }, 200]] as const) {
    const response = await fetch(`${emulator.url}/_emulator/youtube-analytics/videos/${videoId}`, { method: "PUT", body: JSON.stringify(body) });
    expect(response.status).toBe(status);
  }
  expect((await fetch(`${emulator.url}/_emulator/youtube-analytics/videos/bad%20id`, { method: "PUT", body: "{}" })).status).toBe(400);
  expect((await fetch(`${emulator.url}/_emulator/youtube-analytics/settings`, { method: "PUT", body: JSON.stringify({ seed: "" }) })).status).toBe(400);
});
