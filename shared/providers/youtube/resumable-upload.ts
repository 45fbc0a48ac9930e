/**
 * YouTube Data API v3 resumable upload, spoken directly with fetch (the googleapis client only
 * uploads in one request). Runs in Deno and Bun.
 *
 * Protocol (Google's "resumable upload" for videos.insert):
 * 1. startUploadSession: POST the metadata with `uploadType=resumable`; the answer's `Location`
 *    is the session URI. The caller stores it BEFORE sending the first byte.
 * 2. uploadFromOffset: PUT chunks with `Content-Range: bytes a-b/total`; `308 Resume Incomplete`
 *    plus `Range: bytes=0-N` means the server has N+1 bytes; 200/201 carries the video resource.
 * 3. queryUploadStatus (after a crash or a dropped connection): PUT with `Content-Range:
 *    bytes *\/total` and no body; resume from the byte after the Range the server reports.
 *
 * Failures: 404/410 on a session -> UploadSessionExpiredError (start a new session); 429/5xx,
 * dropped connections -> ProviderUnavailableError (query the status, then resume); other 4xx ->
 * ProviderRejectedError. uploadFromOffset resumes a few times by itself (see there); past
 * that, resuming is the caller's bounded retry.
 */
import { open } from "node:fs/promises";
import { z } from "zod";
import { ProviderError, ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";
import { dataApiError, googleErrorOf } from "./data-api-error.ts";

const PROVIDER = "youtube";
const CHUNK_UNIT = 256 * 1024;
export const DEFAULT_CHUNK_SIZE = 8 * 1024 * 1024;

/** The session URI no longer exists (expired after about a week, or cancelled): start a new upload. */
export class UploadSessionExpiredError extends ProviderError {
  constructor(message: string, status: number) {
    super(PROVIDER, message, { status, retriable: false });
    this.name = "UploadSessionExpiredError";
  }
}

/** What videos.insert needs to publish a video (the `snippet` and `status` parts). */
export const VideoUploadMetadata = z.object({
  snippet: z.object({
    title: z.string().trim().min(1).max(100).refine((t) => !/[<>]/.test(t), "title must not contain < or >"),
    description: z.string().max(5000).refine((d) => !/[<>]/.test(d), "description must not contain < or >").optional(),
    tags: z.array(z.string().min(1)).refine((tags) => tags.join(",").length <= 500, "tags must total at most 500 characters").optional(),
    categoryId: z.string().regex(/^\d+$/).optional(),
    defaultLanguage: z.string().min(2).optional(),
    defaultAudioLanguage: z.string().min(2).optional(),
  }).strict(),
  status: z.object({
    privacyStatus: z.enum(["public", "private", "unlisted"]),
    selfDeclaredMadeForKids: z.boolean().optional(),
    /** The altered or synthetic content disclosure. */
    containsSyntheticMedia: z.boolean().optional(),
    /** When a private video goes public, ISO 8601 UTC; YouTube takes it only with privacyStatus private. */
    publishAt: z.iso.datetime().optional(),
  }).strict().refine((s) => s.publishAt === undefined || s.privacyStatus === "private", {
    message: "publishAt needs privacyStatus private",
    path: ["publishAt"],
  }),
}).strict();
export type VideoUploadMetadata = z.infer<typeof VideoUploadMetadata>;

/**
 * The video resource YouTube returns when the upload completes. Loose objects on purpose: the
 * API adds fields over time, and only the ones named here are relied on.
 */
const UploadedVideo = z.looseObject({
  kind: z.literal("youtube#video"),
  id: z.string().min(1),
  snippet: z.looseObject({ title: z.string(), channelId: z.string().optional(), publishedAt: z.string().optional() }).optional(),
  status: z.looseObject({ uploadStatus: z.string(), privacyStatus: z.string().optional() }).optional(),
});
type UploadedVideo = z.infer<typeof UploadedVideo>;

type UploadStatus = { complete: true; video: UploadedVideo } | { complete: false; nextByte: number };

async function send(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    // 308 here is "Resume Incomplete", never a redirect to follow.
    return await fetch(url, { ...init, redirect: "manual" });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ProviderUnavailableError(PROVIDER, `${what}: connection failed: ${message}`, { cause: error });
  }
}

async function failure(response: Response, what: string): Promise<ProviderError> {
  if (response.status === 404 || response.status === 410) {
    const { message } = await googleErrorOf(response);
    return new UploadSessionExpiredError(`${what}: upload session not found or expired (${response.status}) ${message}`, response.status);
  }
  // The Data API's error reason (quotaExceeded, uploadLimitExceeded, ...) is what callers act on.
  return await dataApiError(PROVIDER, response, what);
}

async function videoFrom(response: Response, what: string): Promise<UploadedVideo> {
  const parsed = UploadedVideo.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) {
    throw new ProviderUnavailableError(PROVIDER, `${what}: the completed upload's video resource is malformed: ${parsed.error.message}`, {
      status: response.status,
    });
  }
  return parsed.data;
}

/** Next byte to send after a 308: one past the end of `Range: bytes=0-N`, or 0 without Range. */
function nextByteOf(response: Response): number {
  const match = /^bytes=0-(\d+)$/.exec(response.headers.get("range") ?? "");
  return match ? Number(match[1]) + 1 : 0;
}

/** Opens a resumable upload session and returns its URI. */
export async function startUploadSession(input: {
  baseUrl: string;
  accessToken: string;
  metadata: VideoUploadMetadata | Record<string, unknown>;
  contentLength: number;
  contentType: string;
  signal?: AbortSignal;
}): Promise<string> {
  const metadata = VideoUploadMetadata.safeParse(input.metadata);
  if (!metadata.success) throw new ProviderRejectedError(PROVIDER, `invalid video metadata: ${metadata.error.message}`);
  const url = new URL("/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status", input.baseUrl);
  const response = await send(url.toString(), {
    method: "POST",
    headers: {
      authorization: `Bearer ${input.accessToken}`,
      "content-type": "application/json; charset=UTF-8",
      "x-upload-content-length": String(input.contentLength),
      "x-upload-content-type": input.contentType,
    },
    body: JSON.stringify(metadata.data),
    signal: input.signal,
  }, "start upload session");
  if (response.status !== 200 && response.status !== 201) throw await failure(response, "start upload session");
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (!location) throw new ProviderUnavailableError(PROVIDER, "start upload session: no Location header in the answer");
  return new URL(location, input.baseUrl).toString();
}

/** Asks how much of the upload the server has. */
export async function queryUploadStatus(input: {
  sessionUri: string;
  accessToken: string;
  contentLength: number;
  signal?: AbortSignal;
}): Promise<UploadStatus> {
  const what = "query upload status";
  const response = await send(input.sessionUri, {
    method: "PUT",
    headers: { authorization: `Bearer ${input.accessToken}`, "content-range": `bytes */${input.contentLength}` },
    body: new Uint8Array(0),
    signal: input.signal,
  }, what);
  if (response.status === 200 || response.status === 201) return { complete: true, video: await videoFrom(response, what) };
  if (response.status === 308) {
    await response.body?.cancel();
    return { complete: false, nextByte: nextByteOf(response) };
  }
  throw await failure(response, what);
}

/**
 * Sends the file from `offset` to the end in chunks and returns the video resource.
 *
 * `chunkSize` must be a multiple of 256 KiB (Google's rule for every chunk but the last).
 * `onProgress` receives the number of bytes the server has confirmed.
 *
 * When a chunk fails in a way a resume can fix (dropped connection, 429/5xx, or a 400 because
 * the server's range ends elsewhere than this call assumed — a runtime may silently resend a
 * PUT on a fresh connection), the upload asks the server how much it has and continues from
 * there, as Google advises, at most `maxResumes` times (default 3, with 0.2/0.4/0.8 s pauses).
 * Past that it throws ProviderUnavailableError, and the caller resumes later with
 * queryUploadStatus.
 */
export async function uploadFromOffset(input: {
  sessionUri: string;
  accessToken: string;
  filePath: string;
  contentLength: number;
  offset: number;
  chunkSize?: number;
  maxResumes?: number;
  onProgress?: (confirmedBytes: number) => void;
  signal?: AbortSignal;
}): Promise<UploadedVideo> {
  const chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const maxResumes = input.maxResumes ?? 3;
  if (!Number.isInteger(chunkSize) || chunkSize <= 0 || chunkSize % CHUNK_UNIT !== 0) {
    throw new RangeError(`chunkSize must be a positive multiple of ${CHUNK_UNIT} bytes, got ${chunkSize}`);
  }
  if (!Number.isInteger(input.offset) || input.offset < 0 || input.offset > input.contentLength) {
    throw new RangeError(`offset ${input.offset} is outside 0..${input.contentLength}`);
  }
  const what = "upload chunk";
  const status = () =>
    queryUploadStatus({ sessionUri: input.sessionUri, accessToken: input.accessToken, contentLength: input.contentLength, signal: input.signal });
  const file = await open(input.filePath, "r");
  try {
    let position = input.offset;
    let resumes = 0;
    let stalls = 0;
    /** Called after a failed chunk: either returns the byte to continue from, or throws. */
    const resume = async (failure: ProviderError): Promise<number | UploadedVideo> => {
      if (failure instanceof UploadSessionExpiredError) throw failure;
      const rangeMismatch = failure.status === 400;
      if (!failure.retriable && !rangeMismatch) throw failure;
      if (resumes >= maxResumes) {
        if (failure instanceof ProviderUnavailableError) throw failure;
        throw new ProviderUnavailableError(PROVIDER, `${what}: interrupted at byte ${position}; query the status and resume (${failure.message})`, {
          status: failure.status,
          cause: failure,
        });
      }
      resumes += 1;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** resumes));
      let current: UploadStatus;
      try {
        current = await status();
      } catch (error) {
        if (error instanceof ProviderUnavailableError) return resume(error);
        throw error;
      }
      if (current.complete) return current.video;
      // A 400 with the server at the byte this call expected was not a range problem.
      if (rangeMismatch && current.nextByte === position) throw failure;
      return current.nextByte;
    };

    // A zero-length remainder still needs one request: the status query that returns the resource.
    while (true) {
      const length = Math.min(chunkSize, input.contentLength - position);
      let response: Response;
      try {
        if (length === 0) {
          response = await send(input.sessionUri, {
            method: "PUT",
            headers: { authorization: `Bearer ${input.accessToken}`, "content-range": `bytes */${input.contentLength}` },
            body: new Uint8Array(0),
            signal: input.signal,
          }, what);
        } else {
          const chunk = new Uint8Array(length);
          const { bytesRead } = await file.read(chunk, 0, length, position);
          if (bytesRead !== length) throw new RangeError(`${input.filePath} is shorter than contentLength ${input.contentLength}`);
          response = await send(input.sessionUri, {
            method: "PUT",
            headers: {
              authorization: `Bearer ${input.accessToken}`,
              "content-range": `bytes ${position}-${position + length - 1}/${input.contentLength}`,
            },
            body: chunk,
            signal: input.signal,
          }, what);
        }
        if (response.status !== 200 && response.status !== 201 && response.status !== 308) throw await failure(response, what);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        const next = await resume(error);
        if (typeof next !== "number") {
          input.onProgress?.(input.contentLength);
          return next;
        }
        position = next;
        input.onProgress?.(position);
        continue;
      }
      if (response.status === 200 || response.status === 201) {
        const video = await videoFrom(response, what);
        input.onProgress?.(input.contentLength);
        return video;
      }
      await response.body?.cancel();
      const next = nextByteOf(response);
      // The server may keep less than was sent; it says how much, and sending resumes there.
      stalls = next > position ? 0 : stalls + 1;
      if (stalls >= 3) throw new ProviderUnavailableError(PROVIDER, `${what}: no progress past byte ${next} after 3 attempts`);
      position = next;
      input.onProgress?.(position);
    }
  } finally {
    await file.close();
  }
}
