/**
 * Facebook Page Reels through the Reels Publishing API, with a Page token of the Page, spoken with
 * fetch on Graph (graph.ts) and the upload host (rupload.ts). Runs in Deno and Bun.
 *
 * 1. startReel: `POST /{page-id}/video_reels` with `upload_phase=start`: the video id.
 * 2. the bytes to `<upload host>/video-upload/{version}/{video-id}` (rupload.ts), resumable from
 *    readReel's `status.uploading_phase.bytes_transferred`.
 * 3. finishReel: `POST /{page-id}/video_reels` with `upload_phase=finish`, the video id,
 *    `video_state=PUBLISHED` and the description. Facebook then processes and publishes it.
 * 4. readReel: `GET /{video-id}?fields=status`: `video_status` (upload_complete, processing,
 *    ready, error) and the upload, processing and publishing phases.
 */
import { z } from "zod";
import { graphCall, type GraphHost } from "./graph.ts";

const Id = z.string().regex(/^\d{1,30}$/);

/** Opens an upload session for a Reel of the Page; returns the video id. */
export async function startReel(input: { host: GraphHost; pageToken: string; pageId: string }): Promise<string> {
  const answer = await graphCall({
    host: input.host,
    method: "POST",
    path: `${input.pageId}/video_reels`,
    params: { upload_phase: "start" },
    token: input.pageToken,
    answer: z.looseObject({ video_id: Id }),
    what: "start the Facebook Reel",
  });
  return answer.video_id;
}

/** Publishes an uploaded Reel (a repeated finish of a Reel already finished answers success and posts nothing more). */
export async function finishReel(input: { host: GraphHost; pageToken: string; pageId: string; videoId: string; description: string }): Promise<void> {
  await graphCall({
    host: input.host,
    method: "POST",
    path: `${input.pageId}/video_reels`,
    params: { upload_phase: "finish", video_id: input.videoId, video_state: "PUBLISHED", description: input.description },
    token: input.pageToken,
    answer: z.looseObject({ success: z.literal(true) }),
    what: "finish the Facebook Reel",
  });
}

const Phase = z.looseObject({ status: z.string() });
const ReelStatus = z.looseObject({
  id: Id,
  status: z.looseObject({
    video_status: z.string(),
    uploading_phase: Phase.extend({ bytes_transferred: z.number().int().nonnegative().optional() }).optional(),
    processing_phase: Phase.extend({ error: z.looseObject({ message: z.string() }).optional() }).optional(),
    publishing_phase: Phase.extend({ publish_status: z.string().optional() }).optional(),
  }),
});

/** Where a Reel stands. */
export interface ReelState {
  /** upload_complete, processing, ready or error. */
  videoStatus: string;
  bytesTransferred: number;
  uploadComplete: boolean;
  /** The finish was accepted: processing or publishing has begun. */
  finished: boolean;
  published: boolean;
  /** Facebook's words when processing failed. */
  error: string | null;
}

export async function readReel(input: { host: GraphHost; pageToken: string; videoId: string }): Promise<ReelState> {
  const answer = await graphCall({
    host: input.host,
    method: "GET",
    path: input.videoId,
    params: { fields: "id,status" },
    token: input.pageToken,
    answer: ReelStatus,
    what: "read the Facebook Reel",
  });
  const s = answer.status;
  const processing = s.processing_phase?.status ?? "not_started";
  const publishing = s.publishing_phase?.status ?? "not_started";
  return {
    videoStatus: s.video_status,
    bytesTransferred: s.uploading_phase?.bytes_transferred ?? 0,
    uploadComplete: s.uploading_phase?.status === "complete",
    finished: processing !== "not_started" || publishing !== "not_started",
    published: s.publishing_phase?.publish_status === "published",
    error: s.video_status === "error" || processing === "error" ? s.processing_phase?.error?.message ?? "processing failed" : null,
  };
}
