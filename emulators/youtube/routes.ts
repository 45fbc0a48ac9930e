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
 * `GET /youtube/v3/channels?mine=true` answers the token's channel (youtube-channels.ts).
 *
 * Admin: `GET /_emulator/youtube/videos` lists completed uploads.
 */
import { randomBytes } from "node:crypto";
import type { EmulatorContext } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { droppedConnection, jsonResponse } from "../context.ts";
import { channelIdFor } from "../google-oauth/routes.ts";
import { CHANNELS_PATH, listChannels } from "./channels.ts";
import { type UploadSession, YouTubeStore } from "./store.ts";

const UPLOAD_PATH = "/upload/youtube/v3/videos";
const PRIVACY = new Set(["public", "private", "unlisted"]);

const stores = new Map<string, YouTubeStore>();
const storeFor = (ctx: EmulatorContext) => {
  let store = stores.get(ctx.dataDir);
  if (!store) stores.set(ctx.dataDir, store = new YouTubeStore(ctx.dataDir));
  return store;
};

export async function resetYouTube(ctx: EmulatorContext): Promise<void> {
  await storeFor(ctx).reset();
}

function apiError(code: number, reason: string, message: string, extra: Record<string, unknown> = {}): Response {
  const status = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 503: "UNAVAILABLE" }[code] ?? "UNKNOWN";
  return jsonResponse({ error: { code, message, errors: [{ message, domain: "youtube.video", reason, ...extra }], status } }, code,
    code === 401 ? { "www-authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"' } : {});
}

/** The Data API's answer once the project's daily quota is spent (it resets at midnight Pacific time). */
function quotaExceeded(): Response {
  const message = "The request cannot be completed because you have exceeded your quota.";
  return jsonResponse({ error: { code: 403, message, errors: [{ message, domain: "youtube.quota", reason: "quotaExceeded" }], status: "PERMISSION_DENIED" } }, 403);
}

function rateLimited(): Response {
  const message = "The request cannot be completed because you have exceeded your rate limit.";
  return jsonResponse({ error: { code: 429, message, errors: [{ message, domain: "youtube.quota", reason: "rateLimitExceeded" }], status: "RESOURCE_EXHAUSTED" } }, 429);
}

const unauthorized = () =>
  apiError(401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    { location: "Authorization", locationType: "header" });

function validateMetadata(body: unknown): { snippet: Record<string, unknown>; status: Record<string, unknown> } | Response {
  const { snippet = {}, status = {} } = (body ?? {}) as { snippet?: Record<string, unknown>; status?: Record<string, unknown> };
  const title = snippet.title;
  if (typeof title !== "string" || title.trim() === "" || title.length > 100 || /[<>]/.test(title)) {
    return apiError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title.");
  }
  const description = snippet.description ?? "";
  if (typeof description !== "string" || new TextEncoder().encode(description).length > 5000 || /[<>]/.test(description)) {
    return apiError(400, "invalidDescription", "The request metadata specifies an invalid video description.");
  }
  const tags = snippet.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== "string") || tags.join(",").length > 500) {
    return apiError(400, "invalidTags", "The request metadata specifies invalid video keywords.");
  }
  if (snippet.categoryId !== undefined && !/^\d+$/.test(String(snippet.categoryId))) {
    return apiError(400, "invalidCategoryId", "The snippet.categoryId property specifies an invalid category ID.");
  }
  const privacy = status.privacyStatus ?? "public";
  if (typeof privacy !== "string" || !PRIVACY.has(privacy)) {
    return apiError(400, "invalidPrivacyStatus", "The request metadata specifies an invalid privacy status.");
  }
  return { snippet: { ...snippet, description, tags }, status: { ...status, privacyStatus: privacy } };
}

function videoResource(session: UploadSession, videoId: string, publishedAt: string): Record<string, unknown> {
  const snippet = session.snippet;
  const resource: Record<string, unknown> = { kind: "youtube#video", etag: randomBytes(20).toString("base64url"), id: videoId };
  if (session.parts.includes("snippet")) {
    resource.snippet = {
      publishedAt,
      channelId: session.channel_id,
      title: snippet.title,
      description: snippet.description,
      channelTitle: session.channel,
      tags: snippet.tags,
      categoryId: String(snippet.categoryId ?? "22"),
      liveBroadcastContent: "none",
      ...(snippet.defaultLanguage ? { defaultLanguage: snippet.defaultLanguage } : {}),
      localized: { title: snippet.title, description: snippet.description },
    };
  }
  if (session.parts.includes("status")) {
    const madeForKids = session.status.selfDeclaredMadeForKids === true;
    resource.status = {
      uploadStatus: "uploaded",
      privacyStatus: session.status.privacyStatus,
      license: "youtube",
      embeddable: true,
      publicStatsViewable: true,
      madeForKids,
      selfDeclaredMadeForKids: madeForKids,
    };
  }
  return resource;
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
  const fault = ctx.faults.take("youtube", (kind) => kind === "http_503" || kind === "quota_exceeded" || kind === "rate_limited");
  if (fault?.kind === "http_503") return apiError(503, "backendError", "Backend Error");
  if (fault?.kind === "rate_limited") return rateLimited();
  if (fault?.kind === "quota_exceeded") return quotaExceeded();
  const metadata = validateMetadata(await req.json().catch(() => ({})));
  if (metadata instanceof Response) return metadata;

  const session: UploadSession = {
    upload_id: `AEnB2U${randomBytes(30).toString("base64url")}`,
    created_at: new Date().toISOString(),
    channel: token.channel,
    channel_id: channelIdFor(token.channel),
    parts,
    content_type: contentType,
    total: declared === null ? null : Number(declared),
    ...metadata,
  };
  await storeFor(ctx).createSession(session);
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
  const store = storeFor(ctx);
  const notFound = () => apiError(404, "notFound", "The upload session does not exist or has expired. Start a new upload.");

  return await store.withLock(uploadId, async () => {
    const session = await store.getSession(uploadId);
    if (!session) return notFound();
    const range = req.headers.get("content-range");
    const statusQuery = range !== null && /^bytes \*\/(\d+|\*)$/.test(range.trim());
    await slowDown(ctx.faults, "youtube");
    // Quota is charged when an upload starts (videos.insert); a session's PUTs never exceed it.
    const fault = ctx.faults.take("youtube", (kind) => kind !== "quota_exceeded" && (kind !== "drop_after_bytes" || !statusQuery));
    if (fault?.kind === "session_expired") {
      await store.deleteSession(uploadId);
      return notFound();
    }
    if (fault?.kind === "http_503") return apiError(503, "backendError", "Backend Error");
    if (fault?.kind === "rate_limited") return rateLimited();

    if (session.video_id) {
      const video = await store.getVideo(session.video_id);
      if (video) return jsonResponse(video.resource, 200);
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
        return apiError(400, "invalidContentRange",
          `Content-Range starts at byte ${start} but the server has ${received} bytes; query the upload status and resume from byte ${received}.`);
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
      const video = await store.finalize({ ...stored, total }, (id, at) => videoResource(stored, id, at));
      return jsonResponse(video.resource, statusQuery ? 200 : 201);
    }
    return incomplete(now);
  });
}

export async function handleYouTube(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === "/_emulator/youtube/videos" && req.method === "GET") {
    const videos = await storeFor(ctx).listVideos();
    return jsonResponse(videos.map(({ resource: _, ...video }) => video));
  }
  if (url.pathname === CHANNELS_PATH) return listChannels(req, url, ctx);
  if (url.pathname !== UPLOAD_PATH) return undefined;
  if (req.method === "POST") return await startSession(req, url, ctx);
  if (req.method === "PUT" && url.searchParams.has("upload_id")) return await putSession(req, url, ctx);
  return apiError(400, "badRequest", `${req.method} ${UPLOAD_PATH} needs uploadType=resumable (POST) or an upload_id (PUT).`);
}
