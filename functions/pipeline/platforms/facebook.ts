/**
 * Facebook Page Reels as a platform of the publish stage (docs/reference/platforms.md), through the
 * Reels Publishing API with the Page's token (shared/providers/meta/facebook-reels.ts):
 * - the ledger is the Page's moving 24-hour limit, "30 API-published posts" (Meta offers no call to
 *   read it): the post takes its place in mdame.meta_posts before any call, and a full window defers
 *   the publication (`channel_cap`) until it has room; Meta refusing the finish for its own count
 *   holds the Page the same way;
 * - a video outside Reels' 3 to 90 seconds, or a dimension that asks for another privacy than a
 *   Page's public, is skipped with its reason before any call (the unit's other accounts publish);
 * - a session is the Reel's video id, stored before the first byte; the bytes go to the upload host
 *   from the offset Meta holds; the finish (video_state PUBLISHED) is made once every byte is in,
 *   and a repeated finish posts nothing more; the Reel is then polled until it is published;
 * - the long-lived user token is exchanged for a fresh one before each attempt and re-sealed, and
 *   the Page token is read with it.
 */
import { z } from "zod";
import { ChannelCapReachedError } from "../../../shared/db/errors.ts";
import { releaseMetaPost, reserveMetaPost } from "../../../shared/db/rpc/meta-posts.ts";
import { failpoint } from "../../../shared/failpoints.ts";
import { finishReel, readReel, type ReelState, startReel } from "../../../shared/providers/meta/facebook-reels.ts";
import { metaUserToken, pageAccessToken } from "../../../shared/providers/meta/tokens.ts";
import type { PipelineDeps } from "../deps.ts";
import type { PlatformAdapter, PublishedVideo, SessionState } from "./adapter.ts";
import { metaCaption } from "./meta-caption.ts";
import { appOf, hostOf, META_PRIVACY, metaRefusal, type MetaTicket, parseSession, platformIdOf, pollUntil, refuseVideo, uploadRest } from "./meta-common.ts";

/** "Reels API is limited to 30 API-published posts within a 24-hour moving period" (Reels Publishing API). */
export const FACEBOOK_REELS_PER_24H = 30;
/** Reels' length, as the Reels Publishing API's video specifications give it. */
const REEL_SECONDS = { minS: 3, maxS: 90 };

const FacebookSession = z.object({
  video_id: z.string().regex(/^\d{1,30}$/),
  page_id: z.string().regex(/^\d{1,30}$/),
  video_size: z.number().int().positive(),
  /** The description the finish publishes the Reel with, fixed when the session starts. */
  description: z.string().max(4000),
}).strict();
type FacebookSession = z.infer<typeof FacebookSession>;

/** What the Page is told: the Reel's description. */
interface FacebookMetadata {
  description: string;
}

/** Facebook's processing ended in error: nothing was published, and the next attempt starts a new Reel. */
class ReelFailedError extends Error {
  constructor(readonly videoId: string, reason: string) {
    super(`Facebook could not publish Reel ${videoId}: ${reason}`);
    this.name = "ReelFailedError";
  }
}

const session = (text: string) => parseSession(text, FacebookSession, "Facebook");
const published = (s: FacebookSession): PublishedVideo => ({ externalId: s.video_id, privacy: META_PRIVACY });

function check(s: FacebookSession, state: ReelState): ReelState {
  if (state.error !== null) throw new ReelFailedError(s.video_id, state.error);
  return state;
}

const readState = async (deps: PipelineDeps, pageToken: string, s: FacebookSession) =>
  check(s, await readReel({ host: hostOf(deps), pageToken, videoId: s.video_id }));

export const facebookAdapter: PlatformAdapter<MetaTicket, FacebookMetadata> = {
  platform: "facebook",
  captionProfile: "reels",

  // The Reels Publishing API has no AI-content label: contains_synthetic_media is told to Instagram, TikTok and YouTube only.
  metadata: ({ script }) => ({ description: metaCaption(script) }),

  refuseVideo: (input) => refuseVideo("Facebook", REEL_SECONDS, input),

  async reserve(deps, { target, publicationId }) {
    const ticket: MetaTicket = { accountId: target.account_id, publicationId, platformId: platformIdOf(target) };
    try {
      // A resumed upload keeps the place it took (the ledger counts a publication once).
      await reserveMetaPost(deps.sql, ticket.accountId, publicationId, { quotaTotal: FACEBOOK_REELS_PER_24H, quotaUsage: null });
    } catch (error) {
      if (error instanceof ChannelCapReachedError) return { kind: "deferred", reason: "channel_cap", notBefore: error.notBefore };
      throw error;
    }
    return { kind: "reserved", ticket };
  },
  settle: async () => {},
  async release(deps, ticket) {
    await releaseMetaPost(deps.sql, ticket.publicationId);
  },

  // The Page token, read with a fresh long-lived user token (re-sealed when Meta gave a new one).
  async accessToken(deps, { target, refreshToken }) {
    const host = hostOf(deps);
    const userToken = await metaUserToken(deps.sql, deps.credentialKeys, { host, app: appOf(deps) }, {
      id: target.account_id,
      credentialsEnc: target.credentials_enc,
      userToken: refreshToken,
    });
    return await pageAccessToken({ host, userToken, pageId: platformIdOf(target) });
  },

  async startSession(deps, _log, { ticket, accessToken, metadata, video }) {
    const videoId = await startReel({ host: hostOf(deps), pageToken: accessToken, pageId: ticket.platformId });
    const stored: FacebookSession = { video_id: videoId, page_id: ticket.platformId, video_size: video.contentLength, description: metadata.description };
    return JSON.stringify(stored);
  },

  async querySession(deps, { accessToken, session: text }): Promise<SessionState> {
    const s = session(text);
    const state = await readState(deps, accessToken, s);
    if (state.published) return { complete: true, video: published(s) };
    return { complete: false, nextByte: state.uploadComplete ? s.video_size : Math.min(state.bytesTransferred, s.video_size) };
  },

  async sendFrom(deps, log, { accessToken, session: text, video, offset, onProgress }) {
    const s = session(text);
    const host = hostOf(deps);
    await uploadRest(deps, { kind: "facebook", id: s.video_id, accessToken, filePath: video.filePath, fileSize: s.video_size, offset, onProgress });
    if (!(await readState(deps, accessToken, s)).finished) {
      // Finishing again a Reel finished by an earlier attempt answers success and posts nothing more.
      await finishReel({ host, pageToken: accessToken, pageId: s.page_id, videoId: s.video_id, description: s.description });
    }
    failpoint("publish.facebook-finished");
    await pollUntil(`Reel ${s.video_id}`, () => readState(deps, accessToken, s), (state) => state.published ? true : null);
    log.debug({ video_id: s.video_id }, "Facebook published the Reel");
    return published(s);
  },

  sessionExpired: (error) => error instanceof ReelFailedError,
  refusal: metaRefusal,
  requestedPrivacy: () => META_PRIVACY,
};
