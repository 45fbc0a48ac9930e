/**
 * Instagram Reels through the Content Publishing API (Instagram API with Facebook Login), spoken
 * with fetch on Graph (graph.ts) and the upload host (rupload.ts). Runs in Deno and Bun.
 *
 * 1. readPublishingLimit: `GET /{ig-user-id}/content_publishing_limit?fields=config,quota_usage`:
 *    the posts the account may publish by API in a moving 24 hours (`config.quota_total`) and those
 *    it published (`quota_usage`, from any app).
 * 2. createReelsContainer: `POST /{ig-user-id}/media` with `media_type=REELS`,
 *    `upload_type=resumable`, the caption, `share_to_feed`, the cover (`thumb_offset` in ms or
 *    `cover_url`) and `is_ai_generated` (the AI info label): the container id.
 * 3. the bytes to `<upload host>/ig-api-upload/{version}/{container-id}` (rupload.ts), resumable
 *    from readContainer's `video_status.uploading_phase.bytes_transferred`.
 * 4. readContainer: `status_code` IN_PROGRESS, FINISHED, ERROR, EXPIRED (24 hours after its
 *    creation), PUBLISHED.
 * 5. publishContainer: `POST /{ig-user-id}/media_publish?creation_id=...`: the media id.
 * 6. recentMedia: the account's latest media (`/{ig-user-id}/media`), to find what a container that
 *    reads PUBLISHED became when its media_publish answer was lost.
 */
import { z } from "zod";
import { graphCall, type GraphHost } from "./graph.ts";

const Id = z.string().regex(/^\d{1,30}$/);

export const ContainerStatusCode = z.enum(["IN_PROGRESS", "FINISHED", "ERROR", "EXPIRED", "PUBLISHED"]);
export type ContainerStatusCode = z.infer<typeof ContainerStatusCode>;

const Limit = z.looseObject({
  data: z.array(z.looseObject({
    quota_usage: z.number().int().nonnegative(),
    config: z.looseObject({ quota_total: z.number().int().nonnegative(), quota_duration: z.number().int().positive().optional() }),
  })).min(1),
});

/** The account's publishing limit now: Meta's total for the window and what it counts in it. */
export async function readPublishingLimit(input: { host: GraphHost; token: string; igUserId: string }): Promise<{ quotaTotal: number; quotaUsage: number }> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: `${input.igUserId}/content_publishing_limit`,
    params: { fields: "config,quota_usage" },
    token: input.token,
    answer: Limit,
    what: "read the Instagram publishing limit",
  });
  const entry = answer.data[0]!;
  return { quotaTotal: entry.config.quota_total, quotaUsage: entry.quota_usage };
}

/** What a Reels container is created with. */
export interface ReelsContainerFields {
  caption: string;
  shareToFeed: boolean;
  /** The frame used as cover, in milliseconds from the start; or a cover image's public URL. */
  cover: { thumbOffsetMs: number } | { coverUrl: string };
  /** Instagram's AI info label (`is_ai_generated`). */
  aiGenerated: boolean;
}

/** Creates a resumable REELS container; returns its id. */
export async function createReelsContainer(input: { host: GraphHost; token: string; igUserId: string; fields: ReelsContainerFields }): Promise<string> {
  const { fields } = input;
  const answer = await graphCall({
    host: input.host,
    method: "POST",
    path: `${input.igUserId}/media`,
    params: {
      media_type: "REELS",
      upload_type: "resumable",
      caption: fields.caption,
      share_to_feed: fields.shareToFeed,
      thumb_offset: "thumbOffsetMs" in fields.cover ? fields.cover.thumbOffsetMs : undefined,
      cover_url: "coverUrl" in fields.cover ? fields.cover.coverUrl : undefined,
      is_ai_generated: fields.aiGenerated,
    },
    token: input.token,
    answer: z.looseObject({ id: Id }),
    what: "create the Reels container",
  });
  return answer.id;
}

const Container = z.looseObject({
  id: Id,
  status_code: ContainerStatusCode,
  status: z.string().optional(),
  video_status: z.looseObject({
    uploading_phase: z.looseObject({ bytes_transferred: z.number().int().nonnegative() }).optional(),
  }).optional(),
});

/** Where a container stands: its status, Meta's words for it, and the bytes the upload host holds. */
export interface ContainerState {
  statusCode: ContainerStatusCode;
  status: string;
  bytesTransferred: number;
}

export async function readContainer(input: { host: GraphHost; token: string; containerId: string }): Promise<ContainerState> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: input.containerId,
    params: { fields: "id,status_code,status,video_status" },
    token: input.token,
    answer: Container,
    what: "read the Reels container",
  });
  return { statusCode: answer.status_code, status: answer.status ?? "", bytesTransferred: answer.video_status?.uploading_phase?.bytes_transferred ?? 0 };
}

/** Publishes a FINISHED container; returns the media id. */
export async function publishContainer(input: { host: GraphHost; token: string; igUserId: string; containerId: string }): Promise<string> {
  const answer = await graphCall({
    host: input.host,
    method: "POST",
    path: `${input.igUserId}/media_publish`,
    params: { creation_id: input.containerId },
    token: input.token,
    answer: z.looseObject({ id: Id }),
    what: "publish the Reels container",
  });
  return answer.id;
}

const MediaList = z.looseObject({
  data: z.array(z.looseObject({ id: Id, caption: z.string().optional(), media_product_type: z.string().optional(), timestamp: z.string().optional() })),
});

/** The account's latest media, newest first (id, caption, product type, time). */
export async function recentMedia(input: { host: GraphHost; token: string; igUserId: string; limit: number }) {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: `${input.igUserId}/media`,
    params: { fields: "id,caption,media_product_type,timestamp", limit: input.limit },
    token: input.token,
    answer: MediaList,
    what: "list the Instagram account's media",
  });
  return answer.data;
}
