/**
 * The Shorts thumbnails the tick sets after its stage tasks (docs/reference/distribution.md,
 * "Thumbnails"). A published YouTube video whose render has a cover image is enqueued once by SQL
 * (mdame.enqueue_thumbnail_set, when the publication is confirmed); each claimed set:
 *
 * 1. asks YouTube where its processing is (videos.list processingDetails, 1 unit of the ledger):
 *    still processing -> again in PROCESSING_RETRY_S; failed, terminated or gone -> given up;
 * 2. once it succeeded, reads the cover from Storage and calls thumbnails.set (about 50 units):
 *    YouTube applies a Short's thumbnail only after its processing succeeded, which is why step 1 comes first.
 *
 * Nothing here touches the publication: the video is out (public or scheduled) whatever becomes of its
 * thumbnail. What is not a success is retried through mdame.finish_thumbnail_set, never in a loop:
 * a spent bucket waits for its reset; a grant Google refused marks the account needs_reconnect and
 * waits ACCOUNT_RETRY_S; an outage (5xx, 429, no answer) backs off 1 min .. 1 h; a refusal of the
 * image or of the channel (403 forbidden: a channel that may not set custom thumbnails, such as one
 * whose phone verification is missing) is given up with YouTube's words. A set claimed MAX_ATTEMPTS
 * times is given up (event thumbnail_set_given_up).
 */
import { outageDelayS } from "../../../shared/backoff.ts";
import { CredentialsKeyMissingError, CredentialsTamperedError, decryptCredentials } from "../../../shared/crypto/credentials.ts";
import { markAccountNeedsReconnect } from "../../../shared/db/rpc/accounts.ts";
import { type ClaimedThumbnailSet, claimThumbnailSets, finishThumbnailSet } from "../../../shared/db/rpc/thumbnails.ts";
import type { YouTubeCallKind } from "../../../shared/db/rpc/quota-ledger.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import { ProviderError } from "../../../shared/providers/errors.ts";
import { withYouTubeQuota } from "../../../shared/providers/youtube/quota.ts";
import { classifyYouTubeRefusal } from "../../../shared/providers/youtube/refusals.ts";
import { setVideoThumbnail, videoProcessingStatus } from "../../../shared/providers/youtube/thumbnails.ts";
import { readAssetBytes } from "../../../shared/storage/asset-bytes.ts";
import { AssetNotFoundError } from "../../../shared/storage/asset-store.ts";
import type { PipelineDeps } from "../deps.ts";

/** Enough for YouTube to process a Short for half an hour at PROCESSING_RETRY_S, with outages between. */
export const MAX_ATTEMPTS = 40;
/** How soon a video still processing is asked about again. */
export const PROCESSING_RETRY_S = 60;
const ACCOUNT_RETRY_S = 6 * 3600;
const CLAIM_BATCH = 5;
/** Long enough for a token refresh, a videos.list and an image upload. */
const CLAIM_VT_S = 120;

export interface ThumbnailDrain {
  set: number;
  retried: number;
  given_up: number;
}

type Outcome =
  | { kind: "set" }
  | { kind: "retry"; delayS: number; reason: string }
  | { kind: "give_up"; reason: string };

class Stop extends Error {
  constructor(readonly outcome: Outcome) {
    super(outcome.kind === "set" ? "set" : outcome.reason);
  }
}

/** One Data API call through the quota steps every metered YouTube call takes; a spent bucket stops the set until it resets. */
async function metered<T>(deps: PipelineDeps, claimed: ClaimedThumbnailSet, callKind: YouTubeCallKind, call: () => Promise<T>): Promise<T> {
  const answer = await withYouTubeQuota(deps.sql, { accountId: claimed.account_id, callKind }, call);
  if (answer.kind === "answered") return answer.value;
  const until = answer.notBefore ?? new Date(claimed.engine_now.getTime() + 3600_000);
  const delayS = Math.min(7 * 86_400, Math.max(60, Math.ceil((until.getTime() - claimed.engine_now.getTime()) / 1000)));
  throw new Stop({ kind: "retry", delayS, reason: `${callKind}: the YouTube quota is spent until ${until.toISOString()}` });
}

async function needsReconnect(deps: PipelineDeps, log: Logger, claimed: ClaimedThumbnailSet, reason: string): Promise<Outcome> {
  await markAccountNeedsReconnect(deps.sql, claimed.account_id, reason);
  log.warn({ status: "needs_reconnect", reason }, "thumbnail: the account needs reconnecting");
  return { kind: "retry", delayS: ACCOUNT_RETRY_S, reason: `account needs reconnecting: ${reason}` };
}

async function setOne(deps: PipelineDeps, log: Logger, claimed: ClaimedThumbnailSet): Promise<Outcome> {
  if (!claimed.external_id) return { kind: "give_up", reason: "the publication has no YouTube video id" };
  if (!claimed.account_ready) return { kind: "retry", delayS: ACCOUNT_RETRY_S, reason: "the account is paused, needs reconnecting or holds no credentials" };
  let refreshToken: string;
  try {
    refreshToken = (await decryptCredentials(deps.credentialKeys, claimed.credentials_enc!, claimed.account_id)).refresh_token;
  } catch (error) {
    if (error instanceof CredentialsKeyMissingError || error instanceof CredentialsTamperedError) {
      return await needsReconnect(deps, log, claimed, error.message);
    }
    throw error;
  }
  let accessToken: string;
  try {
    accessToken = await deps.youtubeAccessToken({ accountId: claimed.account_id, refreshToken });
  } catch (error) {
    const refusal = classifyYouTubeRefusal(error);
    if (refusal?.kind === "grant_refused") return await needsReconnect(deps, log, claimed, refusal.reason);
    throw error;
  }
  const videoId = claimed.external_id;
  try {
    const processing = await metered(
      deps,
      claimed,
      "videos.list",
      () => videoProcessingStatus({ apiBaseUrl: deps.env.YOUTUBE_API_BASE_URL, accessToken, videoId }),
    );
    if (processing === "processing") return { kind: "retry", delayS: PROCESSING_RETRY_S, reason: "YouTube is still processing the video" };
    if (processing === "gone") return { kind: "give_up", reason: "YouTube no longer lists the video (deleted, or not the channel's)" };
    if (processing !== "succeeded") return { kind: "give_up", reason: `YouTube's processing of the video ${processing}` };
    let image: Uint8Array;
    try {
      image = await readAssetBytes(deps.store, claimed.cover_key, "thumbnail");
    } catch (error) {
      if (error instanceof AssetNotFoundError) return { kind: "give_up", reason: `the cover ${claimed.cover_key} is no longer stored` };
      throw error;
    }
    await metered(
      deps,
      claimed,
      "thumbnails.set",
      () => setVideoThumbnail({ uploadBaseUrl: deps.env.YOUTUBE_UPLOAD_BASE_URL, accessToken, videoId, image, contentType: "image/jpeg" }),
    );
    log.info({ status: "set", cover_key: claimed.cover_key, bytes: image.length }, "thumbnail set");
    return { kind: "set" };
  } catch (error) {
    if (error instanceof Stop) return error.outcome;
    if (!(error instanceof ProviderError)) throw error;
    if (error.status === 401) return await needsReconnect(deps, log, claimed, `YouTube refused a fresh access token (401): ${error.message}`);
    if (error.retriable) return { kind: "retry", delayS: outageDelayS(claimed.attempts), reason: error.message };
    return { kind: "give_up", reason: error.message };
  }
}

async function settle(deps: PipelineDeps, log: Logger, claimed: ClaimedThumbnailSet, outcome: Outcome, drained: ThumbnailDrain): Promise<void> {
  const at = { publicationId: claimed.publication_id, msgId: claimed.msg_id };
  if (outcome.kind === "set") {
    await finishThumbnailSet(deps.sql, { ...at, outcome: "set" });
    drained.set += 1;
    return;
  }
  if (outcome.kind === "give_up" || claimed.attempts >= MAX_ATTEMPTS) {
    const reason = outcome.kind === "retry" ? `gave up after ${claimed.attempts} attempts; last: ${outcome.reason}` : outcome.reason;
    await finishThumbnailSet(deps.sql, { ...at, outcome: "give_up", reason });
    drained.given_up += 1;
    log.warn({ status: "given_up", attempts: claimed.attempts, reason }, "thumbnail given up; the video stays as it is");
    return;
  }
  await finishThumbnailSet(deps.sql, { ...at, outcome: "retry", reason: outcome.reason, delaySeconds: outcome.delayS });
  drained.retried += 1;
  log.info({ status: "retry", attempts: claimed.attempts, delay_s: outcome.delayS, reason: outcome.reason }, "thumbnail set later");
}

/**
 * Sets the thumbnails that are due, for at most `budgetMs`. A set whose database work fails is left
 * to its claim's visibility timeout and counted again when next claimed.
 */
export async function drainThumbnailSets(deps: PipelineDeps, options: { budgetMs: number }): Promise<ThumbnailDrain> {
  const started = Date.now();
  const drained: ThumbnailDrain = { set: 0, retried: 0, given_up: 0 };
  while (Date.now() - started < options.budgetMs) {
    const claimed = await claimThumbnailSets(deps.sql, CLAIM_BATCH, CLAIM_VT_S);
    if (claimed.length === 0) break;
    for (const set of claimed) {
      const log = deps.logger.child({
        stage: "thumbnail",
        execution_id: set.run_id,
        dimension_id: set.dimension_id,
        unit_id: set.unit_id,
        publication_id: set.publication_id,
        msg_id: set.msg_id,
      });
      try {
        await settle(deps, log, set, await setOne(deps, log, set), drained);
      } catch (error) {
        log.error({ status: "error", err: error }, "thumbnail set failed; its message comes back after the claim's timeout");
      }
    }
  }
  return drained;
}
