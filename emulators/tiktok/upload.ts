/**
 * TikTok's upload URL for a FILE_UPLOAD publish (the media transfer guide): `PUT <upload_url>` with
 * `Content-Type: video/mp4` (or video/quicktime, video/webm), `Content-Length` and
 * `Content-Range: bytes <first>-<last>/<video_size>`, one chunk of the layout declared at init
 * (chunks.ts) per PUT, in order. The upload URL is the credential: no Authorization is needed.
 *
 * - 206 (empty body) when a chunk that is not the last one is stored; 201 once every byte arrived.
 * - A chunk already received is answered the same way (206, or 201 when the upload is complete)
 *   without reading or storing it again.
 * - 400 `invalid_params`: Content-Range missing or malformed, its total not the declared
 *   video_size, Content-Length missing or not the range's length, a body shorter or longer than
 *   declared (nothing of it is kept), a content type that is not a video.
 * - 416 Range Not Satisfiable (with `Content-Range: bytes *\/<video_size>`): a range that is no
 *   chunk of the declared layout, or a chunk sent before the ones preceding it arrived. The error
 *   message names the chunk expected next.
 * - 404 for an upload id that no init issued. A body is never read past the range it declared.
 * - Faults (`tiktok`): `http_503`/`internal_error` answer 503/500 and store nothing; `slow`
 *   delays; `fail_processing`, armed when the last byte arrives, makes the publish FAILED.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { chunkAt, chunkRange } from "./chunks.ts";
import { apiError, logId } from "./errors.ts";
import { FAULT_FAIL_REASON } from "./publish.ts";
import { tiktokFor } from "./state.ts";
import { postIdFor, type Publish } from "./store.ts";

const VIDEO_TYPES = ["video/mp4", "video/quicktime", "video/webm"];

function rangeNotSatisfiable(publish: Publish, message: string): Response {
  return jsonResponse({ error: { code: "invalid_params", message, log_id: logId() } }, 416, { "content-range": `bytes */${publish.video_size}` });
}

function accepted(publish: Publish): Response {
  return new Response(null, { status: publish.chunks_received >= publish.total_chunk_count ? 201 : 206 });
}

/** Reads exactly `expected` bytes of the body into the publish's file; false (and nothing kept) when the body is not that long. */
async function appendChunk(req: Request, publish: Publish, expected: number, ctx: EmulatorContext): Promise<"ok" | "short" | "long"> {
  const store = await tiktokFor(ctx);
  const before = await store.receivedBytes(publish.publish_id);
  const file = await store.openForAppend(publish.publish_id);
  let written = 0;
  let outcome: "ok" | "short" | "long" = "ok";
  try {
    const reader = req.body?.getReader();
    while (reader) {
      const { value, done } = await reader.read();
      if (done) break;
      if (written + value.length > expected) {
        outcome = "long";
        await reader.cancel().catch(() => {});
        break;
      }
      await file.write(value);
      written += value.length;
    }
  } catch {
    outcome = "short";
  } finally {
    await file.close();
  }
  if (outcome === "ok" && written !== expected) outcome = "short";
  if (outcome !== "ok") await store.truncate(publish.publish_id, before);
  return outcome;
}

export async function handleUpload(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "PUT") return apiError(405, "invalid_params", "Upload chunks with PUT.");
  const store = await tiktokFor(ctx);
  const uploadId = url.searchParams.get("upload_id") ?? "";
  return await store.withLock(uploadId, async () => {
    const publish = store.getPublish(uploadId);
    if (!publish) return apiError(404, "invalid_params", "The upload URL is unknown: initialize the post again.");
    const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!VIDEO_TYPES.includes(type)) return apiError(400, "invalid_params", `Content-Type must be one of ${VIDEO_TYPES.join(", ")}.`);
    const range = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15})$/.exec((req.headers.get("content-range") ?? "").trim());
    if (!range) return apiError(400, "invalid_params", "Content-Range must be bytes {FIRST_BYTE}-{LAST_BYTE}/{TOTAL_BYTE_LENGTH}.");
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (total !== publish.video_size) {
      return apiError(400, "invalid_params", `Content-Range total ${total} is not the video_size declared at init (${publish.video_size}).`);
    }
    if (last < first) return apiError(400, "invalid_params", `Content-Range ${first}-${last} ends before it starts.`);
    const length = req.headers.get("content-length");
    if (length === null || !/^\d{1,15}$/.test(length) || Number(length) !== last - first + 1) {
      return apiError(400, "invalid_params", `Content-Length must be the chunk's size, ${last - first + 1} bytes.`);
    }
    const next = publish.chunks_received < publish.total_chunk_count ? chunkRange(publish, publish.chunks_received) : undefined;
    const expectedNext = next
      ? `the next chunk is #${publish.chunks_received + 1} of ${publish.total_chunk_count}: bytes ${next.first}-${next.last}/${publish.video_size}`
      : "every chunk has arrived";
    const index = chunkAt(publish, first, last);
    if (index === undefined) {
      return rangeNotSatisfiable(
        publish,
        `bytes ${first}-${last} is not a chunk of the layout declared at init (chunk_size ${publish.chunk_size}, ${publish.total_chunk_count} chunks); ${expectedNext}.`,
      );
    }
    // A chunk already stored: answered as before, not stored twice.
    if (index < publish.chunks_received) return accepted(publish);
    if (index > publish.chunks_received) return rangeNotSatisfiable(publish, `chunks must be uploaded in order; ${expectedNext}.`);

    await slowDown(ctx.faults, "tiktok");
    const fault = ctx.faults.take("tiktok", (kind) => kind === "http_503" || kind === "internal_error");
    if (fault?.kind === "http_503") return apiError(503, "internal_error", "Service unavailable, please retry the chunk.");
    if (fault?.kind === "internal_error") return apiError(500, "internal_error", "Something went wrong on TikTok's side; please retry the chunk.");

    const outcome = await appendChunk(req, publish, last - first + 1, ctx);
    if (outcome === "long") return apiError(400, "invalid_params", `The body is longer than Content-Range ${first}-${last}; nothing of it was kept.`);
    if (outcome === "short") return apiError(400, "invalid_params", `The body is shorter than Content-Range ${first}-${last}; nothing of it was kept.`);
    const updated: Publish = { ...publish, chunks_received: publish.chunks_received + 1 };
    if (updated.chunks_received === updated.total_chunk_count) {
      updated.uploaded_at = ctx.clock.now();
      updated.sha256 = await store.sha256(publish.publish_id);
      updated.post_id = postIdFor(publish.publish_id);
      if (ctx.faults.take("tiktok", (kind) => kind === "fail_processing")) updated.fail_reason = FAULT_FAIL_REASON;
    }
    await store.savePublish(updated);
    return accepted(updated);
  });
}
