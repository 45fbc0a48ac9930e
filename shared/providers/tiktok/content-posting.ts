/**
 * TikTok Content Posting API, Direct Post of a video by FILE_UPLOAD, spoken with fetch. Runs in
 * Deno and Bun.
 *
 * 1. queryCreatorInfo (`/v2/post/publish/creator_info/query/`): the privacy levels and
 *    interaction settings the creator allows now; post_info must agree with them.
 * 2. initDirectPost (`/v2/post/publish/video/init/`): post_info plus the chunk layout of
 *    chunks.ts; answers publish_id and an upload_url valid for one hour. The upload_url carries
 *    its own upload token: treat it as a secret (it is never put in a message).
 * 3. uploadChunks: PUT each chunk to upload_url in order, with Content-Range `bytes a-b/total`.
 *    TikTok offers no way to ask how much it holds, so resuming is the caller's: it records the
 *    last chunk onChunk reported and calls again with `fromChunk` set to the next one.
 * 4. fetchPostStatus (`/v2/post/publish/status/fetch/`): poll until PUBLISH_COMPLETE or FAILED.
 *
 * Every JSON answer carries `error: { code, message, log_id }`; any code but "ok" (or a non-2xx
 * status) throws TikTokApiError with that code. Dropped connections throw ProviderUnavailableError.
 */
import { open } from "node:fs/promises";
import { z } from "zod";
import { ProviderError, ProviderUnavailableError } from "../errors.ts";
import type { ChunkPlan } from "./chunks.ts";
import { clip, DEFAULT_API_BASE_URL, issuesOf, parseJson, readAnswer, send } from "./http.ts";

const PROVIDER = "tiktok";

/** TikTok refused a call: HTTP status, its error code (e.g. `spam_risk_too_many_posts`), message and log_id. */
export class TikTokApiError extends ProviderError {
  readonly code: string;
  readonly logId?: string;

  constructor(status: number, code: string, message: string, logId: string | undefined, what: string) {
    super(PROVIDER, `${what}: TikTok answered ${status} ${code}: ${clip(message)}${logId ? ` (log_id ${logId})` : ""}`, {
      status,
      retriable: status === 429 || status >= 500 || code === "rate_limit_exceeded" || code === "internal_error",
      reason: code,
    });
    this.name = "TikTokApiError";
    this.code = code;
    this.logId = logId;
  }
}

export const PrivacyLevel = z.enum(["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"]);
export type PrivacyLevel = z.infer<typeof PrivacyLevel>;

/** The init call's post_info for a video. */
export const DirectPostInfo = z.object({
  /** The caption; at most 2200 UTF-16 code units. */
  title: z.string().max(2200).optional(),
  /** Must be one of creator_info's privacy_level_options. */
  privacy_level: PrivacyLevel,
  disable_duet: z.boolean().optional(),
  disable_comment: z.boolean().optional(),
  disable_stitch: z.boolean().optional(),
  /** The frame used as cover, in milliseconds from the start. */
  video_cover_timestamp_ms: z.number().int().nonnegative().optional(),
  /** Paid partnership promoting a third party. */
  brand_content_toggle: z.boolean(),
  /** Promotes the creator's own business. */
  brand_organic_toggle: z.boolean(),
  /** The video is AI-generated content. */
  is_aigc: z.boolean().optional(),
}).strict();
export type DirectPostInfo = z.infer<typeof DirectPostInfo>;

const CreatorInfo = z.looseObject({
  creator_avatar_url: z.string().optional(),
  creator_username: z.string().optional(),
  creator_nickname: z.string().optional(),
  privacy_level_options: z.array(z.string()),
  comment_disabled: z.boolean(),
  duet_disabled: z.boolean(),
  stitch_disabled: z.boolean(),
  max_video_post_duration_sec: z.number().int().nonnegative(),
});
type CreatorInfo = z.infer<typeof CreatorInfo>;

const InitAnswer = z.looseObject({ publish_id: z.string().min(1), upload_url: z.string().min(1) });

const PostStatusName = z.enum(["PROCESSING_UPLOAD", "PROCESSING_DOWNLOAD", "SEND_TO_USER_INBOX", "PUBLISH_COMPLETE", "FAILED"]);

/** The status fetch's data; field names are TikTok's own, `publicaly_available_post_id` spelling included. */
export const PostStatus = z.looseObject({
  status: PostStatusName,
  /** Set when status is FAILED. */
  fail_reason: z.string().optional(),
  /** Post ids (as decimal strings: they are int64) once public; empty until moderation passes, and for private posts. */
  publicaly_available_post_id: z.array(z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]))
    .default([]).transform((ids) => ids.map(String)),
  uploaded_bytes: z.number().int().nonnegative().optional(),
  downloaded_bytes: z.number().int().nonnegative().optional(),
});
export type PostStatus = z.infer<typeof PostStatus>;

const Envelope = z.looseObject({
  data: z.unknown().optional(),
  error: z.looseObject({ code: z.string(), message: z.string().optional(), log_id: z.string().optional() }),
});

/**
 * The post ids are int64 and may exceed 2^53: JSON.parse would round them. Bare integers inside
 * `publicaly_available_post_id`, and a video's `id` (video-query.ts; TikTok documents it as a
 * string, this holds should it come bare), are quoted before parsing so every digit survives.
 */
function quotePostIds(text: string): string {
  return text.replace(
    /("publicaly_available_post_id"\s*:\s*\[)([\d\s,]*)\]/,
    (_, head: string, list: string) => `${head}${list.replace(/\d+/g, (id) => `"${id}"`)}]`,
  ).replace(/("id"\s*:\s*)(\d+)(?=\s*[,}])/g, '$1"$2"');
}

/**
 * One API v2 call: POST `path` (its query included) with the bearer token and a JSON body, the
 * answer's envelope checked and its `data` parsed by `data`. Any code but "ok" or a non-2xx
 * status throws TikTokApiError with TikTok's code; an answer without the envelope or with
 * malformed data throws ProviderUnavailableError.
 */
export async function callApi<T extends z.ZodType>(input: {
  baseUrl?: string;
  accessToken: string;
  path: string;
  body?: unknown;
  data: T;
  what: string;
  signal?: AbortSignal;
}): Promise<z.infer<T>> {
  const url = new URL(input.path, input.baseUrl ?? DEFAULT_API_BASE_URL).toString();
  const response = await send(PROVIDER, url, {
    method: "POST",
    headers: { authorization: `Bearer ${input.accessToken}`, "content-type": "application/json; charset=UTF-8" },
    body: input.body === undefined ? undefined : JSON.stringify(input.body),
    signal: input.signal,
  }, input.what);
  const text = await readAnswer(PROVIDER, response, input.what);
  const envelope = Envelope.safeParse(parseJson(quotePostIds(text)));
  const ok = response.status >= 200 && response.status <= 299;
  if (!envelope.success) {
    // Not TikTok's envelope (a proxy's page, an outage): only the status and size are told.
    const message = `${input.what}: TikTok answered ${response.status} without its error envelope (${text.length} bytes)`;
    if (ok || response.status === 429 || response.status >= 500) throw new ProviderUnavailableError(PROVIDER, message, { status: response.status });
    throw new TikTokApiError(response.status, `http_${response.status}`, "no error envelope", undefined, input.what);
  }
  const { error } = envelope.data;
  if (!ok || error.code !== "ok") {
    throw new TikTokApiError(response.status, error.code === "ok" ? `http_${response.status}` : error.code, error.message ?? "", error.log_id, input.what);
  }
  const data = input.data.safeParse(envelope.data.data);
  if (!data.success) {
    throw new ProviderUnavailableError(PROVIDER, `${input.what}: the answer's data is malformed (${issuesOf(data.error)})`, { status: response.status });
  }
  return data.data;
}

/** What the creator may post now: privacy level options, interaction settings, longest video. */
export function queryCreatorInfo(input: { accessToken: string; baseUrl?: string; signal?: AbortSignal }): Promise<CreatorInfo> {
  return callApi({ ...input, path: "/v2/post/publish/creator_info/query/", data: CreatorInfo, what: "query creator info" });
}

/** Starts a Direct Post with FILE_UPLOAD; returns the publish_id to poll and the upload_url to PUT the chunks to. */
export async function initDirectPost(input: {
  accessToken: string;
  baseUrl?: string;
  postInfo: DirectPostInfo;
  plan: Pick<ChunkPlan, "videoSize" | "chunkSize" | "totalChunkCount">;
  signal?: AbortSignal;
}): Promise<{ publishId: string; uploadUrl: string }> {
  const postInfo = DirectPostInfo.safeParse(input.postInfo);
  if (!postInfo.success) throw new RangeError(`invalid post_info: ${issuesOf(postInfo.error)}`);
  const answer = await callApi({
    ...input,
    path: "/v2/post/publish/video/init/",
    body: {
      post_info: postInfo.data,
      source_info: {
        source: "FILE_UPLOAD",
        video_size: input.plan.videoSize,
        chunk_size: input.plan.chunkSize,
        total_chunk_count: input.plan.totalChunkCount,
      },
    },
    data: InitAnswer,
    what: "init direct post",
  });
  return { publishId: answer.publish_id, uploadUrl: answer.upload_url };
}

/** Where a post stands; poll it (TikTok allows 30 status requests a minute per token). */
export function fetchPostStatus(input: { accessToken: string; baseUrl?: string; publishId: string; signal?: AbortSignal }): Promise<PostStatus> {
  return callApi({ ...input, path: "/v2/post/publish/status/fetch/", body: { publish_id: input.publishId }, data: PostStatus, what: "fetch post status" });
}

type VideoMimeType = "video/mp4" | "video/quicktime" | "video/webm";

export interface ChunkProgress {
  /** The chunk TikTok just accepted; resume from index + 1. */
  index: number;
  totalChunkCount: number;
  /** Bytes TikTok holds so far (the last accepted byte + 1). */
  uploadedBytes: number;
}

/**
 * PUTs the plan's chunks from `fromChunk` (default 0) to the last, in order, each read from the
 * file by range so at most one chunk is in memory. TikTok answers 206 for each chunk and 201 once
 * it holds the whole video. Returns when the last chunk is accepted.
 */
export async function uploadChunks(input: {
  uploadUrl: string;
  filePath: string;
  plan: ChunkPlan;
  fromChunk?: number;
  contentType?: VideoMimeType;
  onChunk?: (progress: ChunkProgress) => void | Promise<void>;
  signal?: AbortSignal;
}): Promise<void> {
  const { plan } = input;
  const fromChunk = input.fromChunk ?? 0;
  if (!Number.isInteger(fromChunk) || fromChunk < 0 || fromChunk >= plan.totalChunkCount) {
    throw new RangeError(`fromChunk ${fromChunk} is outside 0..${plan.totalChunkCount - 1}`);
  }
  const file = await open(input.filePath, "r");
  try {
    const { size } = await file.stat();
    if (size !== plan.videoSize) throw new RangeError(`${input.filePath} has ${size} bytes, the plan ${plan.videoSize}`);
    for (const range of plan.ranges.slice(fromChunk)) {
      const what = `upload chunk ${range.index + 1}/${plan.totalChunkCount}`;
      const length = range.last - range.first + 1;
      const chunk = new Uint8Array(length);
      const { bytesRead } = await file.read(chunk, 0, length, range.first);
      if (bytesRead !== length) throw new RangeError(`${input.filePath} ended before byte ${range.last}`);
      const response = await send(PROVIDER, input.uploadUrl, {
        method: "PUT",
        headers: {
          "content-type": input.contentType ?? "video/mp4",
          "content-length": String(length),
          "content-range": `bytes ${range.first}-${range.last}/${plan.videoSize}`,
        },
        body: chunk,
        signal: input.signal,
      }, what);
      if (response.status !== 200 && response.status !== 201 && response.status !== 206) throw await uploadFailure(response, what);
      await response.body?.cancel();
      await input.onChunk?.({ index: range.index, totalChunkCount: plan.totalChunkCount, uploadedBytes: range.last + 1 });
    }
  } finally {
    await file.close();
  }
}

/** A refused chunk: TikTok's envelope when the answer has one, else the bare status. */
async function uploadFailure(response: Response, what: string): Promise<ProviderError> {
  const text = await readAnswer(PROVIDER, response, what).catch(() => "");
  const envelope = Envelope.safeParse(parseJson(text));
  if (envelope.success && envelope.data.error.code !== "ok") {
    const { code, message, log_id } = envelope.data.error;
    return new TikTokApiError(response.status, code, message ?? "", log_id, what);
  }
  return new TikTokApiError(response.status, `http_${response.status}`, `chunk refused (${text.length} bytes of answer)`, undefined, what);
}
