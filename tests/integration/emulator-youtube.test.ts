import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { createYouTubeAccessTokenSource } from "../../shared/providers/youtube/oauth.ts";
import { queryUploadStatus, startUploadSession, uploadFromOffset, UploadSessionExpiredError } from "../../shared/providers/youtube/resumable-upload.ts";
import { armFault, freePort, killProcess, spawnEmulatorProcess, startTestEmulator, tempDir } from "./fixtures/emulator-harness.ts";

const KIB = 1024;
const CHUNK = 512 * KIB;
let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let videoFile: string;
let videoBytes: Uint8Array;

const metadata = (title: string) => ({
  snippet: { title, description: "How auroras form, in one minute.", tags: ["aurora", "science"], categoryId: "27", defaultLanguage: "en" },
  status: { privacyStatus: "public", selfDeclaredMadeForKids: false },
});
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

interface ListedVideo {
  id: string;
  title: string;
  channel: string;
  size_bytes: number;
  sha256: string;
  path: string;
  uploaded_at: string;
}
async function listVideos(baseUrl: string): Promise<ListedVideo[]> {
  return await (await fetch(`${baseUrl}/_emulator/youtube/videos`)).json() as ListedVideo[];
}

function accessToken(baseUrl: string, refreshToken = "emulator-refresh-sky-facts") {
  return createYouTubeAccessTokenSource({ clientId: "client-1", clientSecret: "secret-1", tokenUrl: `${baseUrl}/token`, refreshToken }).getAccessToken();
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  videoBytes = new Uint8Array(randomBytes(3 * CHUNK + 123_457));
  videoFile = path.join(emulator.dataDir, "source.mp4");
  await writeFile(videoFile, videoBytes);
});
afterAll(() => emulator.stop());
beforeEach(async () => {
  await emulator.reset();
  await writeFile(videoFile, videoBytes);
}, 60_000);

test("a chunked upload completes and the stored file is byte-identical to the source", async () => {
  const token = await accessToken(emulator.url);
  const sessionUri = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: token,
    metadata: metadata("Auroras tonight"),
    contentLength: videoBytes.length,
    contentType: "video/mp4",
  });
  expect(new URL(sessionUri).origin).toBe(emulator.url);
  const progress: number[] = [];
  const video = await uploadFromOffset({
    sessionUri,
    accessToken: token,
    filePath: videoFile,
    contentLength: videoBytes.length,
    offset: 0,
    chunkSize: CHUNK,
    onProgress: (n) => progress.push(n),
  });
  expect(progress).toEqual([CHUNK, 2 * CHUNK, 3 * CHUNK, videoBytes.length]);
  expect(video.kind).toBe("youtube#video");
  expect(video.snippet?.title).toBe("Auroras tonight");
  expect(video.status?.uploadStatus).toBe("uploaded");

  const videos = await listVideos(emulator.url);
  expect(videos).toHaveLength(1);
  expect(videos[0]).toMatchObject({ id: video.id, title: "Auroras tonight", channel: "sky-facts", size_bytes: videoBytes.length, sha256: sha256(videoBytes) });
  expect(videos[0].path.endsWith(".mp4")).toBe(true);
  expect(sha256(new Uint8Array(await readFile(videos[0].path)))).toBe(sha256(videoBytes));

  // Asking again after completion returns the same video, not a new one.
  const status = await queryUploadStatus({ sessionUri, accessToken: token, contentLength: videoBytes.length });
  expect(status).toMatchObject({ complete: true, video: { id: video.id } });
  expect(await listVideos(emulator.url)).toHaveLength(1);
}, 30_000);

test("an upload whose connection drops resumes from the status query's nextByte, ending with one video", async () => {
  const token = await accessToken(emulator.url);
  const sessionUri = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: token,
    metadata: metadata("Dropped then resumed"),
    contentLength: videoBytes.length,
    contentType: "video/mp4",
  });
  await armFault(emulator.url, { service: "youtube", kind: "drop_after_bytes", bytes: 300_000, count: 1 });
  // maxResumes 0: the interruption reaches the caller, as after a crash of the caller itself.
  const interrupted = await uploadFromOffset({
    sessionUri,
    accessToken: token,
    filePath: videoFile,
    contentLength: videoBytes.length,
    offset: 0,
    chunkSize: CHUNK,
    maxResumes: 0,
  }).catch((e) => e);
  expect(interrupted).toBeInstanceOf(ProviderUnavailableError);

  const status = await queryUploadStatus({ sessionUri, accessToken: token, contentLength: videoBytes.length });
  expect(status).toEqual({ complete: false, nextByte: 300_000 });
  const video = await uploadFromOffset({
    sessionUri,
    accessToken: token,
    filePath: videoFile,
    contentLength: videoBytes.length,
    offset: status.complete ? 0 : status.nextByte,
    chunkSize: CHUNK,
  });
  const videos = await listVideos(emulator.url);
  expect(videos).toHaveLength(1);
  expect(videos[0].id).toBe(video.id);
  expect(videos[0].size_bytes).toBe(videoBytes.length);
  expect(videos[0].sha256).toBe(sha256(videoBytes));
}, 30_000);

test("by default a dropped connection is resumed inside the call, from where the server's range ends", async () => {
  const token = await accessToken(emulator.url);
  const sessionUri = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: token,
    metadata: metadata("Resumed in place"),
    contentLength: videoBytes.length,
    contentType: "video/mp4",
  });
  await armFault(emulator.url, { service: "youtube", kind: "drop_after_bytes", bytes: 700_000 - CHUNK, count: 1 });
  const progress: number[] = [];
  await uploadFromOffset({
    sessionUri,
    accessToken: token,
    filePath: videoFile,
    contentLength: videoBytes.length,
    offset: 0,
    chunkSize: CHUNK,
    onProgress: (n) => progress.push(n),
  });
  // The fault hit the first PUT: the server kept 700000 - 512 KiB bytes and the upload went on from there.
  expect(progress[0]).toBe(700_000 - CHUNK);
  expect(progress.at(-1)).toBe(videoBytes.length);
  expect(emulator.logs.some((line) => line.event === "connection_dropped" && line.kept_bytes === 700_000 - CHUNK)).toBe(true);
  const videos = await listVideos(emulator.url);
  expect(videos).toHaveLength(1);
  expect(videos[0].sha256).toBe(sha256(videoBytes));
}, 30_000);

test("a caller resending from a byte the server already has is put back on the server's range", async () => {
  const token = await accessToken(emulator.url);
  const sessionUri = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: token,
    metadata: metadata("Wrong offset"),
    contentLength: videoBytes.length,
    contentType: "video/mp4",
  });
  await armFault(emulator.url, { service: "youtube", kind: "drop_after_bytes", bytes: 4096 });
  await uploadFromOffset({ sessionUri, accessToken: token, filePath: videoFile, contentLength: videoBytes.length, offset: 0, chunkSize: CHUNK, maxResumes: 0 })
    .catch(() => undefined);
  const refused = await uploadFromOffset({
    sessionUri,
    accessToken: token,
    filePath: videoFile,
    contentLength: videoBytes.length,
    offset: 0,
    chunkSize: CHUNK,
    maxResumes: 0,
  }).catch((e) => e);
  expect(refused).toBeInstanceOf(ProviderUnavailableError);
  expect(refused.status).toBe(400);
  const video = await uploadFromOffset({ sessionUri, accessToken: token, filePath: videoFile, contentLength: videoBytes.length, offset: 0, chunkSize: CHUNK });
  const videos = await listVideos(emulator.url);
  expect(videos.map((v) => v.id)).toEqual([video.id]);
  expect(videos[0].sha256).toBe(sha256(videoBytes));
}, 30_000);

test("a 503 on a chunk reaches the caller as retriable, and the upload resumes after a status query", async () => {
  const token = await accessToken(emulator.url);
  const sessionUri = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: token,
    metadata: metadata("Backend hiccup"),
    contentLength: videoBytes.length,
    contentType: "video/mp4",
  });
  await armFault(emulator.url, { service: "youtube", kind: "http_503", count: 1 });
  const error = await uploadFromOffset({
    sessionUri,
    accessToken: token,
    filePath: videoFile,
    contentLength: videoBytes.length,
    offset: 0,
    chunkSize: CHUNK,
    maxResumes: 0,
  }).catch((e) => e);
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  expect(error.status).toBe(503);
  const status = await queryUploadStatus({ sessionUri, accessToken: token, contentLength: videoBytes.length });
  expect(status).toEqual({ complete: false, nextByte: 0 });
  await uploadFromOffset({ sessionUri, accessToken: token, filePath: videoFile, contentLength: videoBytes.length, offset: 0, chunkSize: CHUNK });
  expect((await listVideos(emulator.url)).map((v) => v.title)).toEqual(["Backend hiccup"]);
}, 30_000);

test("a token the server never issued is refused with 401", async () => {
  const error = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: "ya29.not-issued",
    metadata: metadata("Nope"),
    contentLength: 10,
    contentType: "video/mp4",
  }).catch((e) => e);
  expect(error).toBeInstanceOf(ProviderRejectedError);
  expect(error.status).toBe(401);
});

test("a refresh token the server does not know is an invalid_grant rejection", async () => {
  const error = await accessToken(emulator.url, "revoked-token").catch((e) => e);
  expect(error).toBeInstanceOf(ProviderRejectedError);
  expect(error.status).toBe(400);
  expect(error.message).toContain("invalid_grant");
});

test("an expired session is reported as UploadSessionExpiredError", async () => {
  const token = await accessToken(emulator.url);
  const sessionUri = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: token,
    metadata: metadata("Too late"),
    contentLength: videoBytes.length,
    contentType: "video/mp4",
  });
  await armFault(emulator.url, { service: "youtube", kind: "session_expired" });
  const error = await queryUploadStatus({ sessionUri, accessToken: token, contentLength: videoBytes.length }).catch((e) => e);
  expect(error).toBeInstanceOf(UploadSessionExpiredError);
  expect(error.status).toBe(404);
  // Gone for good, not just for one call.
  const again = await queryUploadStatus({ sessionUri, accessToken: token, contentLength: videoBytes.length }).catch((e) => e);
  expect(again).toBeInstanceOf(UploadSessionExpiredError);
});

test("metadata YouTube would refuse is rejected before anything is sent", async () => {
  const before = emulator.logs.length;
  const error = await startUploadSession({
    baseUrl: emulator.url,
    accessToken: "unused",
    metadata: { snippet: { title: "<b>bold</b>" }, status: { privacyStatus: "public" } },
    contentLength: 10,
    contentType: "video/mp4",
  }).catch((e) => e);
  expect(error).toBeInstanceOf(ProviderRejectedError);
  expect(emulator.logs.slice(before).some((line) => line.path === "/upload/youtube/v3/videos")).toBe(false);
});

test("sessions and received bytes survive a killed and restarted emulator process", async () => {
  const dataDir = await tempDir("emulator-restart");
  const port = await freePort();
  let running = await spawnEmulatorProcess(port, dataDir);
  try {
    const token = await accessToken(running.url, "emulator-refresh-crash-channel");
    const sessionUri = await startUploadSession({
      baseUrl: running.url,
      accessToken: token,
      metadata: metadata("Survives a crash"),
      contentLength: videoBytes.length,
      contentType: "video/mp4",
    });
    await armFault(running.url, { service: "youtube", kind: "drop_after_bytes", bytes: 1000 });
    const interrupted = await uploadFromOffset({
      sessionUri,
      accessToken: token,
      filePath: videoFile,
      contentLength: videoBytes.length,
      offset: 0,
      chunkSize: CHUNK,
      maxResumes: 0,
    }).catch((e) => e);
    expect(interrupted).toBeInstanceOf(ProviderUnavailableError);
    await killProcess(running.child, "SIGKILL");

    running = await spawnEmulatorProcess(port, dataDir);
    const status = await queryUploadStatus({ sessionUri, accessToken: token, contentLength: videoBytes.length });
    expect(status).toEqual({ complete: false, nextByte: 1000 });
    const video = await uploadFromOffset({
      sessionUri,
      accessToken: token,
      filePath: videoFile,
      contentLength: videoBytes.length,
      offset: 1000,
      chunkSize: CHUNK,
    });
    const videos = await listVideos(running.url);
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({ id: video.id, channel: "crash-channel", sha256: sha256(videoBytes) });
    expect(running.output()).toContain('"event":"listening"');
  } finally {
    await killProcess(running.child, "SIGTERM");
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);
