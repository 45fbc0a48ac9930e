/**
 * Meta's upload host (rupload.facebook.com) for an Instagram Reels container created with
 * `upload_type=resumable` (`/ig-api-upload/{version}/{container-id}`) and a Facebook Reel
 * (`/video-upload/{version}/{video-id}`): POST with `Authorization: OAuth <token>`, the header
 * `offset` (where this body starts) and `file_size` (the whole file), the body the file's bytes
 * from `offset` on. Meta keeps the bytes that arrived, so an upload cut off resumes from the
 * offset Graph reports (the container's `video_status`, the Reel's `status.uploading_phase`:
 * `bytes_transferred`). Bytes are sent in parts of `partBytes` (each part a POST from its offset),
 * so a crash loses at most one part and progress is known between parts.
 *
 * The host answers `{success: true}`, or errors in its own shape `{debug_info: {retriable, type,
 * message}}` (thrown as MetaUploadError: NotAuthorizedError, ParameterValidationError, ...).
 */
import { open } from "node:fs/promises";
import { ProviderError } from "../errors.ts";
import { clip, PROVIDER, readJson, send } from "./graph.ts";

/** The upload host refused a part: its error type (`NotAuthorizedError`, `ParameterValidationError`, `ServiceUnavailable`, ...). */
export class MetaUploadError extends ProviderError {
  readonly type: string;

  constructor(status: number, type: string, message: string, retriable: boolean, what: string) {
    super(PROVIDER, `${what}: Meta's upload host answered ${status} ${type}: ${clip(message)}`, {
      status,
      retriable: retriable || status >= 500,
      reason: type,
    });
    this.name = "MetaUploadError";
    this.type = type;
  }
}

/** The upload URL of a product's object: the documented rupload paths, on the configured upload host. */
export function uploadUrl(uploadBaseUrl: string, version: string, kind: "instagram" | "facebook", id: string): string {
  const path = kind === "instagram" ? "ig-api-upload" : "video-upload";
  return new URL(`/${path}/${version}/${encodeURIComponent(id)}`, uploadBaseUrl).toString();
}

/** Default part size: 8 MiB. */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;

/**
 * POSTs the file from `offset` to its end in parts of `partBytes`, each read from the file by
 * range; `onProgress` hears the bytes Meta holds after each part. Returns when the last part is in.
 */
export async function uploadFrom(input: {
  url: string;
  token: string;
  filePath: string;
  fileSize: number;
  offset: number;
  partBytes?: number;
  onProgress?: (heldBytes: number) => void;
  signal?: AbortSignal;
}): Promise<void> {
  const partBytes = input.partBytes ?? DEFAULT_PART_BYTES;
  if (!Number.isSafeInteger(input.offset) || input.offset < 0 || input.offset > input.fileSize) {
    throw new RangeError(`offset ${input.offset} is outside 0..${input.fileSize}`);
  }
  const file = await open(input.filePath, "r");
  try {
    const { size } = await file.stat();
    if (size !== input.fileSize) throw new RangeError(`${input.filePath} has ${size} bytes, the upload ${input.fileSize}`);
    for (let at = input.offset; at < input.fileSize; at += partBytes) {
      const length = Math.min(partBytes, input.fileSize - at);
      const part = new Uint8Array(length);
      const { bytesRead } = await file.read(part, 0, length, at);
      if (bytesRead !== length) throw new RangeError(`${input.filePath} ended before byte ${at + length}`);
      const what = `upload bytes ${at}-${at + length - 1} of ${input.fileSize}`;
      const response = await send(input.url, {
        method: "POST",
        headers: {
          authorization: `OAuth ${input.token}`,
          offset: String(at),
          file_size: String(input.fileSize),
          "content-type": "application/octet-stream",
        },
        body: part,
        signal: input.signal,
      }, what);
      const answer = await readJson(response, what) as
        | { success?: unknown; debug_info?: { retriable?: unknown; type?: unknown; message?: unknown } }
        | undefined;
      if (response.status !== 200 || answer?.success !== true) {
        const info = answer?.debug_info;
        throw new MetaUploadError(
          response.status,
          typeof info?.type === "string" ? info.type : `http_${response.status}`,
          typeof info?.message === "string" ? info.message : "no debug_info in the answer",
          info?.retriable === true,
          what,
        );
      }
      input.onProgress?.(at + length);
    }
  } finally {
    await file.close();
  }
}
