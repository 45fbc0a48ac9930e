import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { CredentialsKeyMissingError, CredentialsTamperedError, decryptCredentials } from "../../../shared/crypto/credentials.ts";
import { markAccountNeedsReconnect } from "../../../shared/db/rpc/accounts.ts";
import {
  beginPublication,
  clearUploadSession,
  deferPublication,
  type DeferralReason,
  getPublication,
  getPublishTargets,
  type PublishTarget,
  recordPublication,
  recordPublicationPrivacy,
  recordUploadSession,
  skipPublication,
} from "../../../shared/db/rpc/publications.ts";
import { NonRetriableError } from "../../../shared/errors.ts";
import { failpoint } from "../../../shared/failpoints.ts";
import { makeScratchDir } from "../../../shared/storage/scratch-dirs.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import type { PipelineDeps } from "../deps.ts";
import type { MetadataInput, PlatformAdapter, PublishedVideo, VideoFile } from "../platforms/adapter.ts";
import { platformAdapter } from "../platforms/registry.ts";
import type { Stage, StageLease } from "../stage-task.ts";
import { acceptedScript, loadUnit, required } from "./unit.ts";

/**
 * Distribution: per active account of the dimension, one publication, each tried on its own
 * (docs/reference/distribution.md) through its platform's adapter (platforms/adapter.ts). An account whose
 * platform quota, cap or rate is spent, or whose grant was refused, gets its publication deferred
 * while the other accounts publish; the unit then waits at stage deferred and the drain sends it
 * back once a deferral's time has come. The call is reserved in the platform's ledger before it
 * is made, settled once the platform opened the session, released when it failed before that.
 * Credentials are decrypted in memory only, and the upload session is stored before the first
 * byte, so a crash mid-upload resumes the same session instead of starting a second copy. Each
 * finished upload is recorded at once (record_publication). An account whose platform will not
 * take this video (adapter.refuseVideo: a Facebook Reel past 90 s) is skipped with its reason,
 * before any call, and the others go on. Any other failure is thrown after every account was
 * tried, so the retry covers only what is left.
 */
export const runPublish: Stage<"publish"> = async (task, { deps, logger: log, lease }) => {
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const video = required(unit.video, "video", unit.id);
  const script = acceptedScript(unit);
  const targets = await getPublishTargets(deps.sql, task.unit_id);
  if (targets.length === 0) throw new NonRetriableError(`dimension ${dimension.id} has no active account`);
  // Built once per attempt; privacy and a scheduled time travel with the session start, and
  // resuming a stored session sends bytes only, so no later call changes them.
  const metadataInput: MetadataInput = {
    publishing: dimension.publishing,
    language: dimension.language,
    script,
    videoDurationS: video.duration_s ?? null,
    now: new Date(),
  };
  let published: { publicationId: string; externalId: string } | null = null;
  let deferred = 0;
  const skipped: string[] = [];
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
      const accountLog = log.child({ account: target.channel_handle, platform: target.platform });
      try {
        const adapter = platformAdapter(target.platform);
        const result = await publishToAccount(deps, accountLog, lease, adapter, { unitId: task.unit_id, target, videoFile, metadataInput });
        if (result.kind === "deferred") deferred += 1;
        else if (result.kind === "skipped") skipped.push(`${target.platform} ${target.channel_handle}: ${result.reason}`);
        else published = { publicationId: result.publicationId, externalId: result.externalId };
      } catch (error) {
        accountLog.warn({ err: error, status: "failed" }, "publishing to this account failed; the other accounts go on");
        failures.push(error);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) throw failures[0];
  if (deferred > 0) return { kind: "publish.deferred" };
  if (!published && skipped.length > 0) throw new NonRetriableError(`no active account of dimension ${dimension.id} takes this video: ${skipped.join("; ")}`);
  if (!published) throw new NonRetriableError(`dimension ${dimension.id} has no active account`);
  return { kind: "publish.completed", publicationId: published.publicationId, externalId: published.externalId };
};

type AccountResult = { kind: "published"; publicationId: string; externalId: string } | { kind: "deferred" } | { kind: "skipped"; reason: string };

/**
 * How the reason of an account whose credentials were sealed with a key the ring lacks begins: a
 * rotation that re-seals them (the key put back as a previous key) clears it
 * (mdame.reseal_account_credentials), as a reconnect does.
 */
const CREDENTIALS_KEY_MISSING = "credentials key missing";

/** One account's publication: published (now or before), or deferred with its reason and time. */
async function publishToAccount<Ticket, Metadata>(
  deps: PipelineDeps,
  log: Logger,
  lease: StageLease,
  adapter: PlatformAdapter<Ticket, Metadata>,
  input: { unitId: string; target: PublishTarget; videoFile: () => Promise<VideoFile>; metadataInput: MetadataInput },
): Promise<AccountResult> {
  const { target } = input;
  const publication = await beginPublication(deps.sql, input.unitId, target.account_id);
  if (publication.status === "published") {
    if (publication.external_id === null) throw new Error(`publication ${publication.id} is published without a video id`);
    await recordPublication(deps.sql, lease, publication.id, publication.external_id);
    return { kind: "published", publicationId: publication.id, externalId: publication.external_id };
  }
  if (publication.status === "skipped") return { kind: "skipped", reason: publication.skip_reason ?? "skipped" };
  const defer = async (reason: DeferralReason, notBefore: Date | null): Promise<AccountResult> => {
    await deferPublication(deps.sql, publication.id, reason, notBefore);
    log.info({ reason, not_before: notBefore?.toISOString() ?? null, status: "deferred" }, "publication deferred");
    return { kind: "deferred" };
  };
  const needsReconnect = async (reason: string): Promise<AccountResult> => {
    await markAccountNeedsReconnect(deps.sql, target.account_id, reason);
    return defer("needs_reconnect", null);
  };
  // Asked before anything else: a video the platform will not take waits for nothing.
  const refused = publication.upload_session_uri === null ? adapter.refuseVideo?.(input.metadataInput) ?? null : null;
  if (refused !== null) {
    await skipPublication(deps.sql, publication.id, refused);
    log.warn({ reason: refused, status: "skipped" }, "this account will not take the video; the other accounts go on");
    return { kind: "skipped", reason: refused };
  }
  if (target.health_state === "needs_reconnect") return defer("needs_reconnect", null);
  if (!target.credentials_enc) return needsReconnect("no credentials stored");

  const reservation = await adapter.reserve(deps, { target, publicationId: publication.id, resuming: publication.upload_session_uri !== null });
  if (reservation.kind === "deferred") return defer(reservation.reason, reservation.notBefore);
  const { ticket } = reservation;

  const metadata = adapter.metadata(input.metadataInput);
  let video: PublishedVideo;
  try {
    const credentials = await decryptCredentials(deps.credentialKeys, target.credentials_enc, target.account_id);
    const accessToken = await adapter.accessToken(deps, { target, refreshToken: credentials.refresh_token });
    video = await uploadOnce(deps, log, adapter, {
      publicationId: publication.id,
      ticket,
      storedSession: publication.upload_session_uri,
      accessToken,
      video: await input.videoFile(),
      metadata,
    });
  } catch (error) {
    const refusal = await adapter.refusal(deps, ticket, error);
    if (refusal?.kind === "defer") return defer(refusal.reason, refusal.notBefore);
    // Nothing was accepted unless the session opened (the call is then settled for good).
    const opened = (await getPublication(deps.sql, publication.id))?.upload_session_uri != null;
    if (!opened) await adapter.release(deps, ticket);
    if (refusal?.kind === "grant_refused") return needsReconnect(refusal.reason);
    // Credentials the key ring cannot open are this account's problem alone: retrying cannot help,
    // and the unit's other accounts publish. The reason names the key and both fixes.
    if (error instanceof CredentialsKeyMissingError) return needsReconnect(`${CREDENTIALS_KEY_MISSING}: ${error.message}`);
    if (error instanceof CredentialsTamperedError) return needsReconnect(error.message);
    throw error;
  }
  failpoint("publish.after-upload-before-record");
  await recordPublication(deps.sql, lease, publication.id, video.externalId);
  if (video.privacy !== undefined) {
    // What was asked: a platform may lock an upload private (an API client that has not passed its audit).
    const requested = adapter.requestedPrivacy(metadata);
    await recordPublicationPrivacy(deps.sql, publication.id, video.privacy, requested);
    if (video.privacy !== requested) {
      log.warn(
        { external_id: video.externalId, privacy_status: video.privacy },
        `${adapter.platform} locked the upload private: the API client has not passed the platform's audit`,
      );
    }
  }
  log.info({ external_id: video.externalId, status: "succeeded" }, "published");
  return { kind: "published", publicationId: publication.id, externalId: video.externalId };
}

interface UploadInput<Ticket, Metadata> {
  publicationId: string;
  /** The call's place in the platform's ledger, settled once the platform opened the session. */
  ticket: Ticket;
  storedSession: string | null;
  accessToken: string;
  video: VideoFile;
  metadata: Metadata;
}

/** An upload step: the platform's adapter sends one video, opening or resuming its session. */
type UploadStep = <Ticket, Metadata>(
  deps: PipelineDeps,
  log: Logger,
  adapter: PlatformAdapter<Ticket, Metadata>,
  input: UploadInput<Ticket, Metadata>,
) => Promise<PublishedVideo>;

/** One upload attempt; an expired session is forgotten so the next attempt opens a new one. */
const uploadOnce: UploadStep = async (deps, log, adapter, input) => {
  try {
    return await uploadOrResume(deps, log, adapter, input);
  } catch (error) {
    if (!adapter.sessionExpired(error)) throw error;
    const publication = await getPublication(deps.sql, input.publicationId);
    if (publication?.upload_session_uri) {
      await clearUploadSession(deps.sql, input.publicationId, publication.upload_session_uri);
    }
    throw new Error("the stored upload session expired; a new one opens on the next attempt", { cause: error });
  }
};

const uploadOrResume: UploadStep = async (deps, log, adapter, input) => {
  let session = input.storedSession;
  let offset = 0;
  if (session) {
    const status = await adapter.querySession(deps, {
      ticket: input.ticket,
      accessToken: input.accessToken,
      session,
      contentLength: input.video.contentLength,
    });
    if (status.complete) {
      log.info({ external_id: status.video.externalId, status: "succeeded" }, "upload had already completed");
      return status.video;
    }
    offset = status.nextByte;
    log.info({ offset }, "resuming the stored upload session");
  } else {
    const opened = await adapter.startSession(deps, log, {
      ticket: input.ticket,
      accessToken: input.accessToken,
      metadata: input.metadata,
      video: input.video,
    });
    // Stored before the first byte; if another attempt stored one first, that one is used.
    // The platform accepted the call: it counts, whatever happens to the bytes.
    await adapter.settle(deps, input.ticket);
    const stored = await recordUploadSession(deps.sql, input.publicationId, opened);
    session = stored.upload_session_uri ?? opened;
    if (session !== opened) return uploadOrResume(deps, log, adapter, { ...input, storedSession: session });
    failpoint("publish.after-session-stored");
  }
  return await adapter.sendFrom(deps, log, {
    ticket: input.ticket,
    accessToken: input.accessToken,
    session,
    video: input.video,
    offset,
    onProgress: (sent: number) => {
      log.debug({ sent, total: input.video.contentLength }, "upload progress");
      if (sent > offset && sent < input.video.contentLength) failpoint("publish.mid-upload");
    },
  });
};
