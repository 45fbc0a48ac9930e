/**
 * YouTube Data API v3 `videos.list` by id (1 unit), so a client can read a video's status after
 * its upload:
 *
 *   GET /youtube/v3/videos?part=snippet,status&id=ID1,ID2      Authorization: Bearer
 *
 * Answers `{kind: "youtube#videoListResponse", etag, pageInfo, items}` with each video as it reads
 * now on the emulator clock (a scheduled one turns public when its publishAt passes; metadata.ts).
 * Unknown ids, and private videos of another channel than the token's, are left out,
 * as YouTube leaves out what the caller may not see. Only the `id` filter is served (at most 50
 * ids); the parts kept are `snippet`, `status` and `processingDetails` (`processingStatus`
 * `processing` with its progress until the channel's processing time has passed since the upload,
 * then `succeeded`; rules.ts); other known parts are accepted and omitted.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { apiError } from "./errors.ts";
import { resourceAt } from "./metadata.ts";
import { chargeApiCall, youtubeFor } from "./state.ts";
import type { VideoRecord, YouTubeStore } from "./store.ts";

export const VIDEOS_PATH = "/youtube/v3/videos";
const PARTS = new Set([
  "id",
  "snippet",
  "status",
  "contentDetails",
  "fileDetails",
  "liveStreamingDetails",
  "localizations",
  "paidProductPlacementDetails",
  "player",
  "processingDetails",
  "recordingDetails",
  "statistics",
  "suggestions",
  "topicDetails",
]);
const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
/** The most ids a videos.list or a videos.batchGetStats call takes. */
export const MAX_IDS = 50;

/** The `id` parameter's ids, `id=a,b` and `id=a&id=b` alike (googleapis sends an array that way), each once. */
export function idsOf(url: URL): string[] {
  return [...new Set(url.searchParams.getAll("id").flatMap((id) => id.split(",")).map((id) => id.trim()).filter(Boolean))];
}

/**
 * The stored videos of `ids` a caller on `channel` may see, each with its resource as it reads at
 * `now`: unknown ids, and private videos of another channel, are left out, as YouTube leaves out
 * what the caller may not see.
 */
export async function visibleVideos(
  store: YouTubeStore,
  ids: readonly string[],
  channel: string,
  now: number,
): Promise<Array<{ record: VideoRecord; resource: Record<string, unknown> }>> {
  const visible: Array<{ record: VideoRecord; resource: Record<string, unknown> }> = [];
  for (const id of ids.filter((id) => VIDEO_ID.test(id))) {
    const record = await store.getVideo(id);
    if (!record) continue;
    const resource = resourceAt(record, now);
    const privacy = (resource.status as { privacyStatus?: string } | undefined)?.privacyStatus;
    if (record.channel !== channel && privacy === "private") continue;
    visible.push({ record, resource });
  }
  return visible;
}

/** The processingDetails part: processing with its progress until `seconds` after the upload, then succeeded. */
function processingDetails(record: VideoRecord, now: number, seconds: number): Record<string, unknown> {
  const elapsedMs = now - Date.parse(record.uploaded_at);
  const totalMs = seconds * 1000;
  if (elapsedMs >= totalMs) return { processingStatus: "succeeded" };
  const parts = 1000;
  return {
    processingStatus: "processing",
    processingProgress: {
      partsTotal: String(parts),
      partsProcessed: String(Math.floor((Math.max(0, elapsedMs) / totalMs) * parts)),
      timeLeftMs: String(totalMs - Math.max(0, elapsedMs)),
    },
  };
}

export async function listVideos(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "GET") {
    return apiError(
      405,
      "methodNotAllowed",
      `${req.method} is not allowed on ${VIDEOS_PATH}: videos.list (GET) and videos.update (PUT) are emulated.`,
      {},
      "global",
    );
  }
  const token = await chargeApiCall(req, ctx, "videos.list");
  if (token instanceof Response) return token;
  const parts = url.searchParams.getAll("part").flatMap((p) => p.split(",")).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return apiError(400, "required", "Required parameter: part", { location: "part", locationType: "parameter" }, "global");
  const unknown = parts.find((p) => !PARTS.has(p));
  if (unknown) return apiError(400, "unknownPart", `'${unknown}'`, { location: "part", locationType: "parameter" }, "youtube.part");
  if (!url.searchParams.has("id")) {
    return apiError(
      400,
      "missingRequiredParameter",
      "No filter selected. Expected one of: id (the emulator serves videos.list by id only)",
      {},
      "youtube.parameter",
    );
  }
  const ids = idsOf(url);
  if (ids.length > MAX_IDS) {
    return apiError(400, "invalidValue", `At most ${MAX_IDS} video ids may be given.`, { location: "id", locationType: "parameter" }, "youtube.parameter");
  }

  const { store, rules } = await youtubeFor(ctx);
  const now = ctx.clock.now();
  const items: Record<string, unknown>[] = [];
  for (const { record, resource } of await visibleVideos(store, ids, token.channel, now)) {
    const item: Record<string, unknown> = { kind: resource.kind, etag: resource.etag, id: resource.id };
    for (const part of ["snippet", "status"]) if (parts.includes(part) && resource[part] !== undefined) item[part] = resource[part];
    if (parts.includes("processingDetails")) item.processingDetails = processingDetails(record, now, rules.processingSeconds(record.channel));
    items.push(item);
  }
  return jsonResponse({
    kind: "youtube#videoListResponse",
    etag: "emulator-videos",
    pageInfo: { totalResults: items.length, resultsPerPage: items.length },
    items,
  });
}
