/**
 * The YouTube Analytics API v2 `reports.query` for a channel's own videos, as Google documents it:
 *
 *   GET /v2/reports?ids=channel==MINE&startDate=YYYY-MM-DD&endDate=YYYY-MM-DD&metrics=a,b
 *                  [&dimensions=elapsedVideoTimeRatio][&filters=video==ID][&sort=..][&maxResults=n]
 *
 * answered `{kind: "youtubeAnalytics#resultTable", columnHeaders: [{name, columnType, dataType}],
 * rows: [[...]]}` (no `rows` when YouTube has no data for the period yet). Emulated reports, for
 * one video (`filters=video==ID`, required):
 *   - totals: metrics among views, engagedViews, averageViewDuration, averageViewPercentage, likes,
 *     no dimensions: one row;
 *   - retention: dimensions=elapsedVideoTimeRatio, metrics=audienceWatchRatio: 100 rows, ratio 0.01..1.00.
 * Figures come from figures.ts (seeded, consistent, lagged 48 h on the emulator clock), with the
 * video's upload time and length from the YouTube emulator's store and its appeal from admin.ts.
 *
 * Checks, in order, each answered in Google's error shape `{error:{code, message, errors:[{message,
 * domain, reason}], status}}`: a bearer token the OAuth emulator issued (401 authError); the
 * token's grant includes yt-analytics.readonly or yt-analytics-monetary.readonly (403
 * insufficientPermissions); armed faults (service `youtube-analytics`: `quota_exceeded` 403,
 * `http_503` 503 backendError, `http_500` 500 internalError, `slow`); the parameters (400
 * badRequest/invalidValue/required, nothing charged); one query charged to the token's project for
 * the Pacific day (403 quotaExceeded, domain usageLimits, past its queries per day, admin.ts);
 * the video is the token's channel's (403 forbidden).
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { channelIdFor } from "../google-oauth/routes.ts";
import { hasScope } from "../google-oauth/token-store.ts";
import { apiError, unauthorized } from "../youtube/errors.ts";
import { pacificDay } from "../youtube/pacific-day.ts";
import { youtubeFor } from "../youtube/state.ts";
import { handleAnalyticsAdmin } from "./admin.ts";
import { retentionCurve, videoTotals } from "./figures.ts";
import { analyticsFor, recordQuery, videoFacts } from "./state.ts";

export { resetAnalytics } from "./state.ts";

const REPORTS_PATH = "/v2/reports";
const ANALYTICS_SCOPES = ["https://www.googleapis.com/auth/yt-analytics.readonly", "https://www.googleapis.com/auth/yt-analytics-monetary.readonly"];
const TOTAL_METRICS: Record<string, "INTEGER" | "FLOAT"> = {
  views: "INTEGER",
  engagedViews: "INTEGER",
  averageViewDuration: "INTEGER",
  averageViewPercentage: "FLOAT",
  likes: "INTEGER",
};
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const VIDEO_ID = /^[A-Za-z0-9_-]{1,64}$/;

const badRequest = (message: string, reason = "badRequest") => apiError(400, reason, message, {}, "global");
const insufficientScope = () => apiError(403, "insufficientPermissions", "Request had insufficient authentication scopes.", {}, "global");
const quotaExceeded = () => apiError(403, "quotaExceeded", "The request cannot be completed because you have exceeded your quota.", {}, "usageLimits");

function validDate(value: string | null): value is string {
  return value !== null && DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
    new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
}

interface ParsedQuery {
  startDate: string;
  endDate: string;
  metrics: string[];
  retention: boolean;
  videoId: string;
  descending: boolean;
  maxResults: number | null;
}

function parseQuery(q: URLSearchParams, channelId: string): ParsedQuery | Response {
  const ids = q.get("ids");
  if (ids === null) return badRequest("Required parameter: ids", "required");
  if (ids !== "channel==MINE" && ids !== `channel==${channelId}`) {
    return badRequest(`Invalid value '${ids.slice(0, 100)}'. Only channel==MINE or the token's own channel is emulated.`, "invalidValue");
  }
  const startDate = q.get("startDate");
  const endDate = q.get("endDate");
  if (startDate === null || endDate === null) return badRequest(`Required parameter: ${startDate === null ? "startDate" : "endDate"}`, "required");
  if (!validDate(startDate) || !validDate(endDate)) return badRequest("startDate and endDate must be dates in YYYY-MM-DD format.", "invalidValue");
  if (endDate < startDate) return badRequest("The query's endDate is before its startDate.", "invalidValue");
  const metricsText = q.get("metrics");
  if (metricsText === null || metricsText.trim() === "") return badRequest("Required parameter: metrics", "required");
  const metrics = metricsText.split(",").map((m) => m.trim());
  const dimensions = q.get("dimensions");
  const retention = dimensions !== null && dimensions !== "";
  if (retention && dimensions !== "elapsedVideoTimeRatio") {
    return badRequest(`The query is not supported: dimensions=${dimensions.slice(0, 100)} (emulated: none, or elapsedVideoTimeRatio).`);
  }
  if (retention && (metrics.length !== 1 || metrics[0] !== "audienceWatchRatio")) {
    return badRequest("The query is not supported: elapsedVideoTimeRatio reports take metrics=audienceWatchRatio.");
  }
  if (!retention) {
    const unknown = metrics.find((m) => !Object.hasOwn(TOTAL_METRICS, m));
    if (unknown !== undefined) return badRequest(`Unknown identifier (${unknown.slice(0, 100)}) given in field parameters.metrics.`, "invalidValue");
    if (new Set(metrics).size !== metrics.length) return badRequest("A metric is listed twice in parameters.metrics.", "invalidValue");
  }
  const filters = q.get("filters");
  const video = filters === null ? null : /^video==(.+)$/.exec(filters);
  if (!video) return badRequest("The query is not supported: give filters=video==<VIDEO_ID> (one video's reports are emulated).");
  if (!VIDEO_ID.test(video[1]!)) return badRequest("Invalid value in filters: a video id is letters, digits, '-' or '_'.", "invalidValue");
  const sort = q.get("sort");
  const sortable = retention ? ["elapsedVideoTimeRatio", "audienceWatchRatio"] : metrics;
  if (sort !== null && sort !== "" && !sortable.includes(sort.replace(/^-/, ""))) {
    return badRequest(`The sort parameter names ${sort.slice(0, 100)}, which is not a dimension or metric of the query.`, "invalidValue");
  }
  const max = q.get("maxResults");
  if (max !== null && !/^[1-9]\d{0,5}$/.test(max)) return badRequest("maxResults must be a positive whole number.", "invalidValue");
  return {
    startDate,
    endDate,
    metrics,
    retention,
    videoId: video[1]!,
    descending: sort === "-elapsedVideoTimeRatio",
    maxResults: max === null ? null : Number(max),
  };
}

/** The video's length, measured once from the uploaded file (a seeded length when it cannot be). */
async function queryReport(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "GET") return apiError(405, "httpMethodNotAllowed", `${req.method} is not allowed on ${REPORTS_PATH}.`, {}, "global");
  const token = ctx.tokens.verify(req.headers.get("authorization"));
  if (!token) return unauthorized();
  if (!ANALYTICS_SCOPES.some((scope) => hasScope(token, scope))) return insufficientScope();
  await slowDown(ctx.faults, "youtube-analytics");
  const fault = ctx.faults.take("youtube-analytics");
  if (fault?.kind === "quota_exceeded") return quotaExceeded();
  if (fault?.kind === "http_503") return apiError(503, "backendError", "Backend Error", {}, "global");
  if (fault?.kind === "http_500") return apiError(500, "internalError", "Internal Error", {}, "global");
  const state = analyticsFor(ctx);
  const query = parseQuery(url.searchParams, channelIdFor(token.channel));
  if (query instanceof Response) return query;

  const now = ctx.clock.now();
  const bucket = `${token.client_id}/${pacificDay(now)}`;
  const used = state.used.get(bucket) ?? 0;
  if (used >= state.queriesPerDay) return quotaExceeded();
  state.used.set(bucket, used + 1);

  const { store } = await youtubeFor(ctx);
  const record = await store.getVideo(query.videoId);
  if (!record || record.channel !== token.channel) {
    return apiError(403, "forbidden", "Forbidden: the video is not one of the authorized channel's.", {}, "global");
  }
  const facts = await videoFacts(state, record);
  const totals = videoTotals(facts, { startDate: query.startDate, endDate: query.endDate, nowMs: now });
  let columnHeaders: Array<{ name: string; columnType: "DIMENSION" | "METRIC"; dataType: string }>;
  let rows: Array<Array<number>> = [];
  if (query.retention) {
    columnHeaders = [
      { name: "elapsedVideoTimeRatio", columnType: "DIMENSION", dataType: "FLOAT" },
      { name: "audienceWatchRatio", columnType: "METRIC", dataType: "FLOAT" },
    ];
    if (totals) rows = retentionCurve(facts).map(([ratio, watch]) => [ratio, watch]);
    if (query.descending) rows.reverse();
  } else {
    columnHeaders = query.metrics.map((name) => ({ name, columnType: "METRIC" as const, dataType: TOTAL_METRICS[name]! }));
    if (totals) rows = [query.metrics.map((name) => totals[name as keyof typeof totals])];
  }
  if (query.maxResults !== null) rows = rows.slice(0, query.maxResults);
  recordQuery(state, {
    at: new Date(now).toISOString(),
    channel: token.channel,
    client_id: token.client_id,
    video_id: record.id,
    start_date: query.startDate,
    end_date: query.endDate,
    metrics: query.metrics.join(","),
    dimensions: query.retention ? "elapsedVideoTimeRatio" : null,
    status: 200,
    rows: rows.length,
  });
  return jsonResponse({ kind: "youtubeAnalytics#resultTable", columnHeaders, ...(rows.length > 0 ? { rows } : {}) });
}

export async function handleYouTubeAnalytics(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === REPORTS_PATH) return await queryReport(req, url, ctx);
  return await handleAnalyticsAdmin(req, url, ctx);
}
