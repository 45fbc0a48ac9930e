/**
 * Instagram Reels as a platform of the publish stage (docs/reference/platforms.md), through the
 * Content Publishing API with Facebook Login (shared/providers/meta/instagram.ts):
 * - the ledger is the account's moving 24-hour publishing limit: content_publishing_limit is read
 *   before the container is made and again before media_publish, and the post takes its place in
 *   mdame.meta_posts (reserve_meta_post); a full window defers the publication (`channel_cap`)
 *   until it has room, and so does Meta's own refusal (code 9), which holds the account;
 * - a session is a resumable REELS container, stored before the first byte; the bytes go to the
 *   upload host from the offset Meta holds; the container is polled until FINISHED (for a bounded
 *   time: a restart polls the same container), then published;
 * - a container that reads PUBLISHED, or a media_publish refused after it went through, is found in
 *   the account's media by its caption: a lost answer never makes a second post; an ERROR or
 *   EXPIRED container is forgotten and the next attempt makes a new one;
 * - the long-lived user token is exchanged for a fresh one before each attempt and re-sealed.
 */
import { z } from "zod";
import { releaseMetaPost, reserveMetaPost } from "../../../shared/db/rpc/meta-posts.ts";
import { failpoint } from "../../../shared/failpoints.ts";
import {
  type ContainerState,
  createReelsContainer,
  publishContainer,
  readContainer,
  readPublishingLimit,
  recentMedia,
  type ReelsContainerFields,
} from "../../../shared/providers/meta/instagram.ts";
import { metaUserToken } from "../../../shared/providers/meta/tokens.ts";
import type { PipelineDeps } from "../deps.ts";
import type { PlatformAdapter, PublishedVideo, SessionState } from "./adapter.ts";
import { metaCaption } from "./meta-caption.ts";
import { appOf, hostOf, META_PRIVACY, metaRefusal, type MetaTicket, parseSession, platformIdOf, pollUntil, refuseVideo, uploadRest } from "./meta-common.ts";

/** Instagram Reels' length, as the Reels specifications of POST /{ig-user-id}/media give it. */
const REEL_SECONDS = { minS: 3, maxS: 15 * 60 };
/** The frame shown as the Reel's cover (the render's opening carries the title). */
const COVER_OFFSET_MS = 1000;
/** How many of the account's latest media are searched for a container's lost post. */
const MEDIA_SEARCHED = 50;

/** The stored session: the container, and what finds its post again. */
const InstagramSession = z.object({
  container_id: z.string().regex(/^\d{1,30}$/),
  ig_user_id: z.string().regex(/^\d{1,30}$/),
  video_size: z.number().int().positive(),
  /** The caption sent: the post a container became is found by it. */
  caption: z.string().max(4000),
}).strict();
type InstagramSession = z.infer<typeof InstagramSession>;

/** The container ended ERROR or EXPIRED: nothing was posted, and the next attempt makes a new one. */
class ContainerGoneError extends Error {
  constructor(readonly containerId: string, readonly state: ContainerState) {
    super(`Instagram container ${containerId} is ${state.statusCode}${state.status ? `: ${state.status}` : ""}`);
    this.name = "ContainerGoneError";
  }
}

const session = (text: string) => parseSession(text, InstagramSession, "Instagram");

/** The post a PUBLISHED container became: the account's latest media with its caption. */
async function postOf(deps: PipelineDeps, token: string, s: InstagramSession): Promise<PublishedVideo> {
  const media = await recentMedia({ host: hostOf(deps), token, igUserId: s.ig_user_id, limit: MEDIA_SEARCHED });
  const post = media.find((m) => m.caption === s.caption && (m.media_product_type ?? "REELS") === "REELS");
  if (!post) throw new Error(`Instagram container ${s.container_id} reads PUBLISHED, but none of the account's latest ${MEDIA_SEARCHED} media has its caption`);
  return { externalId: post.id, privacy: META_PRIVACY };
}

/** Takes the post's place in the account's window, with the limit Instagram reports now. */
async function reservePost(deps: PipelineDeps, ticket: MetaTicket, token: string): Promise<void> {
  const limit = await readPublishingLimit({ host: hostOf(deps), token, igUserId: ticket.platformId });
  await reserveMetaPost(deps.sql, ticket.accountId, ticket.publicationId, limit);
}

const readState = (deps: PipelineDeps, token: string, s: InstagramSession) => readContainer({ host: hostOf(deps), token, containerId: s.container_id });

export const instagramAdapter: PlatformAdapter<MetaTicket, ReelsContainerFields> = {
  platform: "instagram",
  captionProfile: "reels",

  metadata: ({ publishing, script }) => ({
    caption: metaCaption(script),
    shareToFeed: true,
    cover: { thumbOffsetMs: COVER_OFFSET_MS },
    // Instagram's AI info label, from the dimension's disclosure setting.
    aiGenerated: publishing.contains_synthetic_media,
  }),

  refuseVideo: (input) => refuseVideo("Instagram", REEL_SECONDS, input),

  // The limit is read with the account's token, so the post takes its place once the token is fresh (startSession, sendFrom).
  reserve: (_deps, { target, publicationId }) =>
    Promise.resolve({ kind: "reserved", ticket: { accountId: target.account_id, publicationId, platformId: platformIdOf(target) } }),
  settle: async () => {},
  async release(deps, ticket) {
    await releaseMetaPost(deps.sql, ticket.publicationId);
  },

  accessToken: (deps, { target, refreshToken }) =>
    metaUserToken(deps.sql, deps.credentialKeys, { host: hostOf(deps), app: appOf(deps) }, {
      id: target.account_id,
      credentialsEnc: target.credentials_enc,
      userToken: refreshToken,
    }),

  async startSession(deps, _log, { ticket, accessToken, metadata, video }) {
    await reservePost(deps, ticket, accessToken);
    const containerId = await createReelsContainer({ host: hostOf(deps), token: accessToken, igUserId: ticket.platformId, fields: metadata });
    const stored: InstagramSession = { container_id: containerId, ig_user_id: ticket.platformId, video_size: video.contentLength, caption: metadata.caption };
    return JSON.stringify(stored);
  },

  async querySession(deps, { accessToken, session: text }): Promise<SessionState> {
    const s = session(text);
    const state = await readState(deps, accessToken, s);
    switch (state.statusCode) {
      case "PUBLISHED":
        return { complete: true, video: await postOf(deps, accessToken, s) };
      case "ERROR":
      case "EXPIRED":
        throw new ContainerGoneError(s.container_id, state);
      case "FINISHED":
        return { complete: false, nextByte: s.video_size };
      default:
        return { complete: false, nextByte: Math.min(state.bytesTransferred, s.video_size) };
    }
  },

  async sendFrom(deps, log, { ticket, accessToken, session: text, video, offset, onProgress }) {
    const s = session(text);
    await uploadRest(deps, { kind: "instagram", id: s.container_id, accessToken, filePath: video.filePath, fileSize: s.video_size, offset, onProgress });
    const state = await pollUntil(`container ${s.container_id}`, () => readState(deps, accessToken, s), (st) => st.statusCode === "IN_PROGRESS" ? null : st);
    if (state.statusCode === "PUBLISHED") return await postOf(deps, accessToken, s);
    if (state.statusCode !== "FINISHED") throw new ContainerGoneError(s.container_id, state);
    failpoint("publish.instagram-finished");
    await reservePost(deps, ticket, accessToken);
    try {
      const mediaId = await publishContainer({ host: hostOf(deps), token: accessToken, igUserId: s.ig_user_id, containerId: s.container_id });
      return { externalId: mediaId, privacy: META_PRIVACY };
    } catch (error) {
      // A publish refused after an earlier one went through (its answer lost): the container says so.
      if ((await readState(deps, accessToken, s)).statusCode !== "PUBLISHED") throw error;
      log.info({ container_id: s.container_id }, "the container was published by an earlier attempt");
      return await postOf(deps, accessToken, s);
    }
  },

  sessionExpired: (error) => error instanceof ContainerGoneError,
  refusal: metaRefusal,
  requestedPrivacy: () => META_PRIVACY,
};
