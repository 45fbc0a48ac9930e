/**
 * TikTok as a platform of the publish stage (docs/reference/platforms.md), through the Content Posting API's
 * Direct Post with FILE_UPLOAD (shared/providers/tiktok):
 * - the ledger is TikTok's per-token rate windows (mdame.reserve_tiktok_call): 6 video.init
 *   requests a minute, 20 creator_info queries and 30 status fetches; a full window defers the
 *   publication (`rate_limited`) until it has room;
 * - a session starts with creator_info/query (an API client that has not passed TikTok's audit is
 *   offered SELF_ONLY only: the post goes out SELF_ONLY and the stage records and reports it),
 *   then video/init with the chunk layout of the media transfer guide; the stored session is a JSON
 *   object with the publish_id, the upload_url, the layout and the privacy level sent;
 * - a stored session is resumed from the chunk after the last one TikTok holds (status/fetch's
 *   uploaded_bytes); once every byte is there the post is polled until PUBLISH_COMPLETE, for a
 *   bounded time: a restart polls the same publish_id again, it never posts twice;
 * - refresh tokens that TikTok rotates are re-sealed over the stored credentials.
 */
import process from "node:process";
import { z } from "zod";
import { RateWindowFullError } from "../../../shared/db/errors.ts";
import { tiktokAccessToken } from "../../../shared/providers/tiktok/account-token.ts";
import { reserveTikTokCall, type TikTokCallKind } from "../../../shared/db/rpc/tiktok-calls.ts";
import { NonRetriableError } from "../../../shared/errors.ts";
import { failpoint } from "../../../shared/failpoints.ts";
import { DEFAULT_CHUNK_SIZE, planChunks } from "../../../shared/providers/tiktok/chunks.ts";
import {
  type DirectPostInfo,
  fetchPostStatus,
  initDirectPost,
  type PostStatus,
  PrivacyLevel,
  queryCreatorInfo,
  uploadChunks,
} from "../../../shared/providers/tiktok/content-posting.ts";
import { classifyTikTokRefusal } from "../../../shared/providers/tiktok/refusals.ts";
import type { PrivacyStatus } from "../../../shared/contracts/publishing.ts";
import type { PipelineDeps } from "../deps.ts";
import type { PlatformAdapter, PublishedVideo, SessionState } from "./adapter.ts";

/** TikTok's caption limit, in UTF-16 code units. */
const CAPTION_MAX = 2200;

/** Preferred chunk size (the media transfer guide's rules decide the layout); crash tests set a small one. */
const CHUNK_BYTES = positiveInteger("MDAME_TIKTOK_CHUNK_BYTES", process.env.MDAME_TIKTOK_CHUNK_BYTES) ?? DEFAULT_CHUNK_SIZE;
/** How long one attempt waits for TikTok to finish a post before the task's retry asks again. */
const POLL_TIMEOUT_MS = positiveInteger("MDAME_TIKTOK_POLL_TIMEOUT_MS", process.env.MDAME_TIKTOK_POLL_TIMEOUT_MS) ?? 5 * 60_000;
/** How often a finished upload's post is asked about (the status window, 30 a minute, holds either way). */
const POLL_INTERVAL_MS = positiveInteger("MDAME_TIKTOK_POLL_INTERVAL_MS", process.env.MDAME_TIKTOK_POLL_INTERVAL_MS) ?? 3_000;

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, got ${value}`);
  return n;
}

/** What the post asks for; privacy_level is the one wished for, before creator_info decides. */
interface TikTokMetadata {
  postInfo: DirectPostInfo;
}

/** The stored session: enough to resume the upload and poll the post after any restart. */
const TikTokSession = z.object({
  publish_id: z.string().min(1),
  upload_url: z.string().url(),
  video_size: z.number().int().positive(),
  chunk_size: z.number().int().positive(),
  /** The privacy level TikTok was sent (SELF_ONLY when the client is not audited). */
  privacy_level: PrivacyLevel,
}).strict();
type TikTokSession = z.infer<typeof TikTokSession>;

/** The post ended FAILED: nothing was published, and the next attempt posts anew. */
class TikTokPostFailedError extends Error {
  constructor(readonly publishId: string, readonly failReason: string) {
    super(`TikTok could not publish post ${publishId}: ${failReason}`);
    this.name = "TikTokPostFailedError";
  }
}

/** The dimension's privacy as TikTok's levels: unlisted has no match, the closest is followers only. */
const PRIVACY: Record<PrivacyStatus, PrivacyLevel> = {
  public: "PUBLIC_TO_EVERYONE",
  unlisted: "FOLLOWER_OF_CREATOR",
  private: "SELF_ONLY",
};

/** The caption: title, description and hashtags, cut to TikTok's limit without splitting a character. */
export function tiktokCaption(script: { title: string; description: string; hashtags: string[] }): string {
  const tags = script.hashtags.map((h) => (h.startsWith("#") ? h : `#${h}`)).join(" ");
  const text = [script.title.trim(), script.description.trim(), tags].filter(Boolean).join("\n\n");
  if (text.length <= CAPTION_MAX) return text;
  let cut = text.slice(0, CAPTION_MAX);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut;
}

function parseSession(text: string): TikTokSession {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new NonRetriableError("the stored TikTok session is not JSON");
  }
  const session = TikTokSession.safeParse(value);
  if (!session.success) throw new NonRetriableError(`the stored TikTok session is malformed: ${session.error.issues[0]?.message ?? "invalid"}`);
  return session.data;
}

function clientOf(deps: PipelineDeps): { clientKey: string; clientSecret: string; apiBaseUrl: string } {
  const { TIKTOK_CLIENT_KEY: clientKey, TIKTOK_CLIENT_SECRET: clientSecret } = deps.env;
  if (!clientKey || !clientSecret) throw new NonRetriableError("TikTok accounts publish with a TikTok app: set TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET");
  return { clientKey, clientSecret, apiBaseUrl: deps.env.TIKTOK_API_BASE_URL };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Takes a place in the account's rate window, waiting for it when it is at most `maxWaitMs` away. */
async function rateSlot(deps: PipelineDeps, accountId: string, kind: TikTokCallKind, maxWaitMs: number): Promise<void> {
  for (;;) {
    try {
      await reserveTikTokCall(deps.sql, accountId, kind);
      return;
    } catch (error) {
      if (!(error instanceof RateWindowFullError) || error.notBefore === null) throw error;
      const wait = error.notBefore.getTime() - Date.now();
      if (wait > maxWaitMs) throw error;
      await sleep(Math.max(50, wait));
    }
  }
}

function postOf(session: TikTokSession, status: PostStatus): PublishedVideo {
  // A SELF_ONLY post has no public id: the publish_id names it.
  return { externalId: status.publicaly_available_post_id[0] ?? session.publish_id, privacy: session.privacy_level };
}

/** Where a post stands, as a resumable state: the bytes TikTok holds, or the finished post. */
function stateOf(session: TikTokSession, status: PostStatus): SessionState {
  switch (status.status) {
    case "PUBLISH_COMPLETE":
      return { complete: true, video: postOf(session, status) };
    case "FAILED":
      throw new TikTokPostFailedError(session.publish_id, status.fail_reason ?? "no reason given");
    case "PROCESSING_UPLOAD": {
      // Resumed at the first chunk TikTok does not hold in full.
      const held = Math.min(status.uploaded_bytes ?? 0, session.video_size);
      const plan = planChunks(session.video_size, session.chunk_size);
      const next = plan.ranges.find((r) => r.last >= held);
      return { complete: false, nextByte: next ? next.first : session.video_size };
    }
    default:
      // PROCESSING_DOWNLOAD, SEND_TO_USER_INBOX: every byte is there; what is left is waiting.
      return { complete: false, nextByte: session.video_size };
  }
}

async function postStatus(deps: PipelineDeps, accountId: string, accessToken: string, session: TikTokSession): Promise<PostStatus> {
  await rateSlot(deps, accountId, "status.fetch", 60_000);
  return await fetchPostStatus({ accessToken, baseUrl: deps.env.TIKTOK_API_BASE_URL, publishId: session.publish_id });
}

/** The account whose session is being worked on: the adapter's ticket. */
interface TikTokTicket {
  accountId: string;
}

export const tiktokAdapter: PlatformAdapter<TikTokTicket, TikTokMetadata> = {
  platform: "tiktok",
  captionProfile: "tiktok",

  metadata: ({ publishing, script }) => ({
    postInfo: {
      title: tiktokCaption(script),
      privacy_level: PRIVACY[publishing.privacy_status],
      disable_duet: false,
      disable_comment: false,
      disable_stitch: false,
      video_cover_timestamp_ms: 1000,
      brand_content_toggle: false,
      brand_organic_toggle: false,
      // TikTok's label for AI-generated content, from the dimension's disclosure setting.
      is_aigc: publishing.contains_synthetic_media,
    },
  }),

  async reserve(deps, { target, resuming }) {
    const ticket = { accountId: target.account_id };
    // Resuming polls and PUTs only; a new session costs a video.init (and a creator_info query).
    if (resuming) return { kind: "reserved", ticket };
    try {
      await reserveTikTokCall(deps.sql, target.account_id, "video.init");
    } catch (error) {
      if (error instanceof RateWindowFullError) return { kind: "deferred", reason: "rate_limited", notBefore: error.notBefore };
      throw error;
    }
    return { kind: "reserved", ticket };
  },

  // A refused or failed init still counts in TikTok's window: nothing goes back.
  settle: async () => {},
  release: async () => {},

  // TikTok rotates refresh tokens: a new one replaces the stored one, unless a reconnect came first.
  accessToken: (deps, { target, refreshToken }) =>
    tiktokAccessToken(deps.sql, deps.credentialKeys, clientOf(deps), { id: target.account_id, credentialsEnc: target.credentials_enc, refreshToken }),

  async startSession(deps, log, { ticket, accessToken, metadata, video }) {
    await rateSlot(deps, ticket.accountId, "creator_info.query", 60_000);
    const creator = await queryCreatorInfo({ accessToken, baseUrl: deps.env.TIKTOK_API_BASE_URL });
    const wished = metadata.postInfo.privacy_level;
    let privacy: PrivacyLevel = wished;
    if (!creator.privacy_level_options.includes(wished)) {
      if (creator.privacy_level_options.length === 1 && creator.privacy_level_options[0] === "SELF_ONLY") {
        // What TikTok does to an API client it has not audited: every post is private.
        privacy = "SELF_ONLY";
        log.warn({ wished }, "the TikTok app has not passed TikTok's audit: the post goes out SELF_ONLY (private)");
      } else {
        throw new NonRetriableError(
          `TikTok offers this creator ${creator.privacy_level_options.join(", ")}, not ${wished}: change the dimension's privacy_status`,
        );
      }
    }
    const plan = planChunks(video.contentLength, CHUNK_BYTES);
    const { publishId, uploadUrl } = await initDirectPost({
      accessToken,
      baseUrl: deps.env.TIKTOK_API_BASE_URL,
      postInfo: {
        ...metadata.postInfo,
        privacy_level: privacy,
        // The creator's own settings win: what they turned off stays off.
        disable_comment: metadata.postInfo.disable_comment || creator.comment_disabled,
        disable_duet: metadata.postInfo.disable_duet || creator.duet_disabled,
        disable_stitch: metadata.postInfo.disable_stitch || creator.stitch_disabled,
      },
      plan,
    });
    const session: TikTokSession = {
      publish_id: publishId,
      upload_url: uploadUrl,
      video_size: plan.videoSize,
      chunk_size: plan.chunkSize,
      privacy_level: privacy,
    };
    return JSON.stringify(session);
  },

  async querySession(deps, { ticket, accessToken, session: stored }) {
    const session = parseSession(stored);
    return stateOf(session, await postStatus(deps, ticket.accountId, accessToken, session));
  },

  async sendFrom(deps, log, { ticket, accessToken, session: stored, video, offset, onProgress }) {
    const session = parseSession(stored);
    if (video.contentLength !== session.video_size) {
      throw new NonRetriableError(`the video has ${video.contentLength} bytes, the TikTok session was opened for ${session.video_size}`);
    }
    const plan = planChunks(session.video_size, session.chunk_size);
    const fromChunk = plan.ranges.findIndex((r) => r.first >= offset);
    if (fromChunk >= 0) {
      await uploadChunks({
        uploadUrl: session.upload_url,
        filePath: video.filePath,
        plan,
        fromChunk,
        onChunk: ({ uploadedBytes }) => onProgress(uploadedBytes),
      });
    }
    // Every byte is there: TikTok processes the post. Polled for a bounded time; a restart polls the same publish_id.
    const deadline = Date.now() + POLL_TIMEOUT_MS;
    for (;;) {
      failpoint("publish.tiktok-polling");
      const state = stateOf(session, await postStatus(deps, ticket.accountId, accessToken, session));
      if (state.complete) return state.video;
      if (state.nextByte < session.video_size) {
        throw new Error(`TikTok holds ${state.nextByte} of ${session.video_size} bytes of post ${session.publish_id} after the last chunk was accepted`);
      }
      if (Date.now() > deadline) {
        throw new Error(`TikTok did not finish post ${session.publish_id} within ${Math.round(POLL_TIMEOUT_MS / 1000)} s; the next attempt asks again`);
      }
      log.debug({ publish_id: session.publish_id }, "waiting for TikTok to finish the post");
      await sleep(POLL_INTERVAL_MS);
    }
  },

  sessionExpired: (error) => error instanceof TikTokPostFailedError,

  async refusal(_deps, _ticket, error) {
    if (error instanceof RateWindowFullError) return { kind: "defer", reason: "rate_limited", notBefore: error.notBefore };
    const refusal = classifyTikTokRefusal(error);
    if (refusal?.kind === "needs_reconnect") return { kind: "grant_refused", reason: refusal.reason };
    if (refusal?.kind === "try_later") {
      return { kind: "defer", reason: refusal.limit === "rate" ? "rate_limited" : "channel_cap", notBefore: refusal.notBefore };
    }
    return null;
  },

  requestedPrivacy: (metadata) => metadata.postInfo.privacy_level,
};
