/**
 * The YouTube emulator's per-channel upload cap over a rolling 24 hours, through real HTTP: the
 * default, a cap set per channel, uploads recorded as made elsewhere, the window moving with the
 * emulator clock, the `upload_limit_exceeded` fault, and the admin routes' validation.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { armFault, startTestEmulator } from "./fixtures/emulator-harness.ts";
import { accessToken, admin, errorOf, setClock, startUpload, upload, usage } from "./fixtures/youtube-emulator.ts";

const CLIENT = "cap-1.apps.googleusercontent.com";
const LIMIT_MESSAGE = "The user has exceeded the number of videos they may upload.";
let emulator: Awaited<ReturnType<typeof startTestEmulator>>;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.reset());

async function expectUploadLimitExceeded(response: Response) {
  expect(response.status).toBe(400);
  expect(await errorOf(response)).toMatchObject({
    code: 400,
    message: LIMIT_MESSAGE,
    errors: [{ message: LIMIT_MESSAGE, domain: "youtube.video", reason: "uploadLimitExceeded" }],
  });
}

const channelEntry = async (channel: string) => (await usage(emulator.url)).channels.find((c) => c.channel === channel);

test("by default a channel may upload 15 videos in 24 hours; the 16th start is refused with uploadLimitExceeded", async () => {
  const token = await accessToken(emulator.url, CLIENT, "busy-channel");
  for (let i = 0; i < 15; i++) await upload(emulator.url, token);
  await expectUploadLimitExceeded(await startUpload(emulator.url, token));
  expect(await channelEntry("busy-channel")).toMatchObject({ uploads_24h: 15, uploaded_here_24h: 15, outside_24h: 0, limit: 15 });
  // Refused for the channel, charged to the project: YouTube charges refused calls too.
  expect((await usage(emulator.url)).projects[0]?.insert.used).toBe(16);
  // Another channel of the same project is not capped.
  expect((await startUpload(emulator.url, await accessToken(emulator.url, CLIENT, "quiet-channel"))).status).toBe(200);
});

test("uploads made elsewhere count toward the cap, and the window rolls with the emulator clock", async () => {
  await setClock(emulator.url, { now: "2026-06-10T12:00:00Z" });
  expect((await admin(emulator.url, "PUT", "/_emulator/youtube/channels/shared-channel", { uploads_per_24h: 3 })).body)
    .toEqual({
      channel: "shared-channel",
      channel_id: expect.stringMatching(/^UC/),
      uploads_per_24h: 3,
      processing_seconds: 20,
      custom_thumbnails: true,
      default_privacy: "public",
      locks_uploads_private: false,
    });
  const outside = await admin(emulator.url, "POST", "/_emulator/youtube/channels/shared-channel/outside-uploads", { count: 2, at: "2026-06-10T06:00:00Z" });
  expect(outside.status).toBe(200);
  expect(outside.body).toMatchObject({ channel: "shared-channel", uploads_24h: 2, outside_24h: 2, uploaded_here_24h: 0, limit: 3 });
  // An outside upload older than 24 hours no longer counts.
  await admin(emulator.url, "POST", "/_emulator/youtube/channels/shared-channel/outside-uploads", { count: 5, at: "2026-06-09T11:00:00Z" });

  const token = await accessToken(emulator.url, CLIENT, "shared-channel");
  await upload(emulator.url, token);
  await expectUploadLimitExceeded(await startUpload(emulator.url, token));

  // 06:00 next day: the two outside uploads of 06:00 leave the window (exactly 24 h), ours stays.
  await setClock(emulator.url, { now: "2026-06-11T06:00:00Z" });
  expect(await channelEntry("shared-channel")).toMatchObject({ uploads_24h: 1, outside_24h: 0, uploaded_here_24h: 1 });
  await upload(emulator.url, token);
  await upload(emulator.url, token);
  await expectUploadLimitExceeded(await startUpload(emulator.url, token));

  // Raising the cap lets the channel go on at once.
  await admin(emulator.url, "PUT", "/_emulator/youtube/channels/shared-channel", { uploads_per_24h: 4 });
  expect((await startUpload(emulator.url, token)).status).toBe(200);
});

test("a cap of 0 refuses every upload of the channel, and a project's spent bucket answers before the cap", async () => {
  await admin(emulator.url, "PUT", "/_emulator/youtube/channels/closed-channel", { uploads_per_24h: 0 });
  const token = await accessToken(emulator.url, CLIENT, "closed-channel");
  await expectUploadLimitExceeded(await startUpload(emulator.url, token));
  await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { insert_calls_per_day: 1 });
  const spent = await startUpload(emulator.url, token);
  expect(spent.status).toBe(403);
  expect((await errorOf(spent)).errors[0]?.reason).toBe("quotaExceeded");
});

test("the upload_limit_exceeded fault refuses the next upload start once; the session PUTs of an open upload are untouched", async () => {
  const token = await accessToken(emulator.url, CLIENT, "fault-channel");
  const open = await startUpload(emulator.url, token);
  await armFault(emulator.url, { service: "youtube", kind: "upload_limit_exceeded", count: 1 });
  // A PUT of the session started before does not consume the fault.
  const put = await fetch(open.headers.get("location")!, { method: "PUT", headers: { "content-range": "bytes */65536" } });
  expect(put.status).toBe(308);
  await expectUploadLimitExceeded(await startUpload(emulator.url, token));
  expect((await startUpload(emulator.url, token)).status).toBe(200);
  expect((await admin(emulator.url, "GET", "/_emulator/faults")).body.faults).toEqual([]);
});

test("channel admin inputs are validated with a 400 and a message", async () => {
  const cases: Array<[string, string, unknown, RegExp]> = [
    ["PUT", "/_emulator/youtube/channels/c1", { uploads_per_24h: -2 }, /uploads_per_24h must be a whole number 0\.\.100000/],
    ["PUT", "/_emulator/youtube/channels/c1", { uploads_per_24h: "5" }, /uploads_per_24h must be a whole number/],
    ["PUT", "/_emulator/youtube/channels/c1", { uploads_per_24h: 5, extra: 1 }, /unknown keys: extra/],
    ["PUT", "/_emulator/youtube/channels/bad%2Fname", { uploads_per_24h: 5 }, /the channel must be/],
    ["POST", "/_emulator/youtube/channels/c1/outside-uploads", { count: 0 }, /count must be a whole number 1\.\.1000/],
    ["POST", "/_emulator/youtube/channels/c1/outside-uploads", { count: 1001 }, /count must be a whole number 1\.\.1000/],
    ["POST", "/_emulator/youtube/channels/c1/outside-uploads", { count: 1, at: "yesterday" }, /at must be an ISO 8601 instant/],
    ["POST", "/_emulator/youtube/channels/c1/outside-uploads", { count: 1, at: "2999-01-01T00:00:00Z" }, /at must not be in the future/],
  ];
  for (const [method, path, body, message] of cases) {
    const answer = await admin(emulator.url, method, path, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  }
  expect((await admin(emulator.url, "POST", "/_emulator/youtube/channels/c1", { uploads_per_24h: 1 })).status).toBe(405);
  expect((await admin(emulator.url, "PUT", "/_emulator/youtube/channels/c1/outside-uploads", { count: 1 })).status).toBe(405);
  expect((await usage(emulator.url)).channels).toEqual([]);
});
