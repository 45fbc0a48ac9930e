/**
 * TikTok for Developers, as the engine's TikTok client speaks it: Login Kit OAuth v2 for desktop
 * apps (oauth.ts), the Content Posting API's Direct Post (publish.ts: creator_info, video init,
 * status fetch), the upload URL the init hands out (upload.ts, `PUT /tiktok-upload/video/?upload_id=`),
 * the Display API's video/query with its seeded figures (video-query.ts, figures.ts) and the admin
 * routes under `/_emulator/tiktok/` (admin.ts). State persists under
 * `<data dir>/tiktok/` (store.ts); `POST /_emulator/reset` clears it (`resetTikTok`). Faults are
 * armed through the shared fault book with service `tiktok`.
 */
import type { EmulatorContext } from "../context.ts";
import { handleTikTokAdmin } from "./admin.ts";
import { handleTikTokOAuth } from "./oauth.ts";
import { handlePublish, UPLOAD_PATH } from "./publish.ts";
import { handleUpload } from "./upload.ts";
import { handleVideoQuery } from "./video-query.ts";

export { resetTikTok } from "./state.ts";

export async function handleTikTok(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname.startsWith("/_emulator/tiktok/")) return await handleTikTokAdmin(req, url, ctx);
  if (url.pathname === UPLOAD_PATH) return await handleUpload(req, url, ctx);
  return await handleTikTokOAuth(req, url, ctx) ?? await handlePublish(req, url, ctx) ?? await handleVideoQuery(req, url, ctx);
}
