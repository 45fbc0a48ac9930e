/**
 * The YouTube emulator's quota, through real HTTP: the two buckets of each project (the OAuth client
 * whose token makes the call), their reset at midnight America/Los_Angeles on the emulator's clock
 * (DST days included), what each call costs, the usage report and `POST /_emulator/reset`.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { rm } from "node:fs/promises";
import process from "node:process";
import { setEmulatorDay } from "../../scripts/soak/processes.ts";
import { freePort, killProcess, ROOT, spawnEmulatorProcess, startTestEmulator, tempDir } from "./fixtures/emulator-harness.ts";
import { accessToken, admin, projectOf, setClock, startUpload, upload, usage, VIDEO_BYTES } from "./fixtures/youtube-emulator.ts";

const CLIENT = "quota-1.apps.googleusercontent.com";
const OTHER = "quota-2.apps.googleusercontent.com";
const QUOTA_MESSAGE = "The request cannot be completed because you have exceeded your quota.";
let emulator: Awaited<ReturnType<typeof startTestEmulator>>;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.reset());

const channelsList = (token: string) => fetch(`${emulator.url}/youtube/v3/channels?part=snippet&mine=true`, { headers: { authorization: `Bearer ${token}` } });

async function expectQuotaExceeded(response: Response) {
  expect(response.status).toBe(403);
  expect(await response.json()).toMatchObject({
    error: { code: 403, message: QUOTA_MESSAGE, errors: [{ message: QUOTA_MESSAGE, domain: "youtube.quota", reason: "quotaExceeded" }] },
  });
}

test("a project's videos.insert bucket allows its limit of upload starts a day, then answers 403 quotaExceeded; another project is untouched", async () => {
  expect((await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { insert_calls_per_day: 2 })).body)
    .toEqual({ client_id: CLIENT, insert_calls_per_day: 2, units_per_day: 10_000, stats_units_per_day: 10_000 });
  const token = await accessToken(emulator.url, CLIENT);
  await upload(emulator.url, token);
  expect((await startUpload(emulator.url, token)).status).toBe(200);
  await expectQuotaExceeded(await startUpload(emulator.url, token));
  // A refused start costs nothing: the bucket still reads 2 of 2.
  expect(projectOf(await usage(emulator.url), CLIENT)?.insert).toEqual({ used: 2, limit: 2, remaining: 0 });
  // The same channel through another project's token is another bucket.
  expect((await startUpload(emulator.url, await accessToken(emulator.url, OTHER))).status).toBe(200);
  // Reads spend the units bucket, not the insert one.
  expect((await channelsList(token)).status).toBe(200);
});

test("the session's PUTs are part of the insert call: a chunked upload costs one insert and no units", async () => {
  const token = await accessToken(emulator.url, CLIENT);
  const started = await startUpload(emulator.url, token);
  const sessionUri = started.headers.get("location")!;
  const half = VIDEO_BYTES.length / 2;
  const first = await fetch(sessionUri, {
    method: "PUT",
    headers: { "content-range": `bytes 0-${half - 1}/${VIDEO_BYTES.length}` },
    body: VIDEO_BYTES.subarray(0, half),
  });
  expect(first.status).toBe(308);
  const query = await fetch(sessionUri, { method: "PUT", headers: { "content-range": `bytes */${VIDEO_BYTES.length}` } });
  expect(query.status).toBe(308);
  const last = await fetch(sessionUri, {
    method: "PUT",
    headers: { "content-range": `bytes ${half}-${VIDEO_BYTES.length - 1}/${VIDEO_BYTES.length}` },
    body: VIDEO_BYTES.subarray(half),
  });
  expect(last.status).toBe(201);
  const project = projectOf(await usage(emulator.url), CLIENT);
  expect(project?.insert.used).toBe(1);
  expect(project?.units.used).toBe(0);
});

test("each read costs its units from the shared bucket; a spent bucket answers 403 and refuses every read", async () => {
  await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { units_per_day: 3 });
  const token = await accessToken(emulator.url, CLIENT);
  const auth = { authorization: `Bearer ${token}` };
  expect((await channelsList(token)).status).toBe(200);
  expect((await fetch(`${emulator.url}/youtube/v3/videoCategories?part=snippet&regionCode=US`, { headers: auth })).status).toBe(200);
  expect((await fetch(`${emulator.url}/youtube/v3/videos?part=status&id=AAAAAAAAAAA`, { headers: auth })).status).toBe(200);
  expect(projectOf(await usage(emulator.url), CLIENT)?.units).toEqual({ used: 3, limit: 3, remaining: 0 });
  await expectQuotaExceeded(await channelsList(token));
  await expectQuotaExceeded(await fetch(`${emulator.url}/youtube/v3/videoCategories?part=snippet&regionCode=US`, { headers: auth }));
  await expectQuotaExceeded(await fetch(`${emulator.url}/youtube/v3/videos?part=status&id=AAAAAAAAAAA`, { headers: auth }));
  // Uploads have their own bucket.
  expect((await startUpload(emulator.url, token)).status).toBe(200);
  // A call without a valid token is refused before any project is charged.
  expect((await fetch(`${emulator.url}/youtube/v3/videoCategories?part=snippet&regionCode=US`)).status).toBe(401);
});

test("the buckets reset at midnight Pacific time on the emulator clock, not at midnight UTC", async () => {
  await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { insert_calls_per_day: 1 });
  // 23:59 PST on 2026-01-15 is 07:59 UTC on 2026-01-16: past UTC midnight, same Pacific day.
  await setClock(emulator.url, { now: "2026-01-16T07:59:00Z" });
  const token = await accessToken(emulator.url, CLIENT);
  expect((await startUpload(emulator.url, token)).status).toBe(200);
  await expectQuotaExceeded(await startUpload(emulator.url, token));
  const report = await usage(emulator.url);
  expect(report.quota_day).toBe("2026-01-15");
  expect(report.next_reset).toBe("2026-01-16T08:00:00.000Z");
  expect(projectOf(report, CLIENT)?.next_reset).toBe("2026-01-16T08:00:00.000Z");

  await setClock(emulator.url, { advance_ms: 60_000 });
  expect((await usage(emulator.url)).quota_day).toBe("2026-01-16");
  expect((await startUpload(emulator.url, token)).status).toBe(200);
  await expectQuotaExceeded(await startUpload(emulator.url, token));
  // Back on the day before, what was spent that day is still spent.
  await setClock(emulator.url, { now: "2026-01-16T07:59:30Z" });
  await expectQuotaExceeded(await startUpload(emulator.url, token));
});

test("the quota day follows daylight saving time: 23 hours in spring, 25 in autumn", async () => {
  await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { insert_calls_per_day: 1 });
  const token = await accessToken(emulator.url, CLIENT);

  // 2026-03-08, spring forward: the day starts 08:00 UTC (PST) and the next at 07:00 UTC (PDT).
  await setClock(emulator.url, { now: "2026-03-08T08:00:00Z" });
  let report = await usage(emulator.url);
  expect(report.quota_day).toBe("2026-03-08");
  expect(report.next_reset).toBe("2026-03-09T07:00:00.000Z");
  expect((await startUpload(emulator.url, token)).status).toBe(200);
  await setClock(emulator.url, { now: "2026-03-09T06:59:59Z" });
  await expectQuotaExceeded(await startUpload(emulator.url, token));
  await setClock(emulator.url, { now: "2026-03-09T07:00:00Z" });
  expect((await startUpload(emulator.url, token)).status).toBe(200);

  // 2026-11-01, fall back: the day starts 07:00 UTC (PDT) and the next at 08:00 UTC (PST).
  await setClock(emulator.url, { now: "2026-11-01T07:00:00Z" });
  report = await usage(emulator.url);
  expect(report.quota_day).toBe("2026-11-01");
  expect(report.next_reset).toBe("2026-11-02T08:00:00.000Z");
  expect((await startUpload(emulator.url, token)).status).toBe(200);
  await setClock(emulator.url, { now: "2026-11-02T07:30:00Z" });
  await expectQuotaExceeded(await startUpload(emulator.url, token));
  await setClock(emulator.url, { now: "2026-11-02T08:00:00Z" });
  expect((await startUpload(emulator.url, token)).status).toBe(200);
});

test("the usage report names every project and channel, and POST /_emulator/reset clears usage, settings and the clock", async () => {
  await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${OTHER}`, { units_per_day: 50, stats_units_per_day: 7 });
  // The hour the clock moves ahead stays inside one quota day: from 20:00 UTC (noon or 13:00 in
  // Pacific time), so the report reads the day of the upload whatever the hour of the run.
  const middayUtc = new Date();
  middayUtc.setUTCHours(20, 0, 0, 0);
  if (middayUtc.getTime() <= Date.now()) middayUtc.setUTCDate(middayUtc.getUTCDate() + 1);
  await setClock(emulator.url, { offset_ms: middayUtc.getTime() - Date.now() });
  const token = await accessToken(emulator.url, CLIENT, "report-channel");
  await upload(emulator.url, token);
  await channelsList(token);
  await setClock(emulator.url, { advance_ms: 3_600_000 });
  const report = await usage(emulator.url);
  expect(Date.parse(report.now) - Date.now()).toBeGreaterThan(3_500_000);
  expect(report.projects).toEqual([
    {
      client_id: CLIENT,
      insert: { used: 1, limit: 100, remaining: 99 },
      units: { used: 1, limit: 10_000, remaining: 9_999 },
      stats: { used: 0, limit: 10_000, remaining: 10_000 },
      next_reset: report.next_reset,
    },
    {
      client_id: OTHER,
      insert: { used: 0, limit: 100, remaining: 100 },
      units: { used: 0, limit: 50, remaining: 50 },
      stats: { used: 0, limit: 7, remaining: 7 },
      next_reset: report.next_reset,
    },
  ]);
  expect(report.channels).toEqual([
    {
      channel: "report-channel",
      channel_id: expect.stringMatching(/^UC[\w-]{22}$/),
      uploads_24h: 1,
      uploaded_here_24h: 1,
      outside_24h: 0,
      limit: 15,
      processing_seconds: 20,
      custom_thumbnails: true,
      default_privacy: "public",
      locks_uploads_private: false,
    },
  ]);

  await emulator.reset();
  const cleared = await usage(emulator.url);
  expect(cleared.projects).toEqual([]);
  expect(cleared.channels).toEqual([]);
  expect(Math.abs(Date.parse(cleared.now) - Date.now())).toBeLessThan(60_000);
  expect((await admin(emulator.url, "GET", "/_emulator/clock")).body).toMatchObject({ offset_ms: 0, real_time: true });
});

test("project settings are validated: bad values are 400 with a message and change nothing", async () => {
  const cases: Array<[string, unknown, RegExp]> = [
    [CLIENT, { insert_calls_per_day: -1 }, /insert_calls_per_day must be a whole number/],
    [CLIENT, { units_per_day: 1.5 }, /units_per_day must be a whole number/],
    [CLIENT, { stats_units_per_day: "lots" }, /stats_units_per_day must be a whole number/],
    [CLIENT, { audited: false }, /audited is gone: since 2 Nov 2026 .*locks_uploads_private/],
    [CLIENT, { quota: 5 }, /unknown keys: quota/],
    [CLIENT, {}, /give at least one of/],
    [CLIENT, "[1]", /body must be a JSON object/],
    [CLIENT, "{not json", /not valid JSON/],
    ["bad%20client", { units_per_day: 5 }, /client id must be/],
  ];
  for (const [client, body, message] of cases) {
    const { status, body: answer } = await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${client}`, body);
    expect(status).toBe(400);
    expect(answer.error).toMatch(message);
  }
  const tooBig = await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { units_per_day: 5, pad: "x".repeat(20_000) });
  expect(tooBig.status).toBe(413);
  expect((await usage(emulator.url)).projects).toEqual([]);
  expect((await admin(emulator.url, "POST", `/_emulator/youtube/projects/${CLIENT}`, { units_per_day: 5 })).status).toBe(405);
});

test("the soak's simulated days move the emulator's quota day and upload window one day each", async () => {
  const env = { EMULATOR_URL: emulator.url };
  await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { insert_calls_per_day: 1 });
  await admin(emulator.url, "PUT", "/_emulator/youtube/channels/soak-channel", { uploads_per_24h: 1 });
  const token = await accessToken(emulator.url, CLIENT, "soak-channel");
  await setEmulatorDay(env, 0);
  const first = (await usage(emulator.url)).quota_day;
  await upload(emulator.url, token);
  await expectQuotaExceeded(await startUpload(emulator.url, token));
  await setEmulatorDay(env, 1);
  const second = await usage(emulator.url);
  expect(Date.parse(`${second.quota_day}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)).toBe(86_400_000);
  expect(second.channels[0]).toMatchObject({ channel: "soak-channel", uploads_24h: 0 });
  expect((await startUpload(emulator.url, token)).status).toBe(200);
});

test("the emulator process takes YouTube's defaults from its environment, and refuses a bad one at start", async () => {
  const dataDir = await tempDir("youtube-limits");
  const running = await spawnEmulatorProcess(await freePort(), dataDir, {
    EMULATOR_YOUTUBE_INSERT_CALLS_PER_DAY: "1000",
    EMULATOR_YOUTUBE_UNITS_PER_DAY: "20",
    EMULATOR_YOUTUBE_CHANNEL_UPLOADS_PER_24H: "500",
  });
  try {
    await upload(running.url, await accessToken(running.url, CLIENT, "env-channel"));
    const report = await usage(running.url);
    expect(projectOf(report, CLIENT)).toMatchObject({ insert: { used: 1, limit: 1000 }, units: { limit: 20 } });
    expect(report.channels[0]).toMatchObject({ channel: "env-channel", limit: 500 });
  } finally {
    await killProcess(running.child, "SIGTERM");
  }
  const refused = spawnSync(process.execPath, ["emulators/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, EMULATOR_PORT: String(await freePort()), EMULATOR_DATA_DIR: dataDir, EMULATOR_YOUTUBE_UNITS_PER_DAY: "lots" },
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain("EMULATOR_YOUTUBE_UNITS_PER_DAY=lots must be a whole number");
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);
