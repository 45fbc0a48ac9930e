/**
 * The two Data API calls a Short's custom thumbnail takes (YouTube allows one since 3 Nov 2026, once
 * the video's processing has succeeded), spoken directly with fetch as the upload is (the googleapis
 * client stays out of the Edge bundle):
 *
 * - `videos.list?part=processingDetails&id=` (1 unit): where YouTube's processing of the video is;
 * - `thumbnails.set?videoId=&uploadType=media` (about 50 units): the image as the whole body, JPEG or
 *   PNG, at most 50 MB.
 *
 * Failures throw ProviderError with the HTTP status and Google's reason (data-api-error.ts); a
 * connection that fails is ProviderUnavailableError. Runs in Deno and Bun.
 */
import { z } from "zod";
import { ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";
import { dataApiError } from "./data-api-error.ts";

const PROVIDER = "youtube";
/** The largest thumbnail YouTube takes for a Short. */
export const MAX_THUMBNAIL_BYTES = 50 * 1024 * 1024;

/** What YouTube says of its processing (processingDetails.processingStatus); `gone` when it does not list the video. */
export type ProcessingStatus = "processing" | "succeeded" | "failed" | "terminated" | "gone";

const VideoListAnswer = z.looseObject({
  items: z.array(z.looseObject({
    id: z.string(),
    processingDetails: z.looseObject({ processingStatus: z.string().optional() }).optional(),
  })).default([]),
});

async function send(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ProviderUnavailableError(PROVIDER, `${what}: connection failed: ${message}`, { cause: error });
  }
}

/** Where YouTube's processing of `videoId` is. */
export async function videoProcessingStatus(input: { apiBaseUrl: string; accessToken: string; videoId: string }): Promise<ProcessingStatus> {
  const what = "videos.list (processingDetails)";
  const url = new URL("/youtube/v3/videos", input.apiBaseUrl);
  url.searchParams.set("part", "processingDetails");
  url.searchParams.set("id", input.videoId);
  const response = await send(url.toString(), { headers: { authorization: `Bearer ${input.accessToken}` } }, what);
  if (!response.ok) throw await dataApiError(PROVIDER, response, what);
  const parsed = VideoListAnswer.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new ProviderUnavailableError(PROVIDER, `${what}: the answer is malformed: ${parsed.error.message}`, { status: response.status });
  const item = parsed.data.items.find((video) => video.id === input.videoId);
  if (!item) return "gone";
  const status = item.processingDetails?.processingStatus;
  // No processingDetails on a video listed: YouTube has nothing left to do with it.
  if (status === undefined || status === "succeeded") return "succeeded";
  return status === "failed" || status === "terminated" ? status : "processing";
}

/** Sets `image` (JPEG or PNG) as the video's custom thumbnail. */
export async function setVideoThumbnail(input: {
  uploadBaseUrl: string;
  accessToken: string;
  videoId: string;
  image: Uint8Array;
  contentType: "image/jpeg" | "image/png";
}): Promise<void> {
  const what = "thumbnails.set";
  if (input.image.length === 0 || input.image.length > MAX_THUMBNAIL_BYTES) {
    throw new ProviderRejectedError(PROVIDER, `${what}: the image has ${input.image.length} bytes; YouTube takes 1 byte to ${MAX_THUMBNAIL_BYTES}`);
  }
  const url = new URL("/upload/youtube/v3/thumbnails/set", input.uploadBaseUrl);
  url.searchParams.set("videoId", input.videoId);
  url.searchParams.set("uploadType", "media");
  const response = await send(url.toString(), {
    method: "POST",
    headers: { authorization: `Bearer ${input.accessToken}`, "content-type": input.contentType },
    // Read from a file into an ArrayBuffer: never a shared buffer, which is all the cast says.
    body: input.image as Uint8Array<ArrayBuffer>,
  }, what);
  if (!response.ok) throw await dataApiError(PROVIDER, response, what);
  await response.body?.cancel();
}
