/**
 * YouTube Data API v3 `thumbnails.set` (about 50 units), which since 3 Nov 2026 also sets a
 * Short's custom thumbnail:
 *
 *   POST /upload/youtube/v3/thumbnails/set?videoId=ID[&uploadType=media]   Authorization: Bearer
 *   Content-Type: image/jpeg | image/png | application/octet-stream; the body is the image
 *
 * Answers `{kind: "youtube#thumbnailSetResponse", etag, items: [thumbnails]}`, the sizes YouTube
 * derives (`default`, `medium`, `high`) and, for a vertical image, `shortsAspectRatio` at the
 * image's own size. Refusals, in the order checked: 401 without a valid token; 400 `required`
 * without videoId, 400 for another uploadType (only the simple media upload is emulated); an armed
 * `youtube-data` fault; 403 `quotaExceeded` when the project's units cannot pay (nothing charged);
 * then, charged: 413 past 50 MB, 400 `mediaBodyRequired` for an empty body, 400 `invalidImage` for
 * bytes that are neither PNG nor JPEG, 404 `videoNotFound`, 403 `forbidden` for another channel's
 * video or a channel that may not set custom thumbnails (`custom_thumbnails: false`, admin.ts). YouTube applies a Short's thumbnail only once the video's processing has succeeded
 * (rules.ts): one set before that is answered 200 but not applied (`applied: false` in the admin
 * listing), as YouTube's documentation warns. A later call replaces the thumbnail. The image is kept
 * under `<data dir>/youtube/thumbnails/`.
 */
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { BodyTooLargeError, readBoundedBytes } from "../../shared/http/bounded-body.ts";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { apiError, quotaExceeded, unauthorized } from "./errors.ts";
import { chargeApiCall, youtubeFor } from "./state.ts";
import type { ThumbnailRecord } from "./store.ts";

export const THUMBNAILS_SET_PATH = "/upload/youtube/v3/thumbnails/set";
/** The largest thumbnail YouTube takes since Shorts thumbnails came (it was 2 MB before). */
export const MAX_THUMBNAIL_BYTES = 50 * 1024 * 1024;

/** The image's type and size from its header: PNG's IHDR, JPEG's first start-of-frame marker. */
export function imageFacts(bytes: Uint8Array): { mime: "image/png" | "image/jpeg"; width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 24 && png.every((b, i) => bytes[i] === b) && String.fromCharCode(...bytes.subarray(12, 16)) === "IHDR") {
    const width = view.getUint32(16);
    const height = view.getUint32(20);
    return width > 0 && height > 0 ? { mime: "image/png", width, height } : null;
  }
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = view.getUint16(at + 2);
    // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC): height then width after the precision byte.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      if (at + 9 > bytes.length) return null;
      const height = view.getUint16(at + 5);
      const width = view.getUint16(at + 7);
      return width > 0 && height > 0 ? { mime: "image/jpeg", width, height } : null;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    at += 2 + length;
  }
  return null;
}

/** The sizes YouTube serves for a thumbnail it derives from the image, and a Short's own. */
function thumbnailSizes(origin: string, videoId: string, image: { width: number; height: number }): Record<string, unknown> {
  const base = `${origin}/_emulator/youtube/thumbnails/${videoId}`;
  return {
    default: { url: `${base}/default.jpg`, width: 120, height: 90 },
    medium: { url: `${base}/mqdefault.jpg`, width: 320, height: 180 },
    high: { url: `${base}/hqdefault.jpg`, width: 480, height: 360 },
    ...(image.height > image.width ? { shortsAspectRatio: { url: `${base}/shorts.jpg`, width: image.width, height: image.height } } : {}),
  };
}

export async function setThumbnail(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "POST") return apiError(405, "methodNotAllowed", `${req.method} is not allowed on ${THUMBNAILS_SET_PATH}: use POST.`, {}, "global");
  if (!ctx.tokens.verify(req.headers.get("authorization"))) return unauthorized();
  const videoId = url.searchParams.get("videoId") ?? "";
  if (videoId === "") return apiError(400, "required", "Required parameter: videoId", { location: "videoId", locationType: "parameter" }, "global");
  const uploadType = url.searchParams.get("uploadType");
  if (uploadType !== null && uploadType !== "media") {
    return apiError(400, "invalidUploadType", "Only uploadType=media (the image as the whole body) is emulated for thumbnails.set.", {}, "global");
  }
  await slowDown(ctx.faults, "youtube-data");
  const fault = ctx.faults.take("youtube-data");
  if (fault?.kind === "http_503") return apiError(503, "backendError", "Backend Error", {}, "global");
  if (fault?.kind === "quota_exceeded") return quotaExceeded();
  const token = await chargeApiCall(req, ctx, "thumbnails.set");
  if (token instanceof Response) return token;

  let bytes: Uint8Array;
  try {
    bytes = await readBoundedBytes(req, MAX_THUMBNAIL_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return apiError(413, "mediaTooLarge", `Media larger than ${MAX_THUMBNAIL_BYTES} bytes.`, {}, "global");
    return apiError(400, "mediaBodyRequired", "The request does not include the image content.");
  }
  if (bytes.length === 0) return apiError(400, "mediaBodyRequired", "The request does not include the image content.");
  const image = imageFacts(bytes);
  if (!image) return apiError(400, "invalidImage", "The provided image content is invalid: it is neither a PNG nor a JPEG image.");

  const { store, rules } = await youtubeFor(ctx);
  const record = await store.getVideo(videoId);
  if (!record) return apiError(404, "videoNotFound", "The video that you are trying to update cannot be found.");
  if (record.channel !== token.channel) {
    return apiError(403, "forbidden", "The thumbnail can't be set for the specified video. The request might not be properly authorized.");
  }
  if (!rules.customThumbnails(record.channel)) {
    return apiError(403, "forbidden", "The authenticated user doesn't have permissions to upload and set custom video thumbnails.");
  }
  const now = ctx.clock.now();
  const dir = path.join(store.root, "thumbnails");
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${videoId}.${image.mime === "image/png" ? "png" : "jpg"}`);
  await writeFile(file, bytes);
  const thumbnail: ThumbnailRecord = {
    path: file,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    size_bytes: bytes.length,
    mime_type: image.mime,
    width: image.width,
    height: image.height,
    set_at: new Date(now).toISOString(),
    applied: rules.processingDone(record, now),
  };
  // Read again under the write: a videos.update meanwhile keeps its change.
  await store.saveVideo({ ...(await store.getVideo(videoId) ?? record), thumbnail });
  return jsonResponse({ kind: "youtube#thumbnailSetResponse", etag: thumbnail.sha256.slice(0, 27), items: [thumbnailSizes(url.origin, videoId, image)] });
}
