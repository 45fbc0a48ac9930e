/**
 * The chunk rules of TikTok's media transfer guide, for a FILE_UPLOAD init and its PUTs (MB here
 * is 1024 * 1024 bytes):
 *
 * - `total_chunk_count` equals `video_size / chunk_size` rounded down;
 * - each chunk is 5 MB to 64 MB, except the final one, which also carries the trailing bytes and
 *   may reach 128 MB;
 * - a video under 5 MB is one chunk whose `chunk_size` equals `video_size`; a video over 64 MB
 *   takes several chunks;
 * - 1 to 1000 chunks, uploaded in order.
 */

export const MB = 1024 * 1024;
const MIN_CHUNK = 5 * MB;
const MAX_CHUNK = 64 * MB;
const MAX_FINAL_CHUNK = 128 * MB;
const MAX_CHUNKS = 1000;

interface Layout {
  video_size: number;
  chunk_size: number;
  total_chunk_count: number;
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 1;

/** The layout declared by `source_info`, or the message of an `invalid_params` refusal. */
export function checkLayout(videoSize: unknown, chunkSize: unknown, totalChunkCount: unknown): Layout | string {
  if (!isCount(videoSize)) return "source_info.video_size must be a positive integer (bytes)";
  if (!isCount(chunkSize)) return "source_info.chunk_size must be a positive integer (bytes)";
  if (!isCount(totalChunkCount)) return "source_info.total_chunk_count must be a positive integer";
  const layout = { video_size: videoSize, chunk_size: chunkSize, total_chunk_count: totalChunkCount };
  if (videoSize < MIN_CHUNK) {
    if (chunkSize !== videoSize || totalChunkCount !== 1) {
      return `a video under 5 MB (${MIN_CHUNK} bytes) is uploaded whole: chunk_size must equal video_size (${videoSize}) and total_chunk_count must be 1`;
    }
    return layout;
  }
  if (chunkSize < MIN_CHUNK || chunkSize > MAX_CHUNK) return `chunk_size must be ${MIN_CHUNK}..${MAX_CHUNK} bytes (5 MB to 64 MB)`;
  const expected = Math.floor(videoSize / chunkSize);
  if (totalChunkCount !== expected) return `total_chunk_count must be video_size / chunk_size rounded down: ${expected}`;
  if (totalChunkCount > MAX_CHUNKS) return `at most ${MAX_CHUNKS} chunks`;
  if (videoSize > MAX_CHUNK && totalChunkCount < 2) return "a video over 64 MB must be uploaded in several chunks";
  const final = finalChunkSize(layout);
  if (final > MAX_FINAL_CHUNK) return `the final chunk would be ${final} bytes, over 128 MB (${MAX_FINAL_CHUNK} bytes)`;
  return layout;
}

function finalChunkSize(layout: Layout): number {
  return layout.video_size - (layout.total_chunk_count - 1) * layout.chunk_size;
}

/** Byte range (inclusive) of chunk `index` (0-based). */
export function chunkRange(layout: Layout, index: number): { first: number; last: number } {
  const first = index * layout.chunk_size;
  const last = index === layout.total_chunk_count - 1 ? layout.video_size - 1 : first + layout.chunk_size - 1;
  return { first, last };
}

/** The chunk whose range is exactly `first..last`, or undefined when the range is no chunk of the layout. */
export function chunkAt(layout: Layout, first: number, last: number): number | undefined {
  if (first % layout.chunk_size !== 0) return undefined;
  const index = first / layout.chunk_size;
  if (index >= layout.total_chunk_count) return undefined;
  const range = chunkRange(layout, index);
  return range.last === last ? index : undefined;
}
