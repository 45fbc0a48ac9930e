/**
 * Instagram media containers for Reels (Instagram API with Facebook Login, content publishing):
 *
 * - `POST /{v}/{ig-user-id}/media` (permissions instagram_basic and instagram_content_publish) with
 *   `media_type=REELS`, `caption` (at most 2200 characters and 30 hashtags), `share_to_feed`
 *   (default true), `cover_url`, `thumb_offset` (ms), and either `video_url` or
 *   `upload_type=resumable`; parameters in the query string or a form/JSON body. A `video_url` is
 *   downloaded at once (fetch-file.ts) and the container answered `{id}`; one the emulator cannot
 *   download makes the container ERROR (subcode 2207052, or 2207003 when it takes too long). A
 *   resumable container is answered `{id, uri}`, `uri` the emulator's rupload path
 *   `/ig-api-upload/{v}/{id}` (upload.ts). `media_type=VIDEO` is refused (code 100, subcode
 *   2207023: single videos are published as REELS since November 2023); IMAGE, STORIES and
 *   CAROUSEL are not emulated. `collaborators`, `audio_name`, `user_tags`, `location_id` are
 *   accepted and ignored.
 * - `GET /{v}/{container-id}?fields=status_code,status` (instagram_basic): `status_code`
 *   IN_PROGRESS while bytes are missing and for the processing delay after the last one (5 s on
 *   the emulator clock unless set), then FINISHED or ERROR (video-rules.ts), EXPIRED 24 hours after
 *   creation if never published, PUBLISHED once published. `status` says the same in words;
 *   for ERROR it is `Error: Media upload has failed with error code <subcode>`. `video_status`
 *   gives `{uploading_phase: {status, bytes_transferred}, processing_phase: {status}}` so a resumed
 *   upload knows its offset; `copyright_check_status` is `{status, matches_found: false}`.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { type Caller, gate, managesPage } from "./auth.ts";
import { downloadTo } from "./fetch-file.ts";
import { booleanParam, httpUrl, invalidParameter, readParams, selectFields, unsupportedRequest } from "./graph.ts";
import { CONTAINER_LIFETIME_MS, type IgContainer, type MetaSettings, newContainerId } from "./model.ts";
import type { MetaStore } from "./store.ts";
import { downloadFailed, downloadTimedOut, instagramVerdict, UNKNOWN_UPLOAD_ERROR } from "./video-rules.ts";

export const IG_READ = ["instagram_basic"] as const;
export const IG_PUBLISH = ["instagram_basic", "instagram_content_publish"] as const;
const MAX_CAPTION = 2200;
const MAX_HASHTAGS = 30;

export type ContainerStatus = "IN_PROGRESS" | "FINISHED" | "ERROR" | "EXPIRED" | "PUBLISHED";

export function containerStatus(c: IgContainer, now: number, settings: MetaSettings): ContainerStatus {
  if (c.published_media_id) return "PUBLISHED";
  const processed = c.uploaded_at !== undefined && now >= c.uploaded_at + settings.ig_processing_delay_ms;
  if (processed && c.verdict && !c.verdict.ok) return "ERROR";
  if (now >= c.created_at + CONTAINER_LIFETIME_MS) return "EXPIRED";
  return processed ? "FINISHED" : "IN_PROGRESS";
}

export function statusText(c: IgContainer, status: ContainerStatus): string {
  switch (status) {
    case "IN_PROGRESS":
      return "In Progress: Media is still being processed.";
    case "FINISHED":
      return "Finished: Media has been uploaded and it is ready to be published.";
    case "PUBLISHED":
      return "Published: Media has been successfully published.";
    case "EXPIRED":
      return "Expired: Media was not published within 24 hours.";
    default:
      return `Error: Media upload has failed with error code ${c.verdict && !c.verdict.ok ? c.verdict.subcode ?? c.verdict.code : ""}`;
  }
}

/** The Instagram account `igUserId` when the caller may act for it (its Page's owner or token), else undefined. */
export function igAccountOf(caller: Caller, igUserId: string) {
  const account = caller.store.igAccount(igUserId);
  return account && managesPage(caller, account.page_id) ? account : undefined;
}

/** Records that every byte of a container arrived: its digest and Instagram's verdict (or an armed `container_error`). */
export async function completeContainer(store: MetaStore, container: IgContainer, ctx: EmulatorContext, now: number): Promise<IgContainer> {
  const size = await store.files.size(container.id);
  const done: IgContainer = { ...container, file_size: size, uploaded_at: now, sha256: await store.files.sha256(container.id) };
  done.verdict = ctx.faults.take("meta", (kind) => kind === "container_error")
    ? UNKNOWN_UPLOAD_ERROR
    : await instagramVerdict(store.files.path(container.id), size, store.settings(), container.thumb_offset);
  await store.putContainer(done);
  return done;
}

function countHashtags(caption: string): number {
  return (caption.match(/(^|\s)#[^\s#]+/g) ?? []).length;
}

export async function createContainer(req: Request, url: URL, version: string, igUserId: string, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: IG_PUBLISH, permissionCode: 10, rateContext: "instagram", businessId: igUserId });
  if (caller instanceof Response) return caller;
  if (!igAccountOf(caller, igUserId)) return unsupportedRequest("POST", igUserId);
  const mediaType = params.media_type;
  if (mediaType === "VIDEO") {
    return invalidParameter("The media type VIDEO is not supported for single videos: publish them with media_type REELS.", { subcode: 2207023 });
  }
  if (mediaType !== "REELS") return invalidParameter(`media_type ${mediaType ?? "(none)"} is not emulated: the emulator publishes REELS only.`);
  const resumable = params.upload_type === "resumable";
  if (params.upload_type !== undefined && !resumable) return invalidParameter(`upload_type must be resumable, not ${params.upload_type}.`);
  if (resumable && params.video_url) return invalidParameter("Give either video_url or upload_type=resumable, not both.");
  if (!resumable && !httpUrl(params.video_url)) {
    return invalidParameter("The parameter video_url is required (an http or https URL), unless upload_type=resumable.");
  }
  const caption = params.caption ?? "";
  if ([...caption].length > MAX_CAPTION) return invalidParameter(`The caption is longer than ${MAX_CAPTION} characters.`);
  if (countHashtags(caption) > MAX_HASHTAGS) return invalidParameter(`The caption has more than ${MAX_HASHTAGS} hashtags.`);
  const shareToFeed = booleanParam(params.share_to_feed, true);
  if (shareToFeed === undefined) return invalidParameter("share_to_feed must be true or false.");
  if (params.cover_url !== undefined && !httpUrl(params.cover_url)) return invalidParameter("cover_url must be an http or https URL.");
  let thumbOffset: number | undefined;
  if (params.thumb_offset !== undefined) {
    if (!/^\d{1,9}$/.test(params.thumb_offset)) return invalidParameter("thumb_offset must be a whole number of milliseconds.", { subcode: 2207057 });
    thumbOffset = Number(params.thumb_offset);
  }
  const container: IgContainer = {
    id: newContainerId(),
    ig_user_id: igUserId,
    app_id: caller.token.app_id,
    user_id: caller.user.user_id,
    media_type: "REELS",
    caption,
    share_to_feed: shareToFeed,
    cover_url: params.cover_url,
    thumb_offset: thumbOffset,
    source: resumable ? "resumable" : "video_url",
    video_url: resumable ? undefined : params.video_url,
    created_at: caller.now,
  };
  const { store } = caller;
  await store.files.create(container.id);
  await store.putContainer(container);
  if (resumable) return jsonResponse({ id: container.id, uri: `${url.origin}/ig-api-upload/${version}/${container.id}` });
  const download = await downloadTo(params.video_url!, store.files.path(container.id), store.settings().max_video_bytes);
  if (download.ok) {
    await completeContainer(store, container, ctx, ctx.clock.now());
  } else {
    await store.files.truncate(container.id, 0);
    await store.putContainer({ ...container, uploaded_at: ctx.clock.now(), verdict: download.timedOut ? downloadTimedOut : downloadFailed(download.detail) });
  }
  return jsonResponse({ id: container.id });
}

export async function readContainer(req: Request, url: URL, container: IgContainer, ctx: EmulatorContext): Promise<Response> {
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: IG_READ, permissionCode: 10, rateContext: "instagram", businessId: container.ig_user_id });
  if (caller instanceof Response) return caller;
  if (req.method !== "GET" || !igAccountOf(caller, container.ig_user_id)) return unsupportedRequest(req.method, container.id);
  const settings = caller.store.settings();
  const status = containerStatus(container, caller.now, settings);
  const received = await caller.store.files.size(container.id);
  const uploaded = container.uploaded_at !== undefined;
  const object = selectFields(
    params.fields,
    {
      id: () => container.id,
      status_code: () => status,
      status: () => statusText(container, status),
      copyright_check_status: () => ({ status: status === "FINISHED" || status === "PUBLISHED" ? "completed" : "in_progress", matches_found: false }),
      video_status: () => ({
        uploading_phase: { status: uploaded ? "complete" : received > 0 ? "in_progress" : "not_started", bytes_transferred: received },
        processing_phase: { status: status === "ERROR" ? "error" : !uploaded ? "not_started" : status === "IN_PROGRESS" ? "in_progress" : "complete" },
      }),
    },
    ["id"],
    "ShadowIGMediaBuilder",
  );
  return object instanceof Response ? object : jsonResponse(object);
}
