/**
 * YouTube Data API v3 `videos.batchGetStats` (1 unit of the project's own batchGetStats bucket,
 * which since 3 Jun 2026 is apart from the other calls' units):
 *
 *   GET /youtube/v3/videos:batchGetStats?id=ID1,ID2&part=statistics,snippet,contentDetails   Authorization: Bearer
 *
 * Answers `{kind: "youtube#batchGetStatsResponse", etag, items}`, each item
 * `{kind: "youtube#videoStats", etag, id, snippet: {publishTime}, statistics: {viewCount,
 * likeCount, commentCount}, contentDetails: {duration, durationMillis}}` with the parts asked. The
 * counters are real time on the emulator clock (no Analytics lag), drawn on the same seeded curve
 * as the YouTube Analytics emulator's reports (youtube-analytics/figures.ts), as strings the way
 * the Data API sends unsigned longs. Unknown ids, and private videos of another channel than the
 * token's, are left out. At most 50 ids. The project is the bearer token's OAuth client: the
 * emulator meters per project, so a call without a token is 401 (YouTube would take an API key
 * for public videos).
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { analyticsFor, videoFacts } from "../youtube-analytics/state.ts";
import { countersAt } from "../youtube-analytics/figures.ts";
import { apiError, quotaExceeded, unauthorized } from "./errors.ts";
import { chargeApiCall, youtubeFor } from "./state.ts";
import { idsOf, MAX_IDS, visibleVideos } from "./videos-list.ts";

export const BATCH_GET_STATS_PATH = "/youtube/v3/videos:batchGetStats";
const PARTS = new Set(["id", "snippet", "statistics", "contentDetails"]);

/** ISO 8601 duration of whole seconds: PT1M5S. */
function isoDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return `PT${minutes > 0 ? `${minutes}M` : ""}${whole % 60 > 0 || minutes === 0 ? `${whole % 60}S` : ""}`;
}

export async function batchGetStats(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "GET") {
    return apiError(405, "methodNotAllowed", `${req.method} is not allowed on ${BATCH_GET_STATS_PATH}: use GET.`, {}, "global");
  }
  const parts = url.searchParams.getAll("part").flatMap((p) => p.split(",")).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return apiError(400, "required", "Required parameter: part", { location: "part", locationType: "parameter" }, "global");
  const unknown = parts.find((p) => !PARTS.has(p));
  if (unknown) return apiError(400, "unknownPart", `'${unknown}'`, { location: "part", locationType: "parameter" }, "youtube.part");
  const ids = idsOf(url);
  if (ids.length === 0) return apiError(400, "required", "Required parameter: id", { location: "id", locationType: "parameter" }, "global");
  if (ids.length > MAX_IDS) {
    return apiError(400, "invalidValue", `At most ${MAX_IDS} video ids may be given.`, { location: "id", locationType: "parameter" }, "youtube.parameter");
  }
  if (!ctx.tokens.verify(req.headers.get("authorization"))) return unauthorized();
  await slowDown(ctx.faults, "youtube-data");
  const fault = ctx.faults.take("youtube-data");
  if (fault?.kind === "http_503") return apiError(503, "backendError", "Backend Error", {}, "global");
  if (fault?.kind === "quota_exceeded") return quotaExceeded();
  const token = await chargeApiCall(req, ctx, "videos.batchGetStats");
  if (token instanceof Response) return token;

  const { store } = await youtubeFor(ctx);
  const analytics = analyticsFor(ctx);
  const now = ctx.clock.now();
  const items: Record<string, unknown>[] = [];
  for (const { record } of await visibleVideos(store, ids, token.channel, now)) {
    const id = record.id;
    const facts = await videoFacts(analytics, record);
    const item: Record<string, unknown> = { kind: "youtube#videoStats", etag: `stats-${id}-${now}`, id };
    if (parts.includes("snippet")) item.snippet = { publishTime: record.uploaded_at };
    if (parts.includes("statistics")) {
      const counters = countersAt(facts, now);
      item.statistics = { viewCount: String(counters.views), likeCount: String(counters.likes), commentCount: String(counters.comments) };
    }
    if (parts.includes("contentDetails")) {
      item.contentDetails = { duration: isoDuration(facts.durationS), durationMillis: String(Math.round(facts.durationS * 1000)) };
    }
    items.push(item);
  }
  return jsonResponse({ kind: "youtube#batchGetStatsResponse", etag: `emulator-stats-${now}`, items });
}
