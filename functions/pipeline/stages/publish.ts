import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { decryptCredentials } from "../../../shared/crypto/credentials.ts";
import {
  beginPublication,
  clearUploadSession,
  getPublication,
  getPublishTargets,
  recordPublication,
  recordUploadSession,
  reserveQuota,
} from "../../../shared/db/rpc/publications.ts";
import { NonRetriableError } from "../../../shared/errors.ts";
import { failpoint } from "../../../shared/failpoints.ts";
import { makeScratchDir } from "../../../shared/storage/scratch-dirs.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import {
  queryUploadStatus,
  startUploadSession,
  uploadFromOffset,
  UploadSessionExpiredError,
} from "../../../shared/providers/youtube/resumable-upload.ts";
import type { PipelineDeps } from "../deps.ts";
import type { PublishOutcome, Stage } from "../stage-task.ts";
import { acceptedScript, loadUnit, required } from "./unit.ts";

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
 * Distribution: per active account of the dimension, one publication. Quota is reserved first,
 * credentials are decrypted in memory only, and the resumable session URI is stored before the
 * first byte, so a crash mid-upload resumes the same session instead of starting a second copy.
 * Each finished upload is recorded at once (record_publication), so a failure on a later account
 * never loses it; the outcome names the last one, through which the runner publishes the unit.
 */
export const runPublish: Stage<"publish"> = async (task, { deps, logger: log, lease }) => {
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const video = required(unit.video, "video", unit.id);
  const script = acceptedScript(unit);
  const targets = await getPublishTargets(deps.sql, task.unit_id);
  if (targets.length === 0) throw new NonRetriableError(`dimension ${dimension.id} has no active account`);
  let last: PublishOutcome | null = null;

  const dir = await makeScratchDir("publish");
  try {
    const filePath = join(dir, "video.mp4");
    await deps.store.getFile(video.video_key, filePath);
    const contentLength = (await stat(filePath)).size;

    for (const target of targets) {
      const publication = await beginPublication(deps.sql, task.unit_id, target.account_id);
      let externalId = publication.external_id;
      if (publication.status !== "published") {
        await reserveQuota(deps.sql, publication.id);
        if (!target.credentials_enc) throw new NonRetriableError(`account ${target.channel_handle} has no credentials`);
        const credentials = await decryptCredentials(deps.credentialKeys, target.credentials_enc, target.account_id);
        const accessToken = await deps.youtubeAccessToken(credentials.refresh_token);
        externalId = await uploadOnce(deps, log, {
          publicationId: publication.id,
          storedSessionUri: publication.upload_session_uri,
          accessToken,
          filePath,
          contentLength,
          metadata: {
            snippet: {
              title: youtubeText(script.title).slice(0, 100),
              description: youtubeText(withHashtags(script.description, script.hashtags)).slice(0, 5000),
              tags: script.hashtags.map((h) => h.replace(/^#/, "")),
              categoryId: "27",
              // YouTube takes BCP-47 language tags, the dimension's own.
              defaultLanguage: dimension.language,
            },
            status: { privacyStatus: "public", selfDeclaredMadeForKids: false },
          },
        });
        failpoint("publish.after-upload-before-record");
      }
      if (externalId === null) throw new Error(`publication ${publication.id} is published without a video id`);
      await recordPublication(deps.sql, lease, publication.id, externalId);
      log.info({ account: target.channel_handle, external_id: externalId }, "published");
      last = { kind: "publish.completed", publicationId: publication.id, externalId };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (!last) throw new NonRetriableError(`dimension ${dimension.id} has no active account`);
  return last;
};

/** YouTube refuses `<` and `>` in titles and descriptions. */
function youtubeText(text: string): string {
  return text.replace(/[<>]/g, "");
}

/** Appends the hashtags the description does not already carry. */
export function withHashtags(description: string, hashtags: string[]): string {
  const missing = hashtags.filter((h) => !description.toLocaleLowerCase().includes(h.toLocaleLowerCase()));
  return missing.length === 0 ? description : `${description}\n\n${missing.join(" ")}`;
}

/** One upload attempt; an expired session is forgotten so the next attempt opens a new one. */
async function uploadOnce(
  deps: PipelineDeps,
  log: Logger,
  input: Parameters<typeof uploadOrResume>[2],
): Promise<string> {
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
    storedSessionUri: string | null;
    accessToken: string;
    filePath: string;
    contentLength: number;
    metadata: Record<string, unknown>;
  },
): Promise<string> {
  let sessionUri = input.storedSessionUri;
  let offset = 0;
  if (sessionUri) {
    const status = await queryUploadStatus({ sessionUri, accessToken: input.accessToken, contentLength: input.contentLength });
    if (status.complete) {
      log.info({ video_id: status.video.id }, "upload had already completed");
      return status.video.id;
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
  return video.id;
}
