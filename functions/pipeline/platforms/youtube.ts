/**
 * YouTube as a platform of the publish stage: the quota ledger of docs/reference/distribution.md (an upload
 * call reserved from the Google project's bucket and the channel's 24-hour cap, settled once the
 * resumable session opened, released when it failed before that, corrected by YouTube's own
 * refusals), Google access tokens, the resumable upload protocol, and the videos.insert resource
 * built from the dimension's publishing settings.
 */
import process from "node:process";
import { WrongStateError } from "../../../shared/db/errors.ts";
import { type QuotaLedgerEntry, releaseYouTubeCall, settleYouTubeCall } from "../../../shared/db/rpc/quota-ledger.ts";
import { recordYouTubeQuotaRefusal, reserveYouTubeQuota } from "../../../shared/providers/youtube/quota.ts";
import { classifyYouTubeRefusal } from "../../../shared/providers/youtube/refusals.ts";
import {
  queryUploadStatus,
  startUploadSession,
  uploadFromOffset,
  UploadSessionExpiredError,
  type VideoUploadMetadata,
} from "../../../shared/providers/youtube/resumable-upload.ts";
import { buildVideoResource } from "./youtube-metadata.ts";
import type { PlatformAdapter } from "./adapter.ts";

/**
 * Upload chunk size; unset = the client's default (8 MiB). Crash tests set a small one
 * (MDAME_UPLOAD_CHUNK_BYTES, a multiple of 256 KiB) so a video of a few MB takes several chunks.
 */
const UPLOAD_CHUNK_BYTES = uploadChunkBytes(process.env.MDAME_UPLOAD_CHUNK_BYTES);

function uploadChunkBytes(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const bytes = Number(value);
  if (!Number.isSafeInteger(bytes) || bytes <= 0 || bytes % (256 * 1024) !== 0) {
    throw new Error(`MDAME_UPLOAD_CHUNK_BYTES must be a positive multiple of 262144, got ${value}`);
  }
  return bytes;
}

export const youtubeAdapter: PlatformAdapter<QuotaLedgerEntry, VideoUploadMetadata> = {
  platform: "youtube",
  captionProfile: "youtube_shorts",

  metadata: (input) => buildVideoResource(input),

  async reserve(deps, { target, publicationId }) {
    // A resumed upload holds its reservation already: a repeat returns it (the ledger charges a publication once).
    const reserved = await reserveYouTubeQuota(deps.sql, { accountId: target.account_id, callKind: "videos.insert", publicationId });
    if (reserved.kind === "reserved") return { kind: "reserved", ticket: reserved.entry };
    return { kind: "deferred", reason: reserved.reason, notBefore: reserved.notBefore };
  },

  async settle(deps, entry) {
    await settleYouTubeCall(deps.sql, entry.id);
  },

  async release(deps, entry) {
    // A session that opened and then expired was settled meanwhile: YouTube counted it, and it stays counted.
    if (entry.status !== "reserved") return;
    await releaseYouTubeCall(deps.sql, entry.id).catch((released) => {
      if (!(released instanceof WrongStateError)) throw released;
    });
  },

  // Google keeps a refresh token until it is revoked or expires: nothing to re-seal. Refreshed with
  // the client of the account's Google project, whose buckets the reservation above charged.
  accessToken: (deps, { target, refreshToken }) => deps.youtubeAccessToken({ accountId: target.account_id, refreshToken }),

  startSession: (deps, _log, { accessToken, metadata, video }) =>
    startUploadSession({
      baseUrl: deps.env.YOUTUBE_UPLOAD_BASE_URL,
      accessToken,
      metadata,
      contentLength: video.contentLength,
      contentType: "video/mp4",
    }),

  async querySession(_deps, { accessToken, session, contentLength }) {
    const status = await queryUploadStatus({ sessionUri: session, accessToken, contentLength });
    if (!status.complete) return status;
    return { complete: true, video: { externalId: status.video.id, privacy: status.video.status?.privacyStatus } };
  },

  async sendFrom(_deps, _log, { accessToken, session, video, offset, onProgress }) {
    const uploaded = await uploadFromOffset({
      sessionUri: session,
      accessToken,
      filePath: video.filePath,
      contentLength: video.contentLength,
      offset,
      chunkSize: UPLOAD_CHUNK_BYTES,
      onProgress,
    });
    return { externalId: uploaded.id, privacy: uploaded.status?.privacyStatus };
  },

  sessionExpired: (error) => error instanceof UploadSessionExpiredError,

  async refusal(deps, entry, error) {
    const refusal = classifyYouTubeRefusal(error);
    if (refusal?.kind === "grant_refused") return refusal;
    const refused = await recordYouTubeQuotaRefusal(deps.sql, entry, refusal);
    return refused ? { kind: "defer", reason: refused.reason, notBefore: refused.notBefore } : null;
  },

  requestedPrivacy: (metadata) => metadata.status.privacyStatus,
};
