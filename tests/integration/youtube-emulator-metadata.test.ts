/**
 * What the YouTube emulator stores and answers about a video, through real HTTP and through
 * googleapis' own youtube client (as the engine calls it): videoCategories.list, videos.list,
 * scheduled publishing on the emulator clock, synthetic-media and made-for-kids declarations, the
 * category and language fields, the privacy of an upload that names none, and the private lock of a channel.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { youtube } from "@googleapis/youtube";
import { OAuth2Client } from "google-auth-library";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { accessToken, admin, errorOf, metadata, setClock, startUpload, upload } from "./fixtures/youtube-emulator.ts";

const CLIENT = "meta-1.apps.googleusercontent.com";
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

async function listed(id: string): Promise<Record<string, unknown>> {
  const videos = (await admin(emulator.url, "GET", "/_emulator/youtube/videos")).body as Array<Record<string, unknown>>;
  return videos.find((v) => v.id === id)!;
}

async function expectRefused(response: Response, reason: string) {
  expect(response.status).toBe(400);
  const error = await errorOf(response);
  expect(error.errors[0]).toMatchObject({ domain: "youtube.video", reason });
  return error;
}

test("videoCategories.list through googleapis answers the region's categories, assignable or not, and looks up ids", async () => {
  const api = client(await accessToken(emulator.url, CLIENT));
  const { data } = await api.videoCategories.list({ part: ["snippet"], regionCode: "US" });
  expect(data.kind).toBe("youtube#videoCategoryListResponse");
  const byId = new Map((data.items ?? []).map((item) => [item.id, item.snippet]));
  expect(byId.get("22")).toMatchObject({ title: "People & Blogs", assignable: true, channelId: expect.stringMatching(/^UC/) });
  expect(byId.get("27")).toMatchObject({ title: "Education", assignable: true });
  expect(byId.get("28")).toMatchObject({ title: "Science & Technology", assignable: true });
  expect(byId.get("18")).toMatchObject({ title: "Short Movies", assignable: false });
  expect(byId.get("30")).toMatchObject({ title: "Movies", assignable: false });
  for (const id of ["1", "2", "10", "15", "17", "19", "20", "23", "24", "25", "26", "29"]) expect(byId.get(id)?.assignable).toBe(true);
  expect(data.items?.every((item) => item.kind === "youtube#videoCategory")).toBe(true);

  const lookup = await api.videoCategories.list({ part: ["snippet"], id: ["10", "30"] });
  expect(lookup.data.items?.map((item) => [item.id, item.snippet?.title])).toEqual([["10", "Music"], ["30", "Movies"]]);

  const bad = await api.videoCategories.list({ part: ["snippet"], regionCode: "USA" }).catch((e) => e);
  expect(bad.status).toBe(400);
  const token = await accessToken(emulator.url, CLIENT);
  const neither = await fetch(`${emulator.url}/youtube/v3/videoCategories?part=snippet`, { headers: { authorization: `Bearer ${token}` } });
  expect(neither.status).toBe(400);
});

test("videos.list through googleapis reads an uploaded video's snippet and status; another channel sees it only when it is not private", async () => {
  const token = await accessToken(emulator.url, CLIENT, "owner-channel");
  const publicVideo = await upload(emulator.url, token, metadata("Public tides"));
  const privateVideo = await upload(emulator.url, token, metadata("Private tides", { privacyStatus: "private" }));
  const api = client(token);
  const { data } = await api.videos.list({ part: ["snippet", "status"], id: [publicVideo.id, privateVideo.id, "AAAAAAAAAAA"] });
  expect(data.kind).toBe("youtube#videoListResponse");
  expect(data.items?.map((v) => [v.id, v.snippet?.title, v.status?.privacyStatus, v.status?.uploadStatus])).toEqual([
    [publicVideo.id, "Public tides", "public", "uploaded"],
    [privateVideo.id, "Private tides", "private", "uploaded"],
  ]);
  const stranger = client(await accessToken(emulator.url, CLIENT, "other-channel"));
  const seen = await stranger.videos.list({ part: ["status"], id: [publicVideo.id, privateVideo.id] });
  expect(seen.data.items?.map((v) => v.id)).toEqual([publicVideo.id]);
  expect(seen.data.items?.[0]?.snippet).toBeUndefined();

  const noId = await api.videos.list({ part: ["status"] }).catch((e) => e);
  expect(noId.status).toBe(400);
});

test("publishAt needs privacyStatus private and a future time on the emulator clock, else 400 invalidPublishAt", async () => {
  await setClock(emulator.url, { now: "2026-05-01T10:00:00Z" });
  const token = await accessToken(emulator.url, CLIENT);
  await expectRefused(
    await startUpload(emulator.url, token, metadata("Too public", { privacyStatus: "public", publishAt: "2026-05-02T10:00:00Z" })),
    "invalidPublishAt",
  );
  await expectRefused(await startUpload(emulator.url, token, metadata("No privacy", { publishAt: "2026-05-02T10:00:00Z" })), "invalidPublishAt");
  // In the past on the emulator's clock, though in the future on the real one.
  const past = await expectRefused(
    await startUpload(emulator.url, token, metadata("Past", { privacyStatus: "private", publishAt: "2026-05-01T09:59:00Z" })),
    "invalidPublishAt",
  );
  expect(past.message).toContain("past");
  await expectRefused(await startUpload(emulator.url, token, metadata("Not a date", { privacyStatus: "private", publishAt: "tomorrow" })), "invalidPublishAt");
  expect((await startUpload(emulator.url, token, metadata("Scheduled", { privacyStatus: "private", publishAt: "2026-05-01T10:01:00Z" }))).status).toBe(200);
});

test("a scheduled video reads private until its publishAt passes on the emulator clock, then public", async () => {
  await setClock(emulator.url, { now: "2026-05-01T10:00:00Z" });
  const token = await accessToken(emulator.url, CLIENT, "scheduler");
  const video = await upload(emulator.url, token, metadata("At noon", { privacyStatus: "private", publishAt: "2026-05-01T12:00:00+00:00" }));
  expect(video.status).toMatchObject({ privacyStatus: "private", publishAt: "2026-05-01T12:00:00.000Z" });
  const api = client(token);
  const read = async () => (await api.videos.list({ part: ["status"], id: [video.id] })).data.items?.[0]?.status;
  expect(await read()).toMatchObject({ privacyStatus: "private", publishAt: "2026-05-01T12:00:00.000Z" });
  expect(await listed(video.id)).toMatchObject({ privacy_status: "private", requested_privacy_status: "private", publish_at: "2026-05-01T12:00:00+00:00" });

  await setClock(emulator.url, { now: "2026-05-01T12:00:01Z" });
  const published = await read();
  expect(published?.privacyStatus).toBe("public");
  expect(published?.publishAt).toBeUndefined();
  expect(await listed(video.id)).toMatchObject({ privacy_status: "public", publish_at: "2026-05-01T12:00:00+00:00" });
});

test("synthetic media, made-for-kids, category and languages round-trip through the upload, videos.list and the admin listing", async () => {
  const token = await accessToken(emulator.url, CLIENT, "declared");
  const video = await upload(
    emulator.url,
    token,
    metadata("Made with a model", { privacyStatus: "unlisted", containsSyntheticMedia: true, selfDeclaredMadeForKids: false }, {
      categoryId: "28",
      defaultLanguage: "pt-BR",
      defaultAudioLanguage: "pt-BR",
    }),
  );
  expect(video.status).toMatchObject({ privacyStatus: "unlisted", containsSyntheticMedia: true, selfDeclaredMadeForKids: false, madeForKids: false });
  expect(video.snippet).toMatchObject({ categoryId: "28", defaultLanguage: "pt-BR", defaultAudioLanguage: "pt-BR" });
  const { data } = await client(token).videos.list({ part: ["snippet", "status"], id: [video.id] });
  expect(data.items?.[0]?.status?.containsSyntheticMedia).toBe(true);
  expect(data.items?.[0]?.snippet?.defaultAudioLanguage).toBe("pt-BR");
  expect(await listed(video.id)).toMatchObject({
    client_id: CLIENT,
    contains_synthetic_media: true,
    self_declared_made_for_kids: false,
    category_id: "28",
    default_language: "pt-BR",
    default_audio_language: "pt-BR",
    privacy_status: "unlisted",
    locked_private: false,
  });

  const plain = await upload(emulator.url, token, { snippet: { title: "Defaults" }, status: {} });
  expect(plain.status).toMatchObject({ privacyStatus: "public", containsSyntheticMedia: false, selfDeclaredMadeForKids: false });
  expect(plain.snippet.categoryId).toBe("22");
});

test("a category that is not assignable or does not exist is 400 invalidCategoryId; bad declarations are 400 invalidVideoMetadata", async () => {
  const token = await accessToken(emulator.url, CLIENT);
  for (const categoryId of ["30", "18", "99", "abc"]) {
    await expectRefused(await startUpload(emulator.url, token, metadata("Odd category", undefined, { categoryId })), "invalidCategoryId");
  }
  await expectRefused(
    await startUpload(emulator.url, token, metadata("Bad flag", { privacyStatus: "public", containsSyntheticMedia: "yes" })),
    "invalidVideoMetadata",
  );
  await expectRefused(
    await startUpload(emulator.url, token, metadata("Bad kids", { privacyStatus: "public", selfDeclaredMadeForKids: 1 })),
    "invalidVideoMetadata",
  );
  await expectRefused(
    await startUpload(emulator.url, token, metadata("Bad language", undefined, { defaultAudioLanguage: "english please" })),
    "invalidVideoMetadata",
  );
  await expectRefused(await startUpload(emulator.url, token, [1, 2]), "invalidVideoMetadata");
  expect((await admin(emulator.url, "GET", "/_emulator/youtube/videos")).body).toEqual([]);
});

test("since 2 Nov 2026 an unverified project's uploads read as asked, public when none was named; the channel's own default applies to those", async () => {
  const token = await accessToken(emulator.url, CLIENT, "new-channel");
  expect((await upload(emulator.url, token, metadata("Asked public"))).status.privacyStatus).toBe("public");
  expect((await upload(emulator.url, token, metadata("Asked unlisted", { privacyStatus: "unlisted" }))).status.privacyStatus).toBe("unlisted");
  const unnamed = await upload(emulator.url, token, metadata("Named none", {}));
  expect(unnamed.status.privacyStatus).toBe("public");
  expect(await listed(unnamed.id)).toMatchObject({ privacy_status: "public", locked_private: false });

  // The creator's account setting: uploads that name no privacy are private; one that names it keeps it.
  expect((await admin(emulator.url, "PUT", "/_emulator/youtube/channels/new-channel", { default_privacy: "private" })).body)
    .toMatchObject({ channel: "new-channel", default_privacy: "private", locks_uploads_private: false });
  expect((await upload(emulator.url, token, metadata("Named none again", {}))).status.privacyStatus).toBe("private");
  expect((await upload(emulator.url, token, metadata("Named public", { privacyStatus: "public" }))).status.privacyStatus).toBe("public");
  // The old project switch is refused with what replaced it.
  const audited = await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { audited: false });
  expect(audited.status).toBe(400);
  expect(audited.body.error).toContain("locks_uploads_private");
});

test("a channel YouTube locks has its uploads read private whatever was asked; the listing keeps what was asked; other channels are not", async () => {
  await admin(emulator.url, "PUT", "/_emulator/youtube/channels/locked-channel", { locks_uploads_private: true });
  const token = await accessToken(emulator.url, CLIENT, "locked-channel");
  const locked = await upload(emulator.url, token, metadata("Wanted public"));
  expect(locked.status.privacyStatus).toBe("private");
  const { data } = await client(token).videos.list({ part: ["status"], id: [locked.id] });
  expect(data.items?.[0]?.status?.privacyStatus).toBe("private");
  expect(await listed(locked.id)).toMatchObject({ privacy_status: "private", requested_privacy_status: "public", locked_private: true, client_id: CLIENT });

  // A scheduled upload of a locked project never goes public.
  await setClock(emulator.url, { now: "2026-05-01T10:00:00Z" });
  const scheduled = await upload(emulator.url, token, metadata("Scheduled but locked", { privacyStatus: "private", publishAt: "2026-05-01T11:00:00Z" }));
  await setClock(emulator.url, { now: "2026-05-02T10:00:00Z" });
  expect(await listed(scheduled.id)).toMatchObject({ privacy_status: "private", locked_private: true });

  const other = await upload(emulator.url, await accessToken(emulator.url, CLIENT, "free-channel"), metadata("Free channel"));
  expect(other.status.privacyStatus).toBe("public");

  const bad = await admin(emulator.url, "PUT", "/_emulator/youtube/channels/locked-channel", { locks_uploads_private: "yes", default_privacy: "secret" });
  expect(bad.status).toBe(400);
  expect((await admin(emulator.url, "PUT", "/_emulator/youtube/channels/locked-channel", { default_privacy: "secret" })).body.error)
    .toMatch(/default_privacy must be one of public, private, unlisted/);
  expect((await admin(emulator.url, "PUT", "/_emulator/youtube/channels/locked-channel", {})).body.error).toMatch(/give at least one of/);
});

test("the clock admin route sets, offsets, advances and resets the emulator's now, and refuses bad input with 400", async () => {
  await setClock(emulator.url, { now: "2030-01-01T00:00:00Z" });
  let clock = (await admin(emulator.url, "GET", "/_emulator/clock")).body;
  expect(Date.parse(clock.now) - Date.parse("2030-01-01T00:00:00Z")).toBeLessThan(10_000);
  expect(clock.real_time).toBe(false);
  await setClock(emulator.url, { advance_ms: -86_400_000 });
  clock = (await admin(emulator.url, "GET", "/_emulator/clock")).body;
  expect(clock.now.startsWith("2029-12-31")).toBe(true);
  await setClock(emulator.url, { offset_ms: -60_000 });
  expect((await admin(emulator.url, "GET", "/_emulator/clock")).body.offset_ms).toBe(-60_000);
  expect((await admin(emulator.url, "DELETE", "/_emulator/clock")).body).toMatchObject({ offset_ms: 0, real_time: true });

  const cases: Array<[unknown, RegExp]> = [
    [{}, /exactly one of/],
    [{ now: "2030-01-01T00:00:00Z", offset_ms: 5 }, /exactly one of/],
    [{ now: "2030-01-01" }, /ISO 8601 instant/],
    [{ now: 1_900_000_000_000 }, /ISO 8601 instant/],
    [{ offset_ms: 1.5 }, /integer number of milliseconds/],
    [{ advance_ms: "60000" }, /integer number of milliseconds/],
    [{ offset_ms: 10_001 * 86_400_000 }, /at most/],
    [{ speed: 2 }, /unknown keys: speed/],
    ["null", /JSON object/],
  ];
  for (const [body, message] of cases) {
    const answer = await admin(emulator.url, "POST", "/_emulator/clock", body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  }
  expect((await admin(emulator.url, "GET", "/_emulator/clock")).body.offset_ms).toBe(0);
  expect((await admin(emulator.url, "PUT", "/_emulator/clock", { offset_ms: 1 })).status).toBe(405);
});

test("upload metadata that is not JSON is 400 parseError, and metadata past 64 KiB is 413; neither starts a session", async () => {
  const token = await accessToken(emulator.url, CLIENT);
  const post = (body: string) =>
    fetch(`${emulator.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-upload-content-type": "video/mp4" },
      body,
    });
  const garbled = await post('{"snippet": ');
  expect(garbled.status).toBe(400);
  expect((await errorOf(garbled)).errors[0]?.reason).toBe("parseError");
  const huge = await post(JSON.stringify(metadata("Huge", undefined, { description: "x".repeat(70_000) })));
  expect(huge.status).toBe(413);
  expect(huge.headers.get("location")).toBeNull();
});
