/**
 * YouTube Data API v3 resumable upload protocol (as Google documents it for `videos.insert`):
 *
 * 1. `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with
 *    `Authorization: Bearer`, `X-Upload-Content-Length`, `X-Upload-Content-Type` and the JSON
 *    video resource -> 200 with `Location: <session URI>` on this host.
 * 2. `PUT <session URI>` with bytes and `Content-Range: bytes a-b/total` (or the whole file
 *    without Content-Range) -> `308 Resume Incomplete` with `Range: bytes=0-N` while incomplete,
 *    `201 Created` with the video resource when the last byte arrives (200 on later calls).
 * 3. Status query: `PUT <session URI>`, empty body, `Content-Range: bytes *\/total` -> 308 with the
 *    Range received (no Range when nothing arrived), or 200 with the resource when complete.
 *
 * Bytes must continue exactly where the stored range ends; anything else is refused with 400
 * and the client must query the status and resume from there. An unknown or expired session is
 * 404. A bearer token not issued by the emulator's `/token` (or expired) is 401. Session PUTs
 * need no Authorization (the session URI is the credential), but one that is sent must be valid.
 *
 * YouTube's rules (rules.ts, on the emulator clock): starting an upload is one `videos.insert`
 * call of the token's project (its OAuth client): 403 `quotaExceeded` (domain `youtube.quota`)
 * when the project's insert bucket for the Pacific day is spent, and 400 `uploadLimitExceeded`
 * (domain `youtube.video`) when the channel has reached its cap for the last 24 hours; the
 * session's PUTs cost nothing more. The order of checks: token (401), protocol (400), armed faults,
 * the insert bucket (403, nothing charged), then, charged, the metadata (400: not JSON or refused
 * by metadata.ts; 413 past 64 KiB) and the channel's cap (400). An upload completed counts toward
 * its channel's cap. An upload that names no privacy takes the channel's default (public unless
 * set: the creator's account setting); a channel YouTube locks has its uploads read private (rules.ts).
 *
 * Data API calls, charged to the token's project's units: `GET /youtube/v3/channels?mine=true`
 * (channels.ts, 1), `GET /youtube/v3/videos?id=` (videos-list.ts, 1), `PUT /youtube/v3/videos`
 * (videos-update.ts, 50), `GET /youtube/v3/videoCategories` (categories.ts, 1),
 * `POST /upload/youtube/v3/thumbnails/set?videoId=` (thumbnails.ts, 50); and to its
 * `videos.batchGetStats` bucket: `GET /youtube/v3/videos:batchGetStats?id=` (batch-get-stats.ts, 1).
 *
 * Admin: `/_emulator/youtube/...` (admin.ts): completed uploads, usage, project and channel settings.
 */
import { randomBytes } from "node:crypto";
import { isBodyTooLargeError, readBoundedText } from "../../shared/http/bounded-body.ts";
import type { EmulatorContext } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { droppedConnection, jsonResponse } from "../context.ts";
import { channelIdFor } from "../google-oauth/routes.ts";
import { handleYouTubeAdmin } from "./admin.ts";
import { CATEGORIES_PATH, listVideoCategories } from "./categories.ts";
import { CHANNELS_PATH, listChannels } from "./channels.ts";
import { apiError, quotaExceeded, rateLimited, unauthorized, uploadLimitExceeded } from "./errors.ts";
import { resourceAt, validateMetadata, videoResource } from "./metadata.ts";
import { youtubeFor } from "./state.ts";
import type { UploadSession } from "./store.ts";
import { listVideos, VIDEOS_PATH } from "./videos-list.ts";
import { BATCH_GET_STATS_PATH, batchGetStats } from "./batch-get-stats.ts";
import { setThumbnail, THUMBNAILS_SET_PATH } from "./thumbnails.ts";
import { updateVideo } from "./videos-update.ts";

export { resetYouTube } from "./state.ts";

const UPLOAD_PATH = "/upload/youtube/v3/videos";
/** The metadata of an upload start: a title, a 5000-byte description, tags; far below this. */
const MAX_METADATA_BYTES = 64 * 1024;

/** The metadata JSON of an upload start (none reads as `{}`); too big or not JSON is refused. */
async function readMetadata(req: Request): Promise<unknown | Response> {
  let text: string;
  try {
    text = await readBoundedText(req, MAX_METADATA_BYTES);
  } catch (error) {
    if (isBodyTooLargeError(error)) {
      return apiError(413, "uploadMetadataTooLarge", `The video metadata is larger than ${MAX_METADATA_BYTES} bytes.`, {}, "global");
    }
    return apiError(400, "parseError", "The video metadata could not be read as UTF-8 text.", {}, "global");
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return apiError(400, "parseError", "Parse Error: the video metadata is not valid JSON.", {}, "global");
  }
}

async function startSession(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const token = ctx.tokens.verify(req.headers.get("authorization"));
  if (!token) return unauthorized();
  if (url.searchParams.get("uploadType") !== "resumable") {
    return apiError(400, "invalidUploadType", "Only uploadType=resumable is emulated.");
  }
  const parts = (url.searchParams.get("part") ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return apiError(400, "required", "Required parameter: part");
  const declared = req.headers.get("x-upload-content-length");
  if (declared !== null && !/^\d+$/.test(declared)) return apiError(400, "invalidContentLength", "X-Upload-Content-Length must be a byte count.");
  const contentType = req.headers.get("x-upload-content-type") ?? "video/*";
  if (!/^(video\/|application\/octet-stream)/.test(contentType)) {
    return apiError(400, "invalidContentType", `Media type '${contentType}' is not supported for video uploads.`);
  }
  await slowDown(ctx.faults, "youtube");
  const fault = ctx.faults.take("youtube", (kind) => kind === "http_503" || kind === "quota_exceeded" || kind === "rate_limited" || kind === "unauthorized");
  if (fault?.kind === "unauthorized") return unauthorized();
  if (fault?.kind === "http_503") return apiError(503, "backendError", "Backend Error");
  if (fault?.kind === "rate_limited") return rateLimited();
  if (fault?.kind === "quota_exceeded") return quotaExceeded();
  // One videos.insert call of the token's project, charged before the metadata is read: YouTube
  // charges refused requests too. The session's PUTs are part of this call and cost nothing more.
  const { store, rules } = await youtubeFor(ctx);
  const now = ctx.clock.now();
  if (!await rules.charge(token.client_id, "insert", 1, now)) return quotaExceeded();
  const body = await readMetadata(req);
  if (body instanceof Response) return body;
  const privacy = rules.channelPrivacy(token.channel);
  const metadata = validateMetadata(body, now, privacy.default_privacy);
  if (metadata instanceof Response) return metadata;
  if (
    ctx.faults.take("youtube", (kind) => kind === "upload_limit_exceeded") || rules.uploadsInWindow(token.channel, now).total >= rules.channelCap(token.channel)
  ) {
    return uploadLimitExceeded();
  }

  const session: UploadSession = {
    upload_id: `AEnB2U${randomBytes(30).toString("base64url")}`,
    created_at: new Date().toISOString(),
    channel: token.channel,
    channel_id: channelIdFor(token.channel),
    client_id: token.client_id,
    locked_private: privacy.locks_uploads_private,
    parts,
    content_type: contentType,
    total: declared === null ? null : Number(declared),
    ...metadata,
  };
  await store.createSession(session);
  const location = `${url.origin}${UPLOAD_PATH}?uploadType=resumable&part=${parts.join(",")}&upload_id=${session.upload_id}`;
  return new Response(null, { status: 200, headers: { location, "x-guploader-uploadid": session.upload_id } });
}

function incomplete(received: number): Response {
  return new Response(null, { status: 308, headers: received > 0 ? { range: `bytes=0-${received - 1}` } : {} });
}

async function putSession(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const authorization = req.headers.get("authorization");
  if (authorization !== null && !ctx.tokens.verify(authorization)) return unauthorized();
  const uploadId = url.searchParams.get("upload_id") ?? "";
  const { store, rules } = await youtubeFor(ctx);
  const notFound = () => apiError(404, "notFound", "The upload session does not exist or has expired. Start a new upload.");

  return await store.withLock(uploadId, async () => {
    const session = await store.getSession(uploadId);
    if (!session) return notFound();
    const range = req.headers.get("content-range");
    const statusQuery = range !== null && /^bytes \*\/(\d+|\*)$/.test(range.trim());
    await slowDown(ctx.faults, "youtube");
    // Quota, the cap and `unauthorized` apply when an upload starts (videos.insert); a session's PUTs never meet them.
    const fault = ctx.faults.take(
      "youtube",
      (kind) => kind !== "quota_exceeded" && kind !== "upload_limit_exceeded" && kind !== "unauthorized" && (kind !== "drop_after_bytes" || !statusQuery),
    );
    if (fault?.kind === "session_expired") {
      await store.deleteSession(uploadId);
      return notFound();
    }
    if (fault?.kind === "http_503") return apiError(503, "backendError", "Backend Error");
    if (fault?.kind === "rate_limited") return rateLimited();

    if (session.video_id) {
      const video = await store.getVideo(session.video_id);
      if (video) return jsonResponse(resourceAt(video, ctx.clock.now()), 200);
    }
    const received = await store.received(session);
    let start = 0;
    let expected: number | undefined;
    let total = session.total;
    if (range !== null) {
      const match = /^bytes (?:(\d+)-(\d+)|\*)\/(\d+|\*)$/.exec(range.trim());
      if (!match) return apiError(400, "invalidContentRange", `Malformed Content-Range: ${range}`);
      const declaredTotal = match[3] === "*" ? null : Number(match[3]);
      if (declaredTotal !== null) {
        if (total !== null && declaredTotal !== total) {
          return apiError(400, "invalidContentRange", `Content-Range total ${declaredTotal} differs from the declared size ${total}.`);
        }
        total = declaredTotal;
      }
      if (match[1] !== undefined) {
        start = Number(match[1]);
        const end = Number(match[2]);
        if (end < start || (total !== null && end >= total)) return apiError(400, "invalidContentRange", `Content-Range ${range} is out of bounds.`);
        expected = end - start + 1;
      }
    } else {
      const length = req.headers.get("content-length");
      expected = length === null ? undefined : Number(length);
      total ??= expected ?? null;
      if (received > 0 && (expected ?? 0) > 0) {
        return apiError(400, "invalidContentRange", `The server has ${received} bytes; resume with Content-Range: bytes ${received}-.../${total}.`);
      }
    }
    if (total !== session.total) await store.saveSession({ ...session, total });

    if (!statusQuery && expected !== undefined && expected > 0) {
      if (start !== received) {
        return apiError(
          400,
          "invalidContentRange",
          `Content-Range starts at byte ${start} but the server has ${received} bytes; query the upload status and resume from byte ${received}.`,
        );
      }
      const length = req.headers.get("content-length");
      if (length !== null && Number(length) !== expected) {
        return apiError(400, "invalidContentRange", `Content-Length ${length} does not match Content-Range ${range}.`);
      }
      const dropAt = fault?.kind === "drop_after_bytes" ? fault.bytes ?? 0 : Infinity;
      const file = await store.openForAppend(session);
      let written = 0;
      let dropped = false;
      try {
        const reader = req.body?.getReader();
        while (reader) {
          const { value, done } = await reader.read();
          if (done) break;
          const room = Math.min(expected - written, dropAt - written);
          const part = value.subarray(0, Math.max(0, room));
          if (part.length > 0) await file.write(part);
          written += part.length;
          if (written >= dropAt) {
            dropped = true;
            await reader.cancel().catch(() => {});
            break;
          }
          if (value.length > part.length) {
            await reader.cancel().catch(() => {});
            return apiError(400, "invalidContentRange", `The body is longer than Content-Range ${range}.`);
          }
        }
      } catch {
        // The client went away mid-body: what arrived is kept, as Google keeps it.
        dropped = true;
      } finally {
        await file.close();
      }
      if (dropped) {
        ctx.log({ ts: new Date().toISOString(), service: "youtube", event: "connection_dropped", upload_id: uploadId, kept_bytes: written });
        return droppedConnection();
      }
    }

    const now = await store.received(session);
    if (total !== null && now >= total) {
      const stored = await store.getSession(uploadId) ?? session;
      const at = ctx.clock.now();
      const { record, created } = await store.finalize(
        { ...stored, total },
        new Date(at).toISOString(),
        (id, publishedAt) => videoResource(stored, id, publishedAt),
      );
      if (created) await rules.recordUpload(record.channel, at);
      return jsonResponse(resourceAt(record, at), statusQuery ? 200 : 201);
    }
    return incomplete(now);
  });
}

export async function handleYouTube(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname.startsWith("/_emulator/youtube/")) return await handleYouTubeAdmin(req, url, ctx);
  if (url.pathname === CHANNELS_PATH) return await listChannels(req, url, ctx);
  if (url.pathname === CATEGORIES_PATH) return await listVideoCategories(req, url, ctx);
  if (url.pathname === VIDEOS_PATH) return req.method === "PUT" ? await updateVideo(req, url, ctx) : await listVideos(req, url, ctx);
  if (url.pathname === BATCH_GET_STATS_PATH) return await batchGetStats(req, url, ctx);
  if (url.pathname === THUMBNAILS_SET_PATH) return await setThumbnail(req, url, ctx);
  if (url.pathname !== UPLOAD_PATH) return undefined;
  if (req.method === "POST") return await startSession(req, url, ctx);
  if (req.method === "PUT" && url.searchParams.has("upload_id")) return await putSession(req, url, ctx);
  return apiError(400, "badRequest", `${req.method} ${UPLOAD_PATH} needs uploadType=resumable (POST) or an upload_id (PUT).`);
}
