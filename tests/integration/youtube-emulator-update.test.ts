/**
 * The YouTube emulator's `videos.update` through googleapis' youtube client: 50 units a call, a
 * part replaced and checked as an upload's metadata is, a schedule set after the upload, the owner
 * only, and a video locked private that stays so.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { youtube } from "@googleapis/youtube";
import { OAuth2Client } from "google-auth-library";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { accessToken, admin, metadata, projectOf, setClock, upload, usage } from "./fixtures/youtube-emulator.ts";

const CLIENT = "update-1.apps.googleusercontent.com";
let emulator: Awaited<ReturnType<typeof startTestEmulator>>;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.reset());

function client(token: string) {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: token });
  return youtube({ version: "v3", auth, rootUrl: `${emulator.url}/` });
}

test("an update of the status part makes a private upload public, costs 50 units, and leaves the snippet alone", async () => {
  const token = await accessToken(emulator.url, CLIENT, "updater");
  const video = await upload(emulator.url, token, metadata("Quietly first", { privacyStatus: "private", containsSyntheticMedia: true }, { categoryId: "28" }));
  const api = client(token);
  const { data } = await api.videos.update({
    part: ["status"],
    requestBody: { id: video.id, status: { privacyStatus: "public", containsSyntheticMedia: true } },
  });
  expect(data.status).toMatchObject({ privacyStatus: "public", containsSyntheticMedia: true });
  expect(data.snippet).toMatchObject({ title: "Quietly first", categoryId: "28" });
  expect(projectOf(await usage(emulator.url), CLIENT)?.units.used).toBe(50);
  const read = await api.videos.list({ part: ["status"], id: [video.id] });
  expect(read.data.items?.[0]?.status?.privacyStatus).toBe("public");

  const renamed = await api.videos.update({ part: ["snippet"], requestBody: { id: video.id, snippet: { title: "Renamed", categoryId: "27" } } });
  expect(renamed.data.snippet).toMatchObject({ title: "Renamed", categoryId: "27" });
  expect(renamed.data.status?.privacyStatus).toBe("public");
  const listed = (await admin(emulator.url, "GET", "/_emulator/youtube/videos")).body[0];
  expect(listed).toMatchObject({ title: "Renamed", category_id: "27", privacy_status: "public", contains_synthetic_media: true });
  expect(projectOf(await usage(emulator.url), CLIENT)?.units.used).toBe(101);
});

test("a schedule set by an update turns the video public when its time passes on the emulator clock", async () => {
  await setClock(emulator.url, { now: "2026-08-01T09:00:00Z" });
  const token = await accessToken(emulator.url, CLIENT, "updater");
  const video = await upload(emulator.url, token, metadata("Later", { privacyStatus: "private" }));
  const api = client(token);
  const past = await api.videos.update({
    part: ["status"],
    requestBody: { id: video.id, status: { privacyStatus: "private", publishAt: "2026-08-01T08:00:00Z" } },
  }).catch((e) => e);
  expect(past.status).toBe(400);
  expect(JSON.stringify(past.response?.data)).toContain("invalidPublishAt");
  const { data } = await api.videos.update({
    part: ["status"],
    requestBody: { id: video.id, status: { privacyStatus: "private", publishAt: "2026-08-01T18:00:00Z" } },
  });
  expect(data.status).toMatchObject({ privacyStatus: "private", publishAt: "2026-08-01T18:00:00.000Z" });
  await setClock(emulator.url, { now: "2026-08-01T18:00:00Z" });
  expect((await api.videos.list({ part: ["status"], id: [video.id] })).data.items?.[0]?.status?.privacyStatus).toBe("public");
  // A later snippet update keeps the passed schedule instead of refusing it.
  const renamed = await api.videos.update({ part: ["snippet"], requestBody: { id: video.id, snippet: { title: "Now out", categoryId: "22" } } });
  expect(renamed.data.status?.privacyStatus).toBe("public");
});

test("only the owner may update; unknown ids are 404; bad parts and categories are 400; a locked video stays private", async () => {
  const token = await accessToken(emulator.url, CLIENT, "owner");
  const video = await upload(emulator.url, token, metadata("Mine"));
  const stranger = client(await accessToken(emulator.url, CLIENT, "stranger"));
  expect((await stranger.videos.update({ part: ["status"], requestBody: { id: video.id, status: { privacyStatus: "private" } } }).catch((e) => e)).status).toBe(
    403,
  );
  const api = client(token);
  expect((await api.videos.update({ part: ["status"], requestBody: { id: "AAAAAAAAAAA", status: { privacyStatus: "private" } } }).catch((e) => e)).status).toBe(
    404,
  );
  expect((await api.videos.update({ part: ["statistics"], requestBody: { id: video.id } }).catch((e) => e)).status).toBe(400);
  const badCategory = await api.videos.update({ part: ["snippet"], requestBody: { id: video.id, snippet: { title: "Mine", categoryId: "30" } } }).catch((e) =>
    e
  );
  expect(badCategory.status).toBe(400);
  expect(JSON.stringify(badCategory.response?.data)).toContain("invalidCategoryId");

  await admin(emulator.url, "PUT", "/_emulator/youtube/channels/owner", { locks_uploads_private: true });
  const locked = await upload(emulator.url, token, metadata("Locked"));
  const { data } = await api.videos.update({ part: ["status"], requestBody: { id: locked.id, status: { privacyStatus: "public" } } });
  expect(data.status?.privacyStatus).toBe("private");
  expect((await admin(emulator.url, "GET", "/_emulator/youtube/videos")).body.find((v: { id: string }) => v.id === locked.id))
    .toMatchObject({ locked_private: true, requested_privacy_status: "public", privacy_status: "private" });
});
