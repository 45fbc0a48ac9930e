import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { decryptCredentials } from "../../../shared/crypto/credentials.ts";
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
import type { StageMessage } from "../stage-runner.ts";
import { loadUnit } from "./unit.ts";

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
 */
export async function runPublish(deps: PipelineDeps, { msgId, holder, task }: StageMessage, log: Logger) {
  if (task.stage !== "publish") throw new Error("not a publish task");
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const video = unit.video as { video_key: string };
  const script = unit.script as { title: string; description: string; hashtags: string[] };
  const targets = await deps.sql`select * from mdame.get_publish_targets(${task.unit_id})`;
  if (targets.length === 0) throw new NonRetriableError(`dimension ${dimension.id} has no active account`);

  const dir = await makeScratchDir("publish");
  try {
    const filePath = join(dir, "video.mp4");
    await deps.store.getFile(video.video_key, filePath);
    const contentLength = (await stat(filePath)).size;

    for (const target of targets) {
      const [publication] = await deps.sql`select * from mdame.begin_publication(${task.unit_id}, ${target.account_id})`;
      let externalId: string | null = publication.external_id;
      if (publication.status !== "published") {
        await deps.sql`select mdame.reserve_quota(${publication.id})`;
        if (!target.credentials_enc) throw new NonRetriableError(`account ${target.channel_handle} has no credentials`);
        const credentials = await decryptCredentials(deps.env.CREDENTIALS_KEY, target.credentials_enc, target.account_id);
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
      await deps.sql`select mdame.complete_publication(${msgId}, ${publication.id}, ${externalId}, ${task.step_token}, ${holder})`;
      log.info({ account: target.channel_handle, external_id: externalId }, "published");
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

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
    const [publication] = await deps.sql`select upload_session_uri from mdame.get_publication(${input.publicationId}::uuid)`;
    if (publication?.upload_session_uri) {
      await deps.sql`select mdame.clear_upload_session(${input.publicationId}, ${publication.upload_session_uri})`;
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
    const [stored] = await deps.sql`select * from mdame.record_upload_session(${input.publicationId}, ${uri})`;
    sessionUri = stored.upload_session_uri as string;
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
