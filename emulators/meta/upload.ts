/**
 * Meta's upload host (rupload.facebook.com) for a resumable Instagram container and a Facebook
 * Reel: `POST /ig-api-upload/{v}/{container-id}` and `POST /video-upload/{v}/{video-id}`, with
 * `Authorization: OAuth <token>` (the Instagram account's user or Page token; the Reel's Page
 * token), and either
 *
 * - a local file: headers `offset` and `file_size` (bytes), the body the file's bytes from
 *   `offset` on. The bytes are stored on disk as they arrive, so an upload cut off mid-body keeps
 *   what arrived and resumes from there: the offset to resume from is `bytes_transferred` of the
 *   container's `video_status` or the Reel's `status.uploading_phase`. Bytes sent again (an offset
 *   below what arrived) are accepted and not stored twice; an offset past what arrived (a gap) is
 *   refused, naming the offset to resume from. `file_size` is fixed by the first call; or
 * - a hosted file: header `file_url`. Meta fetches it (fetch-file.ts); one it cannot fetch makes
 *   the container ERROR (subcode 2207052) or puts the Reel's processing in error.
 *
 * Answers `{success: true}`. The upload host answers errors in its own shape, `{debug_info:
 * {retriable, type, message}}`, not Graph's: `NotAuthorizedError` (400: no, unknown, expired or
 * revoked token, or one that may not upload here), `ParameterValidationError` (400: a malformed or
 * inconsistent header, a gap, a body past `file_size`, a container not created resumable or
 * expired), `NotFoundError` (404), `ServiceUnavailable` (500/503 for the `http_500`/`http_503`
 * faults, retriable). `drop_after_bytes` keeps that many bytes of the body, then drops the
 * connection. A call after every byte arrived answers `{success: true}` and stores nothing.
 */
import type { EmulatorContext } from "../context.ts";
import { droppedConnection, jsonResponse } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { type Caller, checkToken, managesPage, metaFor, tokenFault } from "./auth.ts";
import { downloadTo } from "./fetch-file.ts";
import { httpUrl } from "./graph.ts";
import { completeContainer, containerStatus } from "./ig-containers.ts";
import type { FbReel, IgContainer, Verdict } from "./model.ts";
import type { MetaStore } from "./store.ts";
import { downloadFailed, downloadTimedOut, facebookVerdict, UNKNOWN_UPLOAD_ERROR } from "./video-rules.ts";

export const IG_UPLOAD_PATH = /^\/ig-api-upload\/v\d{1,3}\.\d{1,2}\/(\d{1,30})$/;
export const FB_UPLOAD_PATH = /^\/video-upload\/v\d{1,3}\.\d{1,2}\/(\d{1,30})$/;

function uploadError(status: number, type: string, message: string, retriable = false): Response {
  return jsonResponse({ debug_info: { retriable, type, message } }, status);
}

const notAuthorized = (detail = "User not authorized to perform this request") => uploadError(400, "NotAuthorizedError", detail);
const invalidHeader = (message: string) => uploadError(400, "ParameterValidationError", message);

type Target =
  | { kind: "instagram"; record: IgContainer }
  | { kind: "facebook"; record: FbReel };

const idOf = (target: Target) => target.kind === "instagram" ? target.record.id : target.record.video_id;

async function completeReel(store: MetaStore, reel: FbReel, ctx: EmulatorContext, now: number, verdict?: Verdict): Promise<void> {
  const size = await store.files.size(reel.video_id);
  const done: FbReel = { ...reel, file_size: size, uploaded_at: now, sha256: await store.files.sha256(reel.video_id) };
  done.verdict = verdict ??
    (ctx.faults.take("meta", (kind) => kind === "container_error")
      ? UNKNOWN_UPLOAD_ERROR
      : await facebookVerdict(store.files.path(reel.video_id), size, store.settings()));
  await store.putReel(done);
}

async function complete(store: MetaStore, target: Target, ctx: EmulatorContext): Promise<void> {
  const now = ctx.clock.now();
  if (target.kind === "instagram") await completeContainer(store, target.record, ctx, now);
  else await completeReel(store, target.record, ctx, now);
}

/** A hosted file: fetched at once; a failure is recorded as the verdict the status will show. */
async function fetchHosted(store: MetaStore, target: Target, fileUrl: string, ctx: EmulatorContext): Promise<Response> {
  const id = idOf(target);
  const download = await downloadTo(fileUrl, store.files.path(id), store.settings().max_video_bytes);
  if (download.ok) {
    await complete(store, target, ctx);
    return jsonResponse({ success: true });
  }
  await store.files.truncate(id, 0);
  const failed = download.timedOut ? downloadTimedOut : downloadFailed(download.detail);
  const now = ctx.clock.now();
  if (target.kind === "instagram") await store.putContainer({ ...target.record, uploaded_at: now, verdict: failed });
  else await completeReel(store, target.record, ctx, now, { ok: false, code: 6000, message: failed.ok ? "" : failed.message });
  return jsonResponse({ success: true });
}

async function receive(req: Request, store: MetaStore, target: Target, ctx: EmulatorContext): Promise<Response> {
  const id = idOf(target);
  const fileUrl = req.headers.get("file_url");
  if (target.record.uploaded_at !== undefined) {
    await req.body?.cancel().catch(() => {});
    return jsonResponse({ success: true });
  }
  if (fileUrl !== null) {
    if (!httpUrl(fileUrl)) return invalidHeader("HeaderValuePredicate: Header file_url is not an http or https URL");
    return await fetchHosted(store, target, fileUrl, ctx);
  }
  const offsetHeader = req.headers.get("offset") ?? "";
  const sizeHeader = req.headers.get("file_size") ?? "";
  if (!/^\d{1,15}$/.test(offsetHeader)) return invalidHeader("HeaderValuePredicate: Header Offset not convertable to unsigned long");
  if (!/^\d{1,15}$/.test(sizeHeader) || Number(sizeHeader) === 0) {
    return invalidHeader("HeaderValuePredicate: Header file_size not convertable to a positive unsigned long");
  }
  const [offset, fileSize] = [Number(offsetHeader), Number(sizeHeader)];
  const max = store.settings().max_video_bytes;
  if (fileSize > max) return invalidHeader(`file_size ${fileSize} is over the ${max}-byte maximum`);
  if (target.record.file_size !== undefined && target.record.file_size !== fileSize) {
    return invalidHeader(`file_size ${fileSize} differs from the ${target.record.file_size} bytes declared when this upload began`);
  }
  const received = await store.files.size(id);
  if (offset > received) return invalidHeader(`offset ${offset} leaves a gap: ${received} bytes were received, resume from offset ${received}`);
  const sized: Target = target.kind === "instagram"
    ? { kind: "instagram", record: { ...target.record, file_size: fileSize } }
    : { kind: "facebook", record: { ...target.record, file_size: fileSize } };
  if (sized.kind === "instagram") await store.putContainer(sized.record);
  else await store.putReel(sized.record);
  const fault = ctx.faults.take("meta", (kind) => kind === "drop_after_bytes");
  const outcome = await store.files.append(id, req.body, received - offset, fileSize - received, fault?.bytes ?? Infinity);
  if (outcome === "dropped") return droppedConnection();
  if (outcome === "too_large") return invalidHeader(`the body runs past file_size ${fileSize} (offset ${offset}); nothing of it was kept`);
  if (await store.files.size(id) === fileSize) await complete(store, sized, ctx);
  return jsonResponse({ success: true });
}

export async function handleUpload(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const ig = IG_UPLOAD_PATH.exec(url.pathname);
  const fb = ig ? null : FB_UPLOAD_PATH.exec(url.pathname);
  if (!ig && !fb) return undefined;
  if (req.method !== "POST") return uploadError(405, "ParameterValidationError", `Use POST on ${url.pathname}`);
  await slowDown(ctx.faults, "meta");
  const store = await metaFor(ctx);
  const now = ctx.clock.now();
  const presented = /^(?:OAuth|Bearer)\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  if (!presented) return notAuthorized();
  const checked = checkToken(store, presented, now);
  if ("code" in checked) return notAuthorized(checked.message);
  const faulted = tokenFault(ctx, checked.token, now);
  if (faulted) return notAuthorized(faulted.message);
  const caller: Caller = { store, ...checked, now };
  let target: Target;
  if (ig) {
    const container = store.container(ig[1]!);
    const account = container ? store.igAccount(container.ig_user_id) : undefined;
    if (!container || !account) return uploadError(404, "NotFoundError", `No media container ${ig[1]} awaits an upload`);
    if (!managesPage(caller, account.page_id)) return notAuthorized();
    if (container.source !== "resumable") return invalidHeader(`Container ${container.id} was created with video_url, not upload_type=resumable`);
    if (containerStatus(container, now, store.settings()) === "EXPIRED") {
      return invalidHeader(`Container ${container.id} expired 24 hours after its creation; create a new one`);
    }
    target = { kind: "instagram", record: container };
  } else {
    const reel = store.reel(fb![1]!);
    if (!reel) return uploadError(404, "NotFoundError", `No video ${fb![1]} awaits an upload`);
    if (checked.token.kind !== "page" || checked.token.page_id !== reel.page_id) {
      return notAuthorized("User not authorized to perform this request: use the Page access token");
    }
    target = { kind: "facebook", record: reel };
  }
  const outage = ctx.faults.take("meta", (kind) => kind === "http_500" || kind === "http_503");
  if (outage) {
    await req.body?.cancel().catch(() => {});
    return uploadError(outage.kind === "http_500" ? 500 : 503, "ServiceUnavailable", "The upload service is unavailable; retry from the same offset", true);
  }
  return await store.withLock(`upload:${idOf(target)}`, async () => {
    // Re-read inside the lock: an earlier call may have moved the record on.
    const fresh: Target = target.kind === "instagram"
      ? { kind: "instagram", record: store.container(target.record.id)! }
      : { kind: "facebook", record: store.reel(target.record.video_id)! };
    return await receive(req, store, fresh, ctx);
  });
}
