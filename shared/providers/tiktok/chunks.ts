/**
 * How a video is cut into chunks for TikTok's FILE_UPLOAD transfer (Content Posting API, "Media
 * Transfer Guide", chunk restrictions):
 * - total_chunk_count = floor(video_size / chunk_size), at least 1 and at most 1000;
 * - every chunk is 5 MB to 64 MB, except the final one, which takes the trailing bytes and may
 *   reach 128 MB;
 * - a video under 5 MB goes whole, with chunk_size = video_size; one over 64 MB needs several chunks;
 * - chunks are sent in order.
 *
 * The guide does not say whether its MB is 10^6 or 2^20 bytes, so every bound here holds under
 * both readings: lower bounds use the larger unit (5 MiB), upper bounds the smaller (64 000 000 and
 * 128 000 000 bytes). A layout accepted here is accepted whichever TikTok means.
 */

/** Smallest chunk (all but a single whole-video chunk): 5 MiB, which is also at least 5 000 000 bytes. */
export const MIN_CHUNK_SIZE = 5 * 1024 * 1024;
/** Largest chunk_size: 64 000 000 bytes, which is also at most 64 MiB. */
export const MAX_CHUNK_SIZE = 64_000_000;
/** Largest final chunk (chunk_size plus the trailing bytes): 128 000 000 bytes, also at most 128 MiB. */
export const MAX_FINAL_CHUNK_SIZE = 128_000_000;
export const MAX_CHUNK_COUNT = 1000;
/** The chunk size used when the caller names none: 10 000 000 bytes, the guide's own example. */
export const DEFAULT_CHUNK_SIZE = 10_000_000;
/**
 * The largest video the chunk rules can lay out: 1000 chunks of MAX_CHUNK_SIZE, the last one
 * holding up to MAX_CHUNK_SIZE - 1 trailing bytes (1001 * 64 000 000 - 1 = 64 063 999 999 bytes).
 * TikTok's own cap on a video's size may be lower; the init call refuses such a video.
 */
export const MAX_VIDEO_SIZE = (MAX_CHUNK_COUNT + 1) * MAX_CHUNK_SIZE - 1;

/** One chunk: its 0-based index and the first and last byte it carries (inclusive, as in Content-Range). */
interface ChunkRange {
  index: number;
  first: number;
  last: number;
}

export interface ChunkPlan {
  videoSize: number;
  /** The init call's chunk_size. */
  chunkSize: number;
  /** The init call's total_chunk_count. */
  totalChunkCount: number;
  ranges: ChunkRange[];
}

/** The video cannot be sent under TikTok's chunk rules (empty, or too large for 1000 chunks). */
export class ChunkPlanError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "ChunkPlanError";
  }
}

/**
 * Lays out a video of `videoSize` bytes. `preferredChunkSize` (default DEFAULT_CHUNK_SIZE) is
 * clamped to MIN_CHUNK_SIZE..MAX_CHUNK_SIZE, lowered to the video's size when the video fits in
 * one chunk (at most 64 MB) or to half of it when it does not, and raised when the video would
 * need more than 1000 chunks.
 */
export function planChunks(videoSize: number, preferredChunkSize: number = DEFAULT_CHUNK_SIZE): ChunkPlan {
  if (!Number.isSafeInteger(videoSize) || videoSize <= 0) throw new ChunkPlanError(`video size must be a positive whole number of bytes, got ${videoSize}`);
  if (!Number.isSafeInteger(preferredChunkSize) || preferredChunkSize <= 0) {
    throw new ChunkPlanError(`preferred chunk size must be a positive whole number of bytes, got ${preferredChunkSize}`);
  }
  if (videoSize > MAX_VIDEO_SIZE) {
    throw new ChunkPlanError(
      `a video of ${videoSize} bytes cannot be sent: TikTok takes at most ${MAX_CHUNK_COUNT} chunks of at most ${MAX_CHUNK_SIZE} bytes (${MAX_VIDEO_SIZE} bytes in all)`,
    );
  }
  let chunkSize: number;
  if (videoSize < MIN_CHUNK_SIZE) {
    chunkSize = videoSize;
  } else {
    chunkSize = Math.min(Math.max(preferredChunkSize, MIN_CHUNK_SIZE), MAX_CHUNK_SIZE, videoSize);
    // A video over 64 MB must go in several chunks, even when its final chunk could hold it all.
    if (videoSize > MAX_CHUNK_SIZE) chunkSize = Math.min(chunkSize, Math.floor(videoSize / 2));
    // floor(videoSize / chunkSize) <= 1000 needs chunkSize > videoSize / 1001.
    chunkSize = Math.max(chunkSize, Math.floor(videoSize / (MAX_CHUNK_COUNT + 1)) + 1);
  }
  const totalChunkCount = Math.floor(videoSize / chunkSize);
  const ranges: ChunkRange[] = [];
  for (let index = 0; index < totalChunkCount; index++) {
    const first = index * chunkSize;
    const last = index === totalChunkCount - 1 ? videoSize - 1 : first + chunkSize - 1;
    ranges.push({ index, first, last });
  }
  // Both hold by construction (the final chunk is under 2 * chunkSize); checked so a change that breaks them fails loudly.
  const finalSize = videoSize - (totalChunkCount - 1) * chunkSize;
  if (totalChunkCount < 1 || totalChunkCount > MAX_CHUNK_COUNT || finalSize > MAX_FINAL_CHUNK_SIZE) {
    throw new ChunkPlanError(`no valid layout for ${videoSize} bytes (chunk ${chunkSize}, ${totalChunkCount} chunks, final ${finalSize})`);
  }
  return { videoSize, chunkSize, totalChunkCount, ranges };
}
