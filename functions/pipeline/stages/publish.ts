import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { CredentialsKeyMissingError, CredentialsTamperedError, decryptCredentials } from "../../../shared/crypto/credentials.ts";
import { ChannelCapReachedError, QuotaBucketSpentError, WrongStateError } from "../../../shared/db/errors.ts";
import { markAccountNeedsReconnect } from "../../../shared/db/rpc/accounts.ts";
import {
  beginPublication,
  clearUploadSession,
  type DeferralReason,
  deferPublication,
  getPublication,
  getPublishTargets,
  type PublishTarget,
  recordPublication,
  recordPublicationPrivacy,
  recordUploadSession,
} from "../../../shared/db/rpc/publications.ts";
import {
  type QuotaLedgerEntry,
  recordYouTubeRefusal,
  releaseYouTubeCall,
  reserveYouTubeCall,
  settleYouTubeCall,
} from "../../../shared/db/rpc/quota-ledger.ts";
import { NonRetriableError } from "../../../shared/errors.ts";
import { failpoint } from "../../../shared/failpoints.ts";
import { makeScratchDir } from "../../../shared/storage/scratch-dirs.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import {
  queryUploadStatus,
  startUploadSession,
  uploadFromOffset,
  type UploadedVideo,
  UploadSessionExpiredError,
  type VideoUploadMetadata,
} from "../../../shared/providers/youtube/resumable-upload.ts";
import { classifyPublishRefusal } from "../../../shared/providers/youtube/refusals.ts";
import type { PipelineDeps } from "../deps.ts";
import type { Stage, StageLease } from "../stage-task.ts";
import { acceptedScript, loadUnit, required } from "./unit.ts";
import { buildVideoResource } from "./youtube-metadata.ts";

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

/**
 * Distribution: per active account of the dimension, one publication, each tried on its own
 * (docs/distribution.md). An account whose Google project's bucket or channel cap is spent, or
 * whose grant Google refused, gets its publication deferred while the other accounts publish; the
 * unit then waits at stage deferred and the drain sends it back once a deferral's time has come.
 * The upload call is reserved in the quota ledger before it is made, settled once YouTube opened
 * the session, released when it failed before that. Credentials are decrypted in memory only, and
 * the resumable session URI is stored before the first byte, so a crash mid-upload resumes the
 * same session instead of starting a second copy. Each finished upload is recorded at once
 * (record_publication). Any other failure is thrown after every account was tried, so the retry
 * covers only what is left.
 */
export const runPublish: Stage<"publish"> = async (task, { deps, logger: log, lease }) => {
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const video = required(unit.video, "video", unit.id);
  const script = acceptedScript(unit);
  const targets = await getPublishTargets(deps.sql, task.unit_id);
  if (targets.length === 0) throw new NonRetriableError(`dimension ${dimension.id} has no active account`);
  // Built once per attempt; privacy and publishAt travel with the session start, and resuming a
  // stored session sends bytes only, so no later call changes them.
  const metadata = buildVideoResource({ publishing: dimension.publishing, language: dimension.language, script, now: new Date() });
  let published: { publicationId: string; externalId: string } | null = null;
  let deferred = 0;
  const failures: unknown[] = [];

  const dir = await makeScratchDir("publish");
  // Fetched for the first account that uploads: a drain whose accounts are all published already
  // or deferred again reads no video.
  let fetched: Promise<VideoFile> | null = null;
  const videoFile = () =>
    fetched ??= (async () => {
      const filePath = join(dir, "video.mp4");
      await deps.store.getFile(video.video_key, filePath);
      return { filePath, contentLength: (await stat(filePath)).size };
    })();
  try {
    for (const target of targets) {
      const accountLog = log.child({ account: target.channel_handle });
      try {
        const result = await publishToAccount(deps, accountLog, lease, { unitId: task.unit_id, target, videoFile, metadata });
        if (result.kind === "deferred") deferred += 1;
        else published = { publicationId: result.publicationId, externalId: result.externalId };
      } catch (error) {
        accountLog.warn({ err: error }, "publishing to this account failed; the other accounts go on");
        failures.push(error);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) throw failures[0];
  if (deferred > 0) return { kind: "publish.deferred" };
  if (!published) throw new NonRetriableError(`dimension ${dimension.id} has no active account`);
  return { kind: "publish.completed", publicationId: published.publicationId, externalId: published.externalId };
};

type AccountResult = { kind: "published"; publicationId: string; externalId: string } | { kind: "deferred" };
type VideoFile = { filePath: string; contentLength: number };

/** One account's publication: published (now or before), or deferred with its reason and time. */
async function publishToAccount(
  deps: PipelineDeps,
  log: Logger,
  lease: StageLease,
  input: { unitId: string; target: PublishTarget; videoFile: () => Promise<VideoFile>; metadata: VideoUploadMetadata },
): Promise<AccountResult> {
  const { target } = input;
  const publication = await beginPublication(deps.sql, input.unitId, target.account_id);
  if (publication.status === "published") {
    if (publication.external_id === null) throw new Error(`publication ${publication.id} is published without a video id`);
    await recordPublication(deps.sql, lease, publication.id, publication.external_id);
    return { kind: "published", publicationId: publication.id, externalId: publication.external_id };
  }
  const defer = async (reason: DeferralReason, notBefore: Date | null): Promise<AccountResult> => {
    await deferPublication(deps.sql, publication.id, reason, notBefore);
    log.info({ reason, not_before: notBefore?.toISOString() ?? null }, "publication deferred");
    return { kind: "deferred" };
  };
  if (target.health_state === "needs_reconnect") return defer("needs_reconnect", null);
  if (!target.credentials_enc) {
    await markAccountNeedsReconnect(deps.sql, target.account_id, "no credentials stored");
    return defer("needs_reconnect", null);
  }

  let entry: QuotaLedgerEntry;
  try {
    entry = await reserveYouTubeCall(deps.sql, { accountId: target.account_id, callKind: "videos.insert", publicationId: publication.id });
  } catch (error) {
    if (error instanceof QuotaBucketSpentError) return defer("quota_spent", error.notBefore);
    if (error instanceof ChannelCapReachedError) return defer("channel_cap", error.notBefore);
    throw error;
  }

  let video: UploadedVideo;
  try {
    const credentials = await decryptCredentials(deps.credentialKeys, target.credentials_enc, target.account_id);
    const accessToken = await deps.youtubeAccessToken(credentials.refresh_token);
    video = await uploadOnce(deps, log, {
      publicationId: publication.id,
      ledgerEntryId: entry.id,
      storedSessionUri: publication.upload_session_uri,
      accessToken,
      ...(await input.videoFile()),
      metadata: input.metadata,
    });
  } catch (error) {
    const refusal = classifyPublishRefusal(error);
    // Nothing was accepted unless the session opened (the call is then settled for good).
    const opened = (await getPublication(deps.sql, publication.id))?.upload_session_uri != null;
    if (refusal?.kind === "quota_exceeded") return defer("quota_spent", await recordYouTubeRefusal(deps.sql, entry.id, "quotaExceeded"));
    if (refusal?.kind === "upload_limit_exceeded") return defer("channel_cap", await recordYouTubeRefusal(deps.sql, entry.id, "uploadLimitExceeded"));
    if (!opened && entry.status === "reserved") {
      // A session that opened and then expired was settled meanwhile: YouTube counted it, and it stays counted.
      await releaseYouTubeCall(deps.sql, entry.id).catch((released) => {
        if (!(released instanceof WrongStateError)) throw released;
      });
    }
    if (refusal?.kind === "grant_refused") {
      await markAccountNeedsReconnect(deps.sql, target.account_id, refusal.reason);
      return defer("needs_reconnect", null);
    }
    // Credentials the key ring cannot open are this account's problem alone: retrying cannot help,
    // and the unit's other accounts publish. The reason names the key and both fixes.
    if (error instanceof CredentialsKeyMissingError) {
      await markAccountNeedsReconnect(deps.sql, target.account_id, `${CREDENTIALS_KEY_MISSING}: ${error.message}`);
      return defer("needs_reconnect", null);
    }
    if (error instanceof CredentialsTamperedError) {
      await markAccountNeedsReconnect(deps.sql, target.account_id, error.message);
      return defer("needs_reconnect", null);
    }
    throw error;
  }
  failpoint("publish.after-upload-before-record");
  await recordPublication(deps.sql, lease, publication.id, video.id);
  const privacy = video.status?.privacyStatus;
  if (privacy !== undefined) {
    // What was asked: YouTube may lock an upload private (an unaudited API project).
    const requested = input.metadata.status.privacyStatus;
    await recordPublicationPrivacy(deps.sql, publication.id, privacy, requested);
    if (privacy !== requested) {
      log.warn({ external_id: video.id, privacy_status: privacy }, "YouTube locked the upload private: the API project has not passed YouTube's audit");
    }
  }
  log.info({ external_id: video.id }, "published");
  return { kind: "published", publicationId: publication.id, externalId: video.id };
}

/**
 * How the reason of an account whose credentials were sealed with a key the ring lacks begins: a
 * rotation that re-seals them (the key put back as a previous key) clears it
 * (mdame.reseal_account_credentials), as a reconnect does.
 */
export const CREDENTIALS_KEY_MISSING = "credentials key missing";

/** One upload attempt; an expired session is forgotten so the next attempt opens a new one. */
async function uploadOnce(
  deps: PipelineDeps,
  log: Logger,
  input: Parameters<typeof uploadOrResume>[2],
): Promise<UploadedVideo> {
  try {
    return await uploadOrResume(deps, log, input);
  } catch (error) {
    if (!(error instanceof UploadSessionExpiredError)) throw error;
    const publication = await getPublication(deps.sql, input.publicationId);
    if (publication?.upload_session_uri) {
      await clearUploadSession(deps.sql, input.publicationId, publication.upload_session_uri);
    }
    throw new Error("the stored upload session expired; a new one opens on the next attempt", { cause: error });
  }
}

async function uploadOrResume(
  deps: PipelineDeps,
  log: Logger,
  input: {
    publicationId: string;
    /** The upload call's reservation in the quota ledger, settled once YouTube opened the session. */
    ledgerEntryId: string;
    storedSessionUri: string | null;
    accessToken: string;
    filePath: string;
    contentLength: number;
    metadata: VideoUploadMetadata;
  },
): Promise<UploadedVideo> {
  let sessionUri = input.storedSessionUri;
  let offset = 0;
  if (sessionUri) {
    const status = await queryUploadStatus({ sessionUri, accessToken: input.accessToken, contentLength: input.contentLength });
    if (status.complete) {
      log.info({ video_id: status.video.id }, "upload had already completed");
      return status.video;
    }
    offset = status.nextByte;
    log.info({ offset }, "resuming the stored upload session");
  } else {
    const uri = await startUploadSession({
      baseUrl: deps.env.YOUTUBE_UPLOAD_BASE_URL,
      accessToken: input.accessToken,
      metadata: input.metadata,
      contentLength: input.contentLength,
      contentType: "video/mp4",
    });
    // Stored before the first byte; if another attempt stored one first, that one is used.
    // YouTube accepted the videos.insert call: it counts, whatever happens to the bytes.
    await settleYouTubeCall(deps.sql, input.ledgerEntryId);
    const stored = await recordUploadSession(deps.sql, input.publicationId, uri);
    sessionUri = stored.upload_session_uri ?? uri;
    if (sessionUri !== uri) return uploadOrResume(deps, log, { ...input, storedSessionUri: sessionUri });
    failpoint("publish.after-session-stored");
  }
  const video = await uploadFromOffset({
    sessionUri,
    accessToken: input.accessToken,
    filePath: input.filePath,
    contentLength: input.contentLength,
    offset,
    chunkSize: UPLOAD_CHUNK_BYTES,
    onProgress: (sent: number) => {
      log.debug({ sent, total: input.contentLength }, "upload progress");
      if (sent > offset && sent < input.contentLength) failpoint("publish.mid-upload");
    },
  });
  return video;
}
