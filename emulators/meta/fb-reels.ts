/**
 * Facebook Page Reels (Video API, "Reels Publishing API"), with a Page token of the Page holding
 * pages_show_list, pages_read_engagement and pages_manage_posts:
 *
 * - `POST /{v}/{page-id}/video_reels` with `upload_phase=start` -> `{video_id, upload_url}`,
 *   `upload_url` the emulator's rupload path `/video-upload/{v}/{video-id}` (upload.ts).
 * - `POST /{v}/{page-id}/video_reels` with `upload_phase=finish`, `video_id`, `video_state`
 *   (PUBLISHED, DRAFT, or SCHEDULED with `scheduled_publish_time`, a Unix time 10 minutes to 29
 *   days ahead), `description`, `title` -> `{success: true}`. Facebook processes the Reel from the
 *   finish on (the processing delay, 5 s on the emulator clock unless set), then publishes it
 *   (a SCHEDULED one at its time) or puts it in error (video-rules.ts). A finish before every byte
 *   arrived is code 6000 "There was a problem uploading your video file". A finish repeated for a
 *   Reel already finished as PUBLISHED or SCHEDULED answers `{success: true}` again and posts
 *   nothing more. "Reels API is limited to 30 API-published posts within a 24-hour moving period",
 *   enforced at the finish: the 31st is code 9 (settable per Page, admin.ts).
 * - `GET /{v}/{video-id}?fields=status` -> `{id, status: {video_status, uploading_phase: {status,
 *   bytes_transferred}, processing_phase: {status, error?}, publishing_phase: {status,
 *   publish_status, publish_time?}}}` moving on the emulator clock; also `description`, `title`,
 *   `permalink_url`, `length`, `created_time`, `published`, `post_id`.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { DAY_MS, MINUTE_MS } from "../../shared/time.ts";
import { type Caller, gate, managesPage } from "./auth.ts";
import { graphError, graphTime, invalidParameter, readParams, selectFields, unsupportedRequest } from "./graph.ts";
import { type FbReel, type MetaSettings, newVideoId, type ReelState } from "./model.ts";

export const FB_PUBLISH = ["pages_show_list", "pages_read_engagement", "pages_manage_posts"] as const;
export const FB_READ = ["pages_read_engagement"] as const;
const REEL_STATES: readonly ReelState[] = ["PUBLISHED", "DRAFT", "SCHEDULED"];

export interface ReelTimeline {
  processing: "not_started" | "in_progress" | "complete" | "error";
  /** When the Reel is (or will be) published; undefined for a draft, an error or before the finish. */
  publishAt?: number;
}

export function reelTimeline(reel: FbReel, settings: MetaSettings, now: number): ReelTimeline {
  if (reel.finished_at === undefined) return { processing: "not_started" };
  const processed = reel.finished_at + settings.fb_processing_delay_ms;
  if (now < processed) return { processing: "in_progress", publishAt: publishTime(reel, processed) };
  if (!reel.verdict?.ok) return { processing: "error" };
  return { processing: "complete", publishAt: publishTime(reel, processed) };
}

function publishTime(reel: FbReel, processed: number): number | undefined {
  if (reel.verdict && !reel.verdict.ok) return undefined;
  if (reel.video_state === "PUBLISHED") return processed;
  if (reel.video_state === "SCHEDULED") return Math.max(processed, reel.scheduled_publish_time ?? processed);
  return undefined;
}

/** Whether the Reel is published at `now`. */
export function isPublished(reel: FbReel, settings: MetaSettings, now: number): boolean {
  const { processing, publishAt } = reelTimeline(reel, settings, now);
  return processing === "complete" && publishAt !== undefined && publishAt <= now;
}

export function reelStatus(reel: FbReel, received: number, settings: MetaSettings, now: number) {
  const uploaded = reel.uploaded_at !== undefined;
  const timeline = reelTimeline(reel, settings, now);
  const published = isPublished(reel, settings, now);
  const publishing: Record<string, unknown> = { status: "not_started" };
  if (timeline.processing === "error") publishing.status = "error";
  else if (reel.video_state === "DRAFT" && timeline.processing === "complete") Object.assign(publishing, { status: "complete", publish_status: "draft" });
  else if (published) Object.assign(publishing, { status: "complete", publish_status: "published", publish_time: Math.floor(timeline.publishAt! / 1000) });
  else if (reel.finished_at !== undefined) {
    Object.assign(publishing, { status: "in_progress", publish_status: reel.video_state === "SCHEDULED" ? "scheduled" : "not_published" });
    if (reel.video_state === "SCHEDULED") publishing.publish_time = Math.floor(reel.scheduled_publish_time! / 1000);
  }
  const processing: Record<string, unknown> = { status: timeline.processing };
  if (timeline.processing === "error" && reel.verdict && !reel.verdict.ok) processing.error = { message: reel.verdict.message };
  const videoStatus = timeline.processing === "error"
    ? "error"
    : timeline.processing === "complete"
    ? "ready"
    : timeline.processing === "in_progress"
    ? "processing"
    : uploaded
    ? "upload_complete"
    : "processing";
  return {
    video_status: videoStatus,
    uploading_phase: { status: uploaded ? "complete" : received > 0 ? "in_progress" : "not_started", bytes_transferred: received },
    processing_phase: processing,
    publishing_phase: publishing,
  };
}

/** API-published Reels of the Page whose finish falls in the 24 hours up to `now` (those in error aside). */
function reelsInWindow(caller: Caller, pageId: string, settings: MetaSettings): number {
  return caller.store.reels().filter((r) =>
    r.page_id === pageId && r.finished_at !== undefined && r.video_state !== "DRAFT" && r.finished_at > caller.now - DAY_MS &&
    reelTimeline(r, settings, caller.now).processing !== "error"
  ).length;
}

async function finish(caller: Caller, pageId: string, params: Record<string, string>): Promise<Response> {
  const { store, now } = caller;
  const reel = params.video_id ? store.reel(params.video_id) : undefined;
  if (!reel || reel.page_id !== pageId) return invalidParameter(`(#100) video_id must be a video of Page ${pageId} started with upload_phase=start.`);
  const state = (params.video_state ?? "PUBLISHED").toUpperCase() as ReelState;
  if (!REEL_STATES.includes(state)) return invalidParameter("(#100) video_state must be one of PUBLISHED, DRAFT, SCHEDULED.");
  if (reel.finished_at !== undefined && reel.video_state !== "DRAFT") return jsonResponse({ success: true });
  if (reel.uploaded_at === undefined) {
    const received = await store.files.size(reel.video_id);
    return graphError(6000, `There was a problem uploading your video file. Please try again. (${received} of ${reel.file_size ?? "?"} bytes received)`);
  }
  let scheduled: number | undefined;
  if (state === "SCHEDULED") {
    const at = Number(params.scheduled_publish_time) * 1000;
    if (!/^\d{9,11}$/.test(params.scheduled_publish_time ?? "") || at < now + 10 * MINUTE_MS || at > now + 29 * DAY_MS) {
      return invalidParameter("(#100) scheduled_publish_time must be a Unix time between 10 minutes and 29 days from now.");
    }
    scheduled = at;
  }
  const settings = store.settings();
  const limit = store.limitFor(pageId, settings.fb_reels_per_24h);
  if (state !== "DRAFT" && reelsInWindow(caller, pageId, settings) >= limit) {
    return graphError(9, `(#9) The Page reached its limit of ${limit} API-published reels in 24 hours. Try again later.`, {
      userTitle: "Reels limit reached",
      userMessage: `You can publish at most ${limit} reels through the API in 24 hours.`,
    });
  }
  await store.putReel({
    ...reel,
    finished_at: now,
    video_state: state,
    description: params.description ?? "",
    title: params.title,
    scheduled_publish_time: scheduled,
  });
  return jsonResponse({ success: true });
}

export async function handleVideoReels(req: Request, url: URL, version: string, pageId: string, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: FB_PUBLISH, permissionCode: 200, rateContext: "page", pageTokenFor: pageId });
  if (caller instanceof Response) return caller;
  if (req.method !== "POST") return unsupportedRequest(req.method, pageId);
  if (params.upload_phase === "start") {
    const reel: FbReel = { video_id: newVideoId(), page_id: pageId, app_id: caller.token.app_id, user_id: caller.user.user_id, created_at: caller.now };
    await caller.store.files.create(reel.video_id);
    await caller.store.putReel(reel);
    return jsonResponse({ video_id: reel.video_id, upload_url: `${url.origin}/video-upload/${version}/${reel.video_id}` });
  }
  if (params.upload_phase === "finish") return await caller.store.withLock(`fb:${pageId}`, () => finish(caller, pageId, params));
  return invalidParameter("(#100) upload_phase must be start or finish.");
}

export async function readReel(req: Request, url: URL, reel: FbReel, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: FB_READ, permissionCode: 200, rateContext: "page", businessId: reel.page_id });
  if (caller instanceof Response) return caller;
  if (req.method !== "GET" || !managesPage(caller, reel.page_id)) return unsupportedRequest(req.method, reel.video_id);
  const settings = caller.store.settings();
  const received = await caller.store.files.size(reel.video_id);
  const published = isPublished(reel, settings, caller.now);
  const object = selectFields(
    params.fields,
    {
      id: () => reel.video_id,
      status: () => reelStatus(reel, received, settings, caller.now),
      description: () => reel.description,
      title: () => reel.title,
      created_time: () => graphTime(reel.created_at),
      length: () => reel.verdict?.ok ? Math.round(reel.verdict.duration_s * 100) / 100 : undefined,
      permalink_url: () => `/reel/${reel.video_id}`,
      published: () => published,
      post_id: () => published ? `${reel.page_id}_${reel.video_id}` : undefined,
    },
    ["id"],
    "Video",
  );
  return object instanceof Response ? object : jsonResponse(object);
}
