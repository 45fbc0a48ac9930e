/**
 * YouTube Data API v3 `videoCategories.list` (1 unit), as documented:
 *
 *   GET /youtube/v3/videoCategories?part=snippet&regionCode=US     the categories of a region
 *   GET /youtube/v3/videoCategories?part=snippet&id=22,27          the named categories
 *
 * Answers `{kind: "youtube#videoCategoryListResponse", etag, items: [{kind: "youtube#videoCategory",
 * etag, id, snippet: {channelId, title, assignable}}]}`. Exactly one of `regionCode` (ISO 3166-1
 * alpha-2) and `id` is required; `hl` is accepted (titles stay English). Every region gets the
 * same table, as most do on YouTube. An upload's `snippet.categoryId` must be an assignable one.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { apiError } from "./errors.ts";
import { chargeApiCall } from "./state.ts";

export const CATEGORIES_PATH = "/youtube/v3/videoCategories";
/** The channel YouTube names as the owner of its built-in categories. */
const YOUTUBE_CHANNEL_ID = "UCBR8-60-B28hp2BmDPdntcQ";

/** id, title, whether a video may be filed under it. */
const CATEGORIES: ReadonlyArray<readonly [string, string, boolean]> = [
  ["1", "Film & Animation", true],
  ["2", "Autos & Vehicles", true],
  ["10", "Music", true],
  ["15", "Pets & Animals", true],
  ["17", "Sports", true],
  ["18", "Short Movies", false],
  ["19", "Travel & Events", true],
  ["20", "Gaming", true],
  ["21", "Videoblogging", false],
  ["22", "People & Blogs", true],
  ["23", "Comedy", true],
  ["24", "Entertainment", true],
  ["25", "News & Politics", true],
  ["26", "Howto & Style", true],
  ["27", "Education", true],
  ["28", "Science & Technology", true],
  ["29", "Nonprofits & Activism", true],
  ["30", "Movies", false],
  ["31", "Anime/Animation", false],
  ["32", "Action/Adventure", false],
  ["33", "Classics", false],
  ["34", "Comedy", false],
  ["35", "Documentary", false],
  ["36", "Drama", false],
  ["37", "Family", false],
  ["38", "Foreign", false],
  ["39", "Horror", false],
  ["40", "Sci-Fi/Fantasy", false],
  ["41", "Thriller", false],
  ["42", "Shorts", false],
  ["43", "Shows", false],
  ["44", "Trailers", false],
];

export function isAssignableCategory(id: string): boolean {
  return CATEGORIES.some(([categoryId, , assignable]) => categoryId === id && assignable);
}

function category([id, title, assignable]: readonly [string, string, boolean]) {
  return { kind: "youtube#videoCategory", etag: `emulator-category-${id}`, id, snippet: { title, assignable, channelId: YOUTUBE_CHANNEL_ID } };
}

export async function listVideoCategories(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "GET") return apiError(405, "methodNotAllowed", `${req.method} is not allowed on ${CATEGORIES_PATH}.`, {}, "global");
  const token = await chargeApiCall(req, ctx, "videoCategories.list");
  if (token instanceof Response) return token;
  const q = url.searchParams;
  const parts = q.getAll("part").flatMap((p) => p.split(",")).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return apiError(400, "required", "Required parameter: part", { location: "part", locationType: "parameter" }, "global");
  const unknown = parts.find((p) => p !== "snippet" && p !== "id");
  if (unknown) return apiError(400, "unknownPart", `'${unknown}'`, { location: "part", locationType: "parameter" }, "youtube.part");
  const region = q.get("regionCode");
  if (q.has("id") === (region !== null)) {
    return apiError(400, "missingRequiredParameter", "No filter selected. Expected one of: id, regionCode", {}, "youtube.parameter");
  }
  if (region !== null && !/^[A-Za-z]{2}$/.test(region)) {
    return apiError(400, "invalidRegionCode", "The regionCode parameter specifies an invalid region code.", {
      location: "regionCode",
      locationType: "parameter",
    }, "youtube.parameter");
  }
  // `id=a,b` and `id=a&id=b` (googleapis sends an array that way) are the same list.
  const wanted = q.has("id") ? new Set(q.getAll("id").flatMap((id) => id.split(",")).map((id) => id.trim()).filter(Boolean)) : undefined;
  const items = CATEGORIES.filter(([id]) => wanted === undefined || wanted.has(id)).map(category)
    .map((item) => parts.includes("snippet") ? item : { kind: item.kind, etag: item.etag, id: item.id });
  return jsonResponse({ kind: "youtube#videoCategoryListResponse", etag: "emulator-video-categories", items });
}
