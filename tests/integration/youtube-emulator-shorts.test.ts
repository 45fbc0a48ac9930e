/**
 * The YouTube emulator's Shorts calls of Nov 2026, through googleapis' own youtube client and raw
 * HTTP: an upload's processing (videos.list processingDetails on the emulator clock), thumbnails.set
 * (a Short's thumbnail applied only once processing succeeded, 50 units, its refusals) and
 * videos.batchGetStats (real-time counters from a bucket of its own).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { youtube } from "@googleapis/youtube";
import { OAuth2Client } from "google-auth-library";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { imageFacts } from "../../emulators/youtube/thumbnails.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { accessToken, admin, metadata, projectOf, setClock, upload, usage } from "./fixtures/youtube-emulator.ts";

const CLIENT = "shorts-1.apps.googleusercontent.com";
type GoogleError = { error?: { errors?: Array<{ reason?: string }> } };
let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let scratch: string;
let png: Buffer;
let jpeg: Buffer;

beforeAll(async () => {
  emulator = await startTestEmulator();
  scratch = mkdtempSync(join(tmpdir(), "shorts-thumbs-"));
  // Real encoder output: a vertical PNG and JPEG of a Short's size.
  for (const file of ["cover.png", "cover.jpg"]) {
    await runFfmpeg(["-y", "-f", "lavfi", "-i", "color=c=0x336699:s=1080x1920", "-frames:v", "1", join(scratch, file)]);
  }
  png = readFileSync(join(scratch, "cover.png"));
  jpeg = readFileSync(join(scratch, "cover.jpg"));
}, 60_000);
afterAll(async () => {
  await emulator.stop();
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => emulator.reset());

function client(token: string) {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: token });
  return youtube({ version: "v3", auth, rootUrl: `${emulator.url}/` });
}

async function listed(id: string): Promise<Record<string, any>> {
  const videos = (await admin(emulator.url, "GET", "/_emulator/youtube/videos")).body as Array<Record<string, any>>;
  return videos.find((v) => v.id === id)!;
}

function setRaw(token: string, videoId: string, body: Uint8Array, contentType = "image/png"): Promise<Response> {
  return fetch(`${emulator.url}/upload/youtube/v3/thumbnails/set?videoId=${videoId}&uploadType=media`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": contentType },
    body,
  });
}

test("the image header reader knows PNG and JPEG sizes and refuses anything else", () => {
  expect(imageFacts(png)).toEqual({ mime: "image/png", width: 1080, height: 1920 });
  expect(imageFacts(jpeg)).toEqual({ mime: "image/jpeg", width: 1080, height: 1920 });
  expect(imageFacts(new TextEncoder().encode("GIF89a not an image we take"))).toBeNull();
  expect(imageFacts(png.subarray(0, 20))).toBeNull();
});

describe("processing", () => {
  test("videos.list's processingDetails read processing with progress, then succeeded once the channel's processing time passed", async () => {
    await setClock(emulator.url, { now: "2026-11-10T10:00:00Z" });
    await admin(emulator.url, "PUT", "/_emulator/youtube/channels/slow-channel", { processing_seconds: 600 });
    const token = await accessToken(emulator.url, CLIENT, "slow-channel");
    const video = await upload(emulator.url, token, metadata("Processing"));
    const read = async () => (await client(token).videos.list({ part: ["processingDetails"], id: [video.id] })).data.items![0]!.processingDetails!;
    await setClock(emulator.url, { now: "2026-11-10T10:05:00Z" });
    const halfway = await read();
    expect(halfway.processingStatus).toBe("processing");
    expect(Number(halfway.processingProgress?.partsProcessed)).toBeGreaterThan(400);
    expect(Number(halfway.processingProgress?.partsProcessed)).toBeLessThan(600);
    expect(Number(halfway.processingProgress?.timeLeftMs)).toBeGreaterThan(250_000);
    expect((await listed(video.id)).processing_status).toBe("processing");
    await setClock(emulator.url, { now: "2026-11-10T10:10:01Z" });
    expect(await read()).toEqual({ processingStatus: "succeeded" });
    expect((await listed(video.id)).processing_status).toBe("succeeded");
  });
});

describe("thumbnails.set", () => {
  test("through googleapis: set after processing, applied, charged 50 units, with the Short's own size; a second call replaces it", async () => {
    await setClock(emulator.url, { now: "2026-11-10T10:00:00Z" });
    const token = await accessToken(emulator.url, CLIENT, "thumbs-channel");
    const video = await upload(emulator.url, token, metadata("Thumbnail"));
    await setClock(emulator.url, { advance_ms: 21_000 });
    const before = projectOf(await usage(emulator.url), CLIENT)!.units.used;
    // The media methods read rootUrl from the call's own options only.
    const { data } = await client(token).thumbnails.set({ videoId: video.id, media: { mimeType: "image/png", body: Readable.from(png) } }, {
      rootUrl: `${emulator.url}/`,
    });
    expect(data.kind).toBe("youtube#thumbnailSetResponse");
    expect(data.items?.[0]?.default).toMatchObject({ width: 120, height: 90 });
    expect((data.items?.[0] as Record<string, any>).shortsAspectRatio).toMatchObject({ width: 1080, height: 1920 });
    expect(projectOf(await usage(emulator.url), CLIENT)!.units.used).toBe(before + 50);
    const first = (await listed(video.id)).thumbnail;
    expect(first).toMatchObject({ mime_type: "image/png", width: 1080, height: 1920, size_bytes: png.length, applied: true });
    expect(readFileSync(first.path).equals(png)).toBe(true);

    expect((await setRaw(token, video.id, jpeg, "image/jpeg")).status).toBe(200);
    expect((await listed(video.id)).thumbnail).toMatchObject({ mime_type: "image/jpeg", size_bytes: jpeg.length, applied: true });
  });

  test("one set before processing succeeded is answered but not applied, as YouTube warns for Shorts", async () => {
    await setClock(emulator.url, { now: "2026-11-10T10:00:00Z" });
    const token = await accessToken(emulator.url, CLIENT, "early-channel");
    const video = await upload(emulator.url, token, metadata("Too early"));
    expect((await setRaw(token, video.id, png)).status).toBe(200);
    expect((await listed(video.id)).thumbnail).toMatchObject({ applied: false });
    await setClock(emulator.url, { advance_ms: 20_000 });
    expect((await setRaw(token, video.id, png)).status).toBe(200);
    expect((await listed(video.id)).thumbnail).toMatchObject({ applied: true });
  });

  test("refusals: no token, no videoId, another upload type, empty or non-image bodies, unknown or another channel's video, a spent bucket, faults", async () => {
    const token = await accessToken(emulator.url, CLIENT, "owner-channel");
    const video = await upload(emulator.url, token, metadata("Owned"));
    const reason = async (response: Response) => ({ status: response.status, reason: ((await response.json()) as GoogleError).error?.errors?.[0]?.reason });

    expect((await fetch(`${emulator.url}/upload/youtube/v3/thumbnails/set?videoId=${video.id}`, { method: "POST", body: png })).status).toBe(401);
    expect(
      await reason(
        await fetch(`${emulator.url}/upload/youtube/v3/thumbnails/set`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: png }),
      ),
    )
      .toEqual({ status: 400, reason: "required" });
    expect(
      (await fetch(`${emulator.url}/upload/youtube/v3/thumbnails/set?videoId=${video.id}&uploadType=resumable`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: png,
      })).status,
    ).toBe(400);
    expect(await reason(await setRaw(token, video.id, new Uint8Array(0)))).toEqual({ status: 400, reason: "mediaBodyRequired" });
    expect(await reason(await setRaw(token, video.id, new TextEncoder().encode("<svg/>"), "image/svg+xml"))).toEqual({ status: 400, reason: "invalidImage" });
    expect(await reason(await setRaw(token, "AAAAAAAAAAA", png))).toEqual({ status: 404, reason: "videoNotFound" });
    const stranger = await accessToken(emulator.url, CLIENT, "stranger-channel");
    expect(await reason(await setRaw(stranger, video.id, png))).toEqual({ status: 403, reason: "forbidden" });
    await admin(emulator.url, "PUT", "/_emulator/youtube/channels/owner-channel", { custom_thumbnails: false });
    const unverified = await setRaw(token, video.id, png);
    expect(unverified.status).toBe(403);
    expect(((await unverified.json()) as { error: { message: string } }).error.message).toContain("doesn't have permissions");
    await admin(emulator.url, "PUT", "/_emulator/youtube/channels/owner-channel", { custom_thumbnails: true });
    expect((await listed(video.id)).thumbnail).toBeNull();

    await admin(emulator.url, "POST", "/_emulator/faults", { service: "youtube-data", kind: "http_503" });
    expect(await reason(await setRaw(token, video.id, png))).toEqual({ status: 503, reason: "backendError" });
    const spent = projectOf(await usage(emulator.url), CLIENT)!.units.used;
    await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { units_per_day: spent + 49 });
    expect(await reason(await setRaw(token, video.id, png))).toEqual({ status: 403, reason: "quotaExceeded" });
    expect(projectOf(await usage(emulator.url), CLIENT)!.units.used).toBe(spent);
    expect((await listed(video.id)).thumbnail).toBeNull();
  });
});

describe("videos.batchGetStats", () => {
  test("through googleapis: counters grow with the emulator clock, from the project's own bucket, never the units", async () => {
    await setClock(emulator.url, { now: "2026-11-10T10:00:00Z" });
    const token = await accessToken(emulator.url, CLIENT, "stats-channel");
    const first = await upload(emulator.url, token, metadata("Stats one"));
    const second = await upload(emulator.url, token, metadata("Stats two"));
    const api = client(token);
    const read = async () =>
      (await api.videos.batchGetStats({ id: [first.id, second.id, "AAAAAAAAAAA"], part: ["statistics", "snippet", "contentDetails"] })).data;

    const fresh = await read();
    expect(fresh.kind).toBe("youtube#batchGetStatsResponse");
    expect(fresh.items?.map((item) => item.id)).toEqual([first.id, second.id]);
    expect(fresh.items?.[0]?.statistics?.viewCount).toBe("0");
    // Charged to the stats bucket of the quota day, not to the units.
    expect(projectOf(await usage(emulator.url), CLIENT)).toMatchObject({ stats: { used: 1 }, units: { used: 0 } });

    await setClock(emulator.url, { advance_ms: 3 * 86_400_000 });
    const later = await read();
    const views = later.items!.map((item) => Number(item.statistics?.viewCount));
    expect(views.every((v) => v > 0)).toBe(true);
    expect(Number(later.items![0]!.statistics!.likeCount)).toBeLessThanOrEqual(views[0]!);
    expect(later.items![0]!.snippet?.publishTime).toStartWith("2026-11-10T10:00:0");
    expect(later.items![0]!.contentDetails?.duration).toMatch(/^PT(\d+M)?(\d+S)?$/);
    await setClock(emulator.url, { advance_ms: 3 * 86_400_000 });
    const after = (await read()).items!.map((item) => Number(item.statistics?.viewCount));
    expect(after[0]).toBeGreaterThan(views[0]!);
    expect(projectOf(await usage(emulator.url), CLIENT)).toMatchObject({ stats: { used: 1, limit: 10_000 }, units: { used: 0 } });
  });

  test("refusals: no token, no id, more than 50 ids, an unknown part, a spent bucket; another channel's private video is left out", async () => {
    const token = await accessToken(emulator.url, CLIENT, "stats-owner");
    const shown = await upload(emulator.url, token, metadata("Public one"));
    const hidden = await upload(emulator.url, token, metadata("Private one", { privacyStatus: "private" }));
    const url = (query: string) => `${emulator.url}/youtube/v3/videos:batchGetStats?${query}`;
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await fetch(url(`id=${shown.id}&part=statistics`))).status).toBe(401);
    expect((await fetch(url("part=statistics"), auth)).status).toBe(400);
    expect((await fetch(url(`id=${Array.from({ length: 51 }, (_, i) => `v${String(i).padStart(10, "0")}`).join(",")}&part=statistics`), auth)).status).toBe(
      400,
    );
    expect((await fetch(url(`id=${shown.id}&part=fileDetails`), auth)).status).toBe(400);

    const stranger = await accessToken(emulator.url, CLIENT, "stats-stranger");
    const seen = await (await fetch(url(`id=${shown.id},${hidden.id}&part=statistics`), { headers: { authorization: `Bearer ${stranger}` } })).json() as {
      items: Array<{ id: string }>;
    };
    expect(seen.items.map((item: { id: string }) => item.id)).toEqual([shown.id]);

    await admin(emulator.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { stats_units_per_day: 1 });
    const spent = await fetch(url(`id=${shown.id}&part=statistics`), auth);
    expect(spent.status).toBe(403);
    expect(((await spent.json()) as GoogleError).error?.errors?.[0]?.reason).toBe("quotaExceeded");
  });
});
