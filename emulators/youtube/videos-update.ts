/**
 * YouTube Data API v3 `videos.update` (50 units), for a video's `snippet` and `status`:
 *
 *   PUT /youtube/v3/videos?part=status[,snippet]      Authorization: Bearer, body {id, status?, snippet?}
 *
 * Each part named in `part` is replaced by the body's object as YouTube replaces it, checked as an
 * upload's metadata is (metadata.ts: a publishAt must be in the future on the emulator clock and
 * needs privacyStatus private; a category must be assignable); a part not named keeps its values.
 * Answers the video resource as it reads now. Only the channel's own videos may be updated: an
 * unknown id is 404 `videoNotFound`, another channel's video 403 `forbidden`. A video locked private
 * (its channel's uploads are locked by YouTube) stays private whatever the update asks.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson } from "../admin-json.ts";
import { channelIdFor } from "../google-oauth/routes.ts";
import { apiError } from "./errors.ts";
import { resourceAt, validateMetadata, videoResource } from "./metadata.ts";
import { chargeApiCall, youtubeFor } from "./state.ts";
import type { UploadSession, VideoRecord } from "./store.ts";
import { VIDEOS_PATH } from "./videos-list.ts";

const UPDATABLE = new Set(["snippet", "status"]);
const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const MAX_BODY_BYTES = 64 * 1024;

export async function updateVideo(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const token = await chargeApiCall(req, ctx, "videos.update");
  if (token instanceof Response) return token;
  const parts = url.searchParams.getAll("part").flatMap((p) => p.split(",")).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return apiError(400, "required", "Required parameter: part", { location: "part", locationType: "parameter" }, "global");
  const unknown = parts.find((p) => !UPDATABLE.has(p));
  if (unknown) {
    return apiError(
      400,
      "unexpectedPart",
      `The part '${unknown}' cannot be updated through the emulator's ${VIDEOS_PATH} (snippet and status can).`,
      {},
      "youtube.part",
    );
  }
  const body = await readAdminJson(req, MAX_BODY_BYTES);
  if (body instanceof Response) {
    return apiError(
      body.status,
      body.status === 413 ? "uploadMetadataTooLarge" : "parseError",
      "The request body is not a JSON object of at most 64 KiB.",
      {},
      "global",
    );
  }
  if (typeof body.id !== "string" || !VIDEO_ID.test(body.id)) return apiError(400, "invalidVideoMetadata", "The request body must carry the video's id.");

  const { store } = await youtubeFor(ctx);
  const record = await store.getVideo(body.id);
  if (!record) return apiError(404, "videoNotFound", "The video that you are trying to update cannot be found.");
  if (record.channel !== token.channel) return apiError(403, "forbidden", "The video that you are trying to update belongs to another channel.");
  const current = record.resource as { snippet?: Record<string, unknown>; status?: Record<string, unknown> };
  const asked = record.requested_status ?? current.status ?? {};
  // A part not updated keeps its values, a schedule included (even one whose time has passed).
  const { publishAt: _, ...askedUnscheduled } = asked;
  const now = ctx.clock.now();
  const metadata = validateMetadata({
    snippet: parts.includes("snippet") ? body.snippet : current.snippet ?? { title: record.title },
    status: parts.includes("status") ? body.status : askedUnscheduled,
  }, now);
  if (metadata instanceof Response) return metadata;
  if (!parts.includes("status")) metadata.status = asked;

  const session: UploadSession = {
    upload_id: record.id,
    created_at: record.uploaded_at,
    channel: record.channel,
    channel_id: channelIdFor(record.channel),
    parts: Object.keys(record.resource).filter((key) => UPDATABLE.has(key)).concat(parts),
    content_type: "video/mp4",
    total: record.size_bytes,
    locked_private: record.locked_private,
    ...metadata,
  };
  const publishedAt = typeof current.snippet?.publishedAt === "string" ? current.snippet.publishedAt : record.uploaded_at;
  const updated: VideoRecord = {
    ...record,
    title: String(metadata.snippet.title),
    requested_status: metadata.status,
    resource: { ...videoResource(session, record.id, publishedAt), etag: record.resource.etag },
  };
  await store.saveVideo(updated);
  return jsonResponse(resourceAt(updated, now));
}
