/**
 * The Meta emulator over real HTTP, Instagram Reels publishing, part 1: containers (resumable and
 * video_url, every parameter rule), status_code on the emulator clock (IN_PROGRESS, FINISHED,
 * ERROR for bytes that are no video or outside the Reels limits, EXPIRED) and the rupload host
 * (resume from an offset, repeated bytes, gaps, headers, tokens, hosted files, faults). Publishing,
 * media and insights: meta-emulator-instagram-publishing.test.ts; login and tokens:
 * meta-emulator-login.test.ts; Facebook Reels: meta-emulator-facebook.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import {
  admin,
  advanceClock,
  connect,
  type Connected,
  containerStatus,
  createResumable,
  finishedContainer,
  graph,
  type GraphErrorBody,
  mp4,
  publishContainer,
  registerApp,
  rupload,
  serveFiles,
  setSettings,
  sha256,
  VERSION,
} from "./fixtures/meta-client.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let base: string;
let c: Connected;
const files = serveFiles({ "/reel.mp4": mp4({ durationS: 14, seed: "hosted" }), "/notes.txt": new TextEncoder().encode("not a video at all") });

beforeAll(async () => {
  emulator = await startTestEmulator();
  base = emulator.url;
});
afterAll(async () => {
  await emulator.stop();
  await files.stop();
});
beforeEach(async () => {
  await emulator.reset();
  await registerApp(base);
  c = await connect(base);
  await setSettings(base, { ig_processing_delay_ms: DELAY });
}, 60_000);

const DAY = 86_400_000;
/** The processing delay the tests set: long enough that a check right after an upload sees IN_PROGRESS on a busy machine. */
const DELAY = 10_000;

const resumable = (params: Record<string, string> = {}) => createResumable(base, c, params);
const status = (id: string) => containerStatus(base, c, id);
const publish = (id: string) => publishContainer(base, c, id);
/** A container whose bytes arrived and were processed: FINISHED. */
const finished = (bytes = mp4(), params: Record<string, string> = {}) => finishedContainer(base, c, DELAY, bytes, params);

describe("containers", () => {
  test("a resumable container answers {id, uri}; the uri is the emulator's rupload path; parameters may come as query, form or JSON", async () => {
    for (const as of ["query", "form", "json"] as const) {
      const created = await graph(base, "POST", `${c.igUserId}/media`, { media_type: "REELS", upload_type: "resumable", caption: `via ${as}` }, c.userToken, {
        as,
      });
      expect(created.status, as).toBe(200);
      expect(created.body.id).toMatch(/^\d{17}$/);
      expect(created.body.uri).toBe(`${base}/ig-api-upload/${VERSION}/${created.body.id}`);
      expect(await status(created.body.id)).toMatchObject({
        status_code: "IN_PROGRESS",
        video_status: { uploading_phase: { status: "not_started", bytes_transferred: 0 } },
      });
    }
  });

  test("a video_url is downloaded at once: FINISHED after the processing delay, with the hosted file's bytes", async () => {
    const created = await graph(base, "POST", `${c.igUserId}/media`, {
      media_type: "REELS",
      video_url: files.url("/reel.mp4"),
      caption: "hosted",
      share_to_feed: "false",
      thumb_offset: 1500,
    }, c.userToken);
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual(["id"]);
    expect((await status(created.body.id)).status_code).toBe("IN_PROGRESS");
    await advanceClock(base, DELAY + 1);
    expect(await status(created.body.id)).toMatchObject({
      status_code: "FINISHED",
      status: "Finished: Media has been uploaded and it is ready to be published.",
    });
    const published = await publish(created.body.id);
    expect(published.status).toBe(200);
    const posts = (await admin(base, "GET", "posts")).body.instagram;
    expect(posts).toEqual([
      expect.objectContaining({
        media_id: published.body.id,
        share_to_feed: false,
        thumb_offset: 1500,
        duration_s: 14,
        sha256: sha256(mp4({ durationS: 14, seed: "hosted" })),
      }),
    ]);
  });

  test("a video_url the emulator cannot fetch makes the container ERROR (subcode 2207052) after the delay", async () => {
    const created = await graph(base, "POST", `${c.igUserId}/media`, { media_type: "REELS", video_url: files.url("/missing.mp4") }, c.userToken);
    expect(created.status).toBe(200);
    expect((await status(created.body.id)).status_code).toBe("IN_PROGRESS");
    await advanceClock(base, DELAY + 1);
    expect(await status(created.body.id)).toMatchObject({ status_code: "ERROR", status: "Error: Media upload has failed with error code 2207052" });
    const refused = await publish(created.body.id);
    expect(refused.status).toBe(400);
    expect((refused.body as GraphErrorBody).error).toMatchObject({ code: 9004, error_subcode: 2207052, type: "OAuthException" });
  });

  test("bytes that are no MP4, a file without a video track, and videos outside 3 s..15 min end ERROR 2207026", async () => {
    const notVideo = await graph(base, "POST", `${c.igUserId}/media`, { media_type: "REELS", video_url: files.url("/notes.txt") }, c.userToken);
    const short = await resumable();
    await rupload(short.uri, c.userToken, mp4({ durationS: 2.5 }));
    const long = await resumable();
    await rupload(long.uri, c.userToken, mp4({ durationS: 15 * 60 + 1 }));
    const audioOnly = await resumable();
    await rupload(audioOnly.uri, c.userToken, mp4({ width: 0, height: 0 }));
    const edge = await resumable();
    await rupload(edge.uri, c.userToken, mp4({ durationS: 3, moovLast: true }));
    await advanceClock(base, DELAY + 1);
    for (const id of [notVideo.body.id, short.id, long.id, audioOnly.id]) {
      expect(await status(id), id).toMatchObject({ status_code: "ERROR", status: "Error: Media upload has failed with error code 2207026" });
    }
    const uploads = (await admin(base, "GET", "uploads")).body.containers;
    expect(uploads.find((u: { id: string }) => u.id === notVideo.body.id).verdict.message).toContain("'ftyp'");
    expect(uploads.find((u: { id: string }) => u.id === long.id).verdict.message).toContain("901 s long");
    // Exactly 3 s with moov after mdat is a valid Reel.
    expect((await status(edge.id)).status_code).toBe("FINISHED");
  });

  test("a thumb_offset not below the video's length makes the container ERROR with code 1, subcode 2207057", async () => {
    const container = await resumable({ thumb_offset: "10000" });
    await rupload(container.uri, c.userToken, mp4({ durationS: 10 }));
    await advanceClock(base, DELAY + 1);
    expect((await status(container.id)).status_code).toBe("ERROR");
    const refused = await publish(container.id);
    expect((refused.body as GraphErrorBody).error).toMatchObject({ code: 1, error_subcode: 2207057 });
    expect((refused.body as GraphErrorBody).error.message).toContain("i.e. 10000");
  });

  test("refuses malformed container parameters with code 100", async () => {
    const cases: Array<[Record<string, string>, number | undefined]> = [
      [{ media_type: "VIDEO", video_url: files.url("/reel.mp4") }, 2207023],
      [{ media_type: "IMAGE", image_url: "https://example.com/a.jpg" }, undefined],
      [{ media_type: "REELS" }, undefined],
      [{ media_type: "REELS", video_url: "ftp://example.com/a.mp4" }, undefined],
      [{ media_type: "REELS", upload_type: "resumable", video_url: files.url("/reel.mp4") }, undefined],
      [{ media_type: "REELS", upload_type: "chunked" }, undefined],
      [{ media_type: "REELS", upload_type: "resumable", caption: "x".repeat(2201) }, undefined],
      [{ media_type: "REELS", upload_type: "resumable", caption: Array.from({ length: 31 }, (_, i) => `#t${i}`).join(" ") }, undefined],
      [{ media_type: "REELS", upload_type: "resumable", share_to_feed: "maybe" }, undefined],
      [{ media_type: "REELS", upload_type: "resumable", cover_url: "not a url" }, undefined],
      [{ media_type: "REELS", upload_type: "resumable", thumb_offset: "-5" }, 2207057],
    ];
    for (const [params, subcode] of cases) {
      const answer = await graph(base, "POST", `${c.igUserId}/media`, params, c.userToken);
      expect(answer.status, JSON.stringify(params)).toBe(400);
      expect((answer.body as GraphErrorBody).error, JSON.stringify(params)).toMatchObject({ code: 100, type: "OAuthException" });
      expect((answer.body as GraphErrorBody).error.error_subcode, JSON.stringify(params)).toBe(subcode);
      expect((answer.body as GraphErrorBody).error.fbtrace_id.length).toBeGreaterThan(10);
    }
    expect((await admin(base, "GET", "uploads")).body.containers).toEqual([]);
  });

  test("a container never published is EXPIRED 24 hours after creation and cannot be uploaded to or published", async () => {
    const container = await finished();
    const waiting = await resumable();
    await advanceClock(base, DAY);
    expect((await status(container.id)).status_code).toBe("EXPIRED");
    const refused = await publish(container.id);
    expect((refused.body as GraphErrorBody).error).toMatchObject({ code: -2, error_subcode: 2207020 });
    const late = await rupload(waiting.uri, c.userToken, mp4());
    expect(late.status).toBe(400);
    expect(late.body.debug_info).toMatchObject({ type: "ParameterValidationError", retriable: false });
    expect(late.body.debug_info.message).toContain("expired");
  });

  test("an unknown field on the container is code 100 naming the node type", async () => {
    const container = await resumable();
    const answer = await graph(base, "GET", container.id, { fields: "status_code,media_url" }, c.userToken);
    expect((answer.body as GraphErrorBody).error.message).toBe("(#100) Tried accessing nonexisting field (media_url) on node type (ShadowIGMediaBuilder)");
  });
});

describe("the rupload host", () => {
  test("an upload cut short resumes from bytes_transferred; bytes sent again are accepted, not stored twice; a gap is refused", async () => {
    const bytes = mp4({ durationS: 20, padBytes: 60_000 });
    const container = await resumable();
    expect((await rupload(container.uri, c.userToken, bytes, 0, { body: bytes.subarray(0, 20_000) })).body).toEqual({ success: true });
    expect((await status(container.id)).video_status.uploading_phase).toEqual({ status: "in_progress", bytes_transferred: 20_000 });

    const gap = await rupload(container.uri, c.userToken, bytes, 25_000);
    expect(gap.status).toBe(400);
    expect(gap.body.debug_info).toMatchObject({ type: "ParameterValidationError", retriable: false });
    expect(gap.body.debug_info.message).toContain("resume from offset 20000");

    // Resending from 10,000 repeats 10,000 bytes already stored, then continues.
    expect((await rupload(container.uri, c.userToken, bytes, 10_000, { body: bytes.subarray(10_000, 40_000) })).body).toEqual({ success: true });
    expect((await status(container.id)).video_status.uploading_phase.bytes_transferred).toBe(40_000);
    expect((await rupload(container.uri, c.userToken, bytes, 40_000)).body).toEqual({ success: true });
    expect((await status(container.id)).video_status).toEqual({
      uploading_phase: { status: "complete", bytes_transferred: bytes.length },
      processing_phase: { status: "in_progress" },
    });
    // A repeat after completion changes nothing.
    expect((await rupload(container.uri, c.userToken, bytes, 0)).body).toEqual({ success: true });
    await advanceClock(base, DELAY + 1);
    const published = await publish(container.id);
    expect(published.status).toBe(200);
    const [post] = (await admin(base, "GET", "posts")).body.instagram;
    expect(post).toMatchObject({ sha256: sha256(bytes), size_bytes: bytes.length, duration_s: 20 });
  });

  test("refuses a missing or malformed offset/file_size, a changed file_size, a body past file_size, a video_url container", async () => {
    const bytes = mp4();
    const container = await resumable();
    const noOffset = await fetch(container.uri, {
      method: "POST",
      headers: { authorization: `OAuth ${c.userToken}`, file_size: String(bytes.length) },
      body: bytes,
    });
    expect(noOffset.status).toBe(400);
    expect(((await noOffset.json()) as { debug_info: { message: string } }).debug_info.message).toBe(
      "HeaderValuePredicate: Header Offset not convertable to unsigned long",
    );
    expect((await rupload(container.uri, c.userToken, bytes, 0, { fileSize: 0 })).status).toBe(400);
    expect((await rupload(container.uri, c.userToken, bytes, 0, { body: bytes.subarray(0, 100) })).status).toBe(200);
    const changed = await rupload(container.uri, c.userToken, bytes, 100, { fileSize: bytes.length + 1 });
    expect(changed.body.debug_info.message).toContain("differs from");
    const tooLong = await rupload(container.uri, c.userToken, bytes, 100, { body: new Uint8Array(bytes.length) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.debug_info.message).toContain("runs past file_size");
    expect((await status(container.id)).video_status.uploading_phase.bytes_transferred).toBe(100);

    const hosted = await graph(base, "POST", `${c.igUserId}/media`, { media_type: "REELS", video_url: files.url("/reel.mp4") }, c.userToken);
    const wrongKind = await rupload(`${base}/ig-api-upload/${VERSION}/${hosted.body.id}`, c.userToken, bytes);
    expect(wrongKind.body.debug_info.message).toContain("upload_type=resumable");
    const unknown = await rupload(`${base}/ig-api-upload/${VERSION}/17890000000000000`, c.userToken, bytes);
    expect(unknown.status).toBe(404);
    expect(unknown.body.debug_info.type).toBe("NotFoundError");
  });

  test("needs Authorization: OAuth with a live token of the account's user or Page", async () => {
    const bytes = mp4();
    const container = await resumable();
    const none = await fetch(container.uri, { method: "POST", headers: { offset: "0", file_size: String(bytes.length) }, body: bytes });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { debug_info: { type: string } }).debug_info.type).toBe("NotAuthorizedError");
    expect((await rupload(container.uri, "EAAnot-issued", bytes)).body.debug_info.type).toBe("NotAuthorizedError");
    const stranger = await connect(base, "another-creator");
    expect((await rupload(container.uri, stranger.userToken, bytes)).body.debug_info.type).toBe("NotAuthorizedError");
    // The Page token of the linked Page uploads too.
    expect((await rupload(container.uri, c.pageToken, bytes)).body).toEqual({ success: true });
  });

  test("a hosted file through the file_url header is fetched; one that cannot be fetched makes the container ERROR", async () => {
    const good = await resumable();
    const fetched = await fetch(good.uri, { method: "POST", headers: { authorization: `OAuth ${c.userToken}`, file_url: files.url("/reel.mp4") } });
    expect(await fetched.json()).toEqual({ success: true });
    const bad = await resumable();
    await fetch(bad.uri, { method: "POST", headers: { authorization: `OAuth ${c.userToken}`, file_url: files.url("/gone.mp4") } });
    await advanceClock(base, DELAY + 1);
    expect((await status(good.id)).status_code).toBe("FINISHED");
    expect((await status(bad.id)).status).toBe("Error: Media upload has failed with error code 2207052");
  });

  test("drop_after_bytes keeps the first bytes and drops the connection; the upload resumes from there", async () => {
    const bytes = mp4({ padBytes: 30_000 });
    const container = await resumable();
    await emulator.armFault({ service: "meta", kind: "drop_after_bytes", bytes: 12_345 });
    await expect(rupload(container.uri, c.userToken, bytes)).rejects.toThrow();
    const transferred = (await status(container.id)).video_status.uploading_phase.bytes_transferred;
    expect(transferred).toBe(12_345);
    expect((await rupload(container.uri, c.userToken, bytes, transferred)).body).toEqual({ success: true });
    await advanceClock(base, DELAY + 1);
    expect((await publish(container.id)).status).toBe(200);
    expect((await admin(base, "GET", "posts")).body.instagram[0].sha256).toBe(sha256(bytes));
  });

  test("http_503 on an upload answers retriable ServiceUnavailable and stores nothing", async () => {
    const bytes = mp4();
    const container = await resumable();
    await emulator.armFault({ service: "meta", kind: "http_503" });
    const refused = await rupload(container.uri, c.userToken, bytes);
    expect(refused.status).toBe(503);
    expect(refused.body.debug_info).toMatchObject({ type: "ServiceUnavailable", retriable: true });
    expect((await status(container.id)).video_status.uploading_phase.bytes_transferred).toBe(0);
    expect((await rupload(container.uri, c.userToken, bytes)).body).toEqual({ success: true });
  });

  test("container_error makes the container whose bytes complete next ERROR with subcode 2207053", async () => {
    await emulator.armFault({ service: "meta", kind: "container_error" });
    const failed = await resumable();
    await rupload(failed.uri, c.userToken, mp4());
    const fine = await resumable();
    await rupload(fine.uri, c.userToken, mp4());
    await advanceClock(base, DELAY + 1);
    expect((await status(failed.id)).status).toBe("Error: Media upload has failed with error code 2207053");
    expect((await status(fine.id)).status_code).toBe("FINISHED");
  });
});
