/**
 * The analytics fetches the tick drains after its stage tasks (docs/reference/analytics.md). Each
 * claimed fetch (a published video's day-3 or day-7 window, enqueued hourly by
 * mdame.schedule_analytics_fetches) opens the account's refresh token and, by the publication's
 * platform:
 * - YouTube: reserves each reports.query in the Google project's analytics bucket of the quota
 *   ledger, asks the totals and the retention curve of the days since publication, and records them
 *   with mdame.record_video_analytics;
 * - TikTok: takes a place in the account's video.query rate window (600 a minute) and asks
 *   video/query for the post's counts (views, likes, comments, shares: TikTok reports no watch
 *   time). A post TikTok no longer lists (deleted, or made private) is given up;
 * - Instagram and Facebook: the Reel's insights through Graph with the adapter's token (the user's
 *   for Instagram, the Page's for Facebook): views, likes, comments, shares, reach, Instagram's
 *   saves and the average watch time; none yet is asked again later, as YouTube's lag is.
 *   The three platforms' counts are recorded with mdame.record_counted_video_analytics.
 * Either RPC archives the message once the row is written.
 *
 * What is not a success is retried through mdame.retry_analytics_fetch, never in a loop:
 * - no rows yet (YouTube's data lags 48-72 h): again in LAG_RETRY_S;
 * - the project's analytics bucket spent (the ledger's MDQ02, or YouTube's 403 quotaExceeded,
 *   which the ledger takes over): again when the bucket resets at Pacific midnight;
 * - a grant Google refused (invalid_grant, a 401 with a fresh token, 403 insufficientPermissions:
 *   a grant without yt-analytics.readonly) or credentials the key ring cannot open: the account is
 *   marked needs_reconnect through the publish stage's path, and the fetch waits ACCOUNT_RETRY_S;
 * - an outage (5xx, 429, no answer): exponential backoff with full jitter, 1 min .. 1 h;
 * - anything else (a 4xx for the query itself, a video that is no longer the channel's) gives up.
 * A fetch claimed MAX_ATTEMPTS times is given up (an event analytics_fetch_given_up records it).
 */
import { CredentialsKeyMissingError, CredentialsTamperedError, decryptCredentials } from "../../../shared/crypto/credentials.ts";
import { markAccountNeedsReconnect } from "../../../shared/db/rpc/accounts.ts";
import {
  claimAnalyticsFetches,
  type ClaimedAnalyticsFetch,
  recordCountedVideoAnalytics,
  recordVideoAnalytics,
  retryAnalyticsFetch,
} from "../../../shared/db/rpc/analytics.ts";
import { RateWindowFullError } from "../../../shared/db/errors.ts";
import { reserveTikTokCall } from "../../../shared/db/rpc/tiktok-calls.ts";
import { classifyTikTokRefusal } from "../../../shared/providers/tiktok/refusals.ts";
import { queryVideoFigures } from "../../../shared/providers/tiktok/video-query.ts";
import { platformAdapter } from "../platforms/registry.ts";
import { hostOf } from "../platforms/meta-common.ts";
import { classifyMetaRefusal } from "../../../shared/providers/meta/refusals.ts";
import { facebookReelInsights, instagramReelInsights } from "../../../shared/providers/meta/insights.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import { ProviderError } from "../../../shared/providers/errors.ts";
import type { PostCounts } from "../../../shared/contracts/analytics.ts";
import { withYouTubeQuota } from "../../../shared/providers/youtube/quota.ts";
import { classifyYouTubeRefusal } from "../../../shared/providers/youtube/refusals.ts";
import { queryVideoRetention, queryVideoTotals, type VideoReportQuery } from "../../../shared/providers/youtube/analytics.ts";
import type { PipelineDeps } from "../deps.ts";
import { DAY_MS } from "../../../shared/time.ts";
import { outageDelayS } from "../../../shared/backoff.ts";

export const MAX_ATTEMPTS = 12;
const LAG_RETRY_S = 3 * 3600;
const ACCOUNT_RETRY_S = 6 * 3600;
const CLAIM_BATCH = 5;
/** Long enough for two reports.query calls and a token refresh. */
const CLAIM_VT_S = 120;

interface AnalyticsDrain {
  fetched: number;
  retried: number;
  given_up: number;
}

type Outcome =
  | { kind: "fetched" }
  | { kind: "retry"; delayS: number; reason: string }
  | { kind: "give_up"; reason: string };

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

class Refused extends Error {
  constructor(readonly outcome: Outcome) {
    super(outcome.kind === "fetched" ? "fetched" : outcome.reason);
  }
}

/** One reports.query through the quota steps every metered YouTube call takes (withYouTubeQuota). */
async function meteredQuery<T>(deps: PipelineDeps, fetch: ClaimedAnalyticsFetch, call: () => Promise<T>): Promise<T> {
  const metered = await withYouTubeQuota(deps.sql, { accountId: fetch.account_id, callKind: "analytics.reports.query" }, call);
  if (metered.kind === "answered") return metered.value;
  const until = metered.notBefore ?? new Date(fetch.engine_now.getTime() + 3600_000);
  const reason = metered.by === "youtube"
    ? `YouTube Analytics answered quotaExceeded; the bucket is spent until ${until.toISOString()}`
    : `analytics quota spent until ${until.toISOString()}`;
  throw new Refused({ kind: "retry", delayS: delayUntil(fetch, until), reason });
}

function delayUntil(fetch: ClaimedAnalyticsFetch, notBefore: Date): number {
  return Math.min(7 * 86_400, Math.max(60, Math.ceil((notBefore.getTime() - fetch.engine_now.getTime()) / 1000)));
}

async function needsReconnect(deps: PipelineDeps, log: Logger, fetch: ClaimedAnalyticsFetch, reason: string): Promise<Outcome> {
  await markAccountNeedsReconnect(deps.sql, fetch.account_id, reason);
  log.warn({ status: "needs_reconnect", reason }, "analytics fetch: the account needs reconnecting");
  return { kind: "retry", delayS: ACCOUNT_RETRY_S, reason: `account needs reconnecting: ${reason}` };
}

/** The account's refresh token, or the outcome when it cannot be opened (the account then needs a new connect). */
async function refreshTokenOf(deps: PipelineDeps, log: Logger, fetch: ClaimedAnalyticsFetch): Promise<string | Outcome> {
  try {
    return (await decryptCredentials(deps.credentialKeys, fetch.credentials_enc!, fetch.account_id)).refresh_token;
  } catch (error) {
    if (error instanceof CredentialsKeyMissingError || error instanceof CredentialsTamperedError) return await needsReconnect(deps, log, fetch, error.message);
    throw error;
  }
}

async function fetchOne(deps: PipelineDeps, log: Logger, fetch: ClaimedAnalyticsFetch): Promise<Outcome> {
  if (!fetch.external_id || !fetch.published_at) return { kind: "give_up", reason: "the publication has no platform id or publication time" };
  if (!fetch.account_ready) return { kind: "retry", delayS: ACCOUNT_RETRY_S, reason: "the account is paused, needs reconnecting or holds no credentials" };
  const refreshToken = await refreshTokenOf(deps, log, fetch);
  if (typeof refreshToken !== "string") return refreshToken;
  return fetch.platform === "youtube" ? await fetchYouTube(deps, log, fetch, refreshToken) : await fetchCounted(deps, log, fetch, refreshToken);
}

/** The period a window covers: the day of publication to `window_days` later (UTC dates). */
function windowPeriod(fetch: ClaimedAnalyticsFetch): { startDate: string; endDate: string } {
  const publishedMs = fetch.published_at!.getTime();
  return { startDate: utcDate(publishedMs), endDate: utcDate(publishedMs + fetch.window_days * DAY_MS) };
}

/** TikTok's video/query for the post, in the account's video.query rate window (a full window: RateWindowFullError); "gone" when it no longer lists the post. */
async function tiktokCounts(deps: PipelineDeps, fetch: ClaimedAnalyticsFetch, accessToken: string): Promise<PostCounts | "gone"> {
  await reserveTikTokCall(deps.sql, fetch.account_id, "video.query");
  const [figures] = await queryVideoFigures({ accessToken, baseUrl: deps.env.TIKTOK_API_BASE_URL, postIds: [fetch.external_id!] });
  if (!figures) return "gone";
  return {
    views: figures.viewCount,
    likes: figures.likeCount,
    comments: figures.commentCount,
    shares: figures.shareCount,
    reach: null,
    saved: null,
    averageViewDurationS: null,
  };
}

/** Instagram's media insights or a Facebook Reel's video insights (the adapter's token: the user's, or the Page's). */
async function metaCounts(deps: PipelineDeps, fetch: ClaimedAnalyticsFetch, accessToken: string): Promise<PostCounts | null> {
  const host = hostOf(deps);
  return fetch.platform === "instagram"
    ? await instagramReelInsights({ host, token: accessToken, mediaId: fetch.external_id! })
    : await facebookReelInsights({ host, pageToken: accessToken, videoId: fetch.external_id! });
}

/**
 * A post on a platform whose figures are counts (TikTok, Instagram, Facebook): the account's token
 * from its adapter (refreshed and re-sealed as the publish stage does), the counts, recorded with
 * mdame.record_counted_video_analytics.
 */
async function fetchCounted(deps: PipelineDeps, log: Logger, fetch: ClaimedAnalyticsFetch, refreshToken: string): Promise<Outcome> {
  const target = {
    account_id: fetch.account_id,
    platform: fetch.platform,
    channel_handle: fetch.channel_handle,
    channel_id: fetch.channel_id,
    credentials_enc: fetch.credentials_enc,
    health_state: "ok" as const,
  };
  try {
    const accessToken = await platformAdapter(fetch.platform).accessToken(deps, { target, refreshToken });
    const counts = fetch.platform === "tiktok" ? await tiktokCounts(deps, fetch, accessToken) : await metaCounts(deps, fetch, accessToken);
    if (counts === "gone") return { kind: "give_up", reason: `TikTok no longer lists the post ${fetch.external_id} (deleted, or no longer public)` };
    if (counts === null) return { kind: "retry", delayS: LAG_RETRY_S, reason: `${fetch.platform} has no insights for the post yet` };
    const period = windowPeriod(fetch);
    const row = await recordCountedVideoAnalytics(deps.sql, {
      publicationId: fetch.publication_id,
      windowDays: fetch.window_days,
      periodStart: period.startDate,
      periodEnd: period.endDate,
      ...counts,
      msgId: fetch.msg_id,
    });
    log.info({ status: "fetched", views: row.views, likes: row.likes, comments: row.comments, shares: row.shares, reach: row.reach }, "analytics fetched");
    return { kind: "fetched" };
  } catch (error) {
    if (error instanceof RateWindowFullError) {
      const until = error.notBefore ?? new Date(fetch.engine_now.getTime() + 60_000);
      return { kind: "retry", delayS: delayUntil(fetch, until), reason: `the account's video.query rate window is full until ${until.toISOString()}` };
    }
    const refusal = fetch.platform === "tiktok" ? classifyTikTokRefusal(error) : classifyMetaRefusal(error);
    if (refusal?.kind === "needs_reconnect") return await needsReconnect(deps, log, fetch, refusal.reason);
    if (refusal?.kind === "try_later" || refusal?.kind === "rate_limited") {
      return { kind: "retry", delayS: delayUntil(fetch, refusal.notBefore), reason: refusal.reason };
    }
    if (!(error instanceof ProviderError)) throw error;
    if (error.retriable) return { kind: "retry", delayS: outageDelayS(fetch.attempts), reason: error.message };
    return { kind: "give_up", reason: error.message };
  }
}

async function fetchYouTube(deps: PipelineDeps, log: Logger, fetch: ClaimedAnalyticsFetch, refreshToken: string): Promise<Outcome> {
  let accessToken: string;
  try {
    accessToken = await deps.youtubeAccessToken({ accountId: fetch.account_id, refreshToken });
  } catch (error) {
    // The same refusals of the grant as the publish stage's: expired or revoked, or granted to another client.
    const refusal = classifyYouTubeRefusal(error);
    if (refusal?.kind === "grant_refused") return await needsReconnect(deps, log, fetch, refusal.reason);
    throw error;
  }
  const query: VideoReportQuery = { baseUrl: deps.env.YOUTUBE_ANALYTICS_BASE_URL, accessToken, videoId: fetch.external_id!, ...windowPeriod(fetch) };
  try {
    const totals = await meteredQuery(deps, fetch, () => queryVideoTotals(query));
    if (!totals) return { kind: "retry", delayS: LAG_RETRY_S, reason: "YouTube Analytics has no data for the video yet" };
    const retention = await meteredQuery(deps, fetch, () => queryVideoRetention(query));
    if (!retention) return { kind: "retry", delayS: LAG_RETRY_S, reason: "YouTube Analytics has no retention data for the video yet" };
    const row = await recordVideoAnalytics(deps.sql, {
      publicationId: fetch.publication_id,
      windowDays: fetch.window_days,
      periodStart: query.startDate,
      periodEnd: query.endDate,
      views: totals.views,
      engagedViews: totals.engagedViews,
      averageViewDurationS: totals.averageViewDuration,
      averageViewPercentage: totals.averageViewPercentage,
      likes: totals.likes,
      retention,
      msgId: fetch.msg_id,
    });
    log.info(
      { status: "fetched", views: row.views, engaged_views: row.engaged_views, average_view_percentage: row.average_view_percentage },
      "analytics fetched",
    );
    return { kind: "fetched" };
  } catch (error) {
    if (error instanceof Refused) return error.outcome;
    if (!(error instanceof ProviderError)) throw error;
    if (error.status === 401) return await needsReconnect(deps, log, fetch, `YouTube Analytics refused a fresh access token (401): ${error.message}`);
    if (error.status === 403 && error.apiReason === "insufficientPermissions") {
      return await needsReconnect(deps, log, fetch, "the grant lacks the yt-analytics.readonly scope");
    }
    if (error.retriable) return { kind: "retry", delayS: outageDelayS(fetch.attempts), reason: error.message };
    return { kind: "give_up", reason: error.message };
  }
}

async function settle(deps: PipelineDeps, log: Logger, fetch: ClaimedAnalyticsFetch, outcome: Outcome, drained: AnalyticsDrain): Promise<void> {
  if (outcome.kind === "fetched") {
    drained.fetched += 1;
    return;
  }
  const giveUp = outcome.kind === "give_up" || fetch.attempts >= MAX_ATTEMPTS;
  const reason = outcome.kind === "retry" && giveUp ? `gave up after ${fetch.attempts} attempts; last: ${outcome.reason}` : outcome.reason;
  await retryAnalyticsFetch(deps.sql, {
    publicationId: fetch.publication_id,
    windowDays: fetch.window_days,
    msgId: fetch.msg_id,
    delaySeconds: outcome.kind === "retry" ? outcome.delayS : 60,
    reason,
    giveUp,
  });
  if (giveUp) {
    drained.given_up += 1;
    log.warn({ status: "given_up", attempts: fetch.attempts, reason }, "analytics fetch given up");
  } else {
    drained.retried += 1;
    log.info({ status: "retry", attempts: fetch.attempts, delay_s: outcome.kind === "retry" ? outcome.delayS : 60, reason }, "analytics fetch retried later");
  }
}

/**
 * Drains the analytics fetches that are due, for at most `budgetMs`. A fetch whose database work
 * fails is left to its claim's visibility timeout and counted again when next claimed.
 */
export async function drainAnalyticsFetches(deps: PipelineDeps, options: { budgetMs: number }): Promise<AnalyticsDrain> {
  const started = Date.now();
  const drained: AnalyticsDrain = { fetched: 0, retried: 0, given_up: 0 };
  while (Date.now() - started < options.budgetMs) {
    const claimed = await claimAnalyticsFetches(deps.sql, CLAIM_BATCH, CLAIM_VT_S);
    if (claimed.length === 0) break;
    for (const fetch of claimed) {
      const log = deps.logger.child({
        stage: "analytics",
        execution_id: fetch.run_id,
        dimension_id: fetch.dimension_id,
        unit_id: fetch.unit_id,
        publication_id: fetch.publication_id,
        window_days: fetch.window_days,
        msg_id: fetch.msg_id,
      });
      try {
        await settle(deps, log, fetch, await fetchOne(deps, log, fetch), drained);
      } catch (error) {
        log.error({ status: "error", err: error }, "analytics fetch failed; its message comes back after the claim's timeout");
      }
    }
  }
  return drained;
}
