/**
 * The YouTube Analytics API v2 `reports.query` for one video, through googleapis' own client
 * (`@googleapis/youtubeanalytics`, rootUrl pointed at `baseUrl`, as `@googleapis/youtube` is): the
 * totals (views, engagedViews, averageViewDuration, averageViewPercentage, likes) and the retention
 * curve (audienceWatchRatio by elapsedVideoTimeRatio) of a date range. Answers are parsed with Zod;
 * a report with no rows (YouTube's data lags 48-72 h) is null. Failures throw ProviderError with
 * the HTTP status and Google's reason (`quotaExceeded`, `insufficientPermissions`, ...). Runs in
 * Deno and Bun.
 */
import { youtubeAnalytics } from "@googleapis/youtubeanalytics";
import { OAuth2Client } from "google-auth-library";
import { z } from "zod";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";

const PROVIDER = "youtube-analytics";
export const ANALYTICS_SCOPE = "https://www.googleapis.com/auth/yt-analytics.readonly";
export const TOTAL_METRICS = ["views", "engagedViews", "averageViewDuration", "averageViewPercentage", "likes"] as const;

const ColumnHeader = z.object({ name: z.string(), columnType: z.string().optional(), dataType: z.string().optional() }).passthrough();
const ResultTable = z.object({
  kind: z.literal("youtubeAnalytics#resultTable").optional(),
  columnHeaders: z.array(ColumnHeader),
  rows: z.array(z.array(z.union([z.number(), z.string()]))).optional().nullable(),
}).passthrough();

const count = z.number().int().nonnegative();
/** One video's totals for a period. */
export const VideoTotals = z.object({
  views: count,
  engagedViews: count,
  averageViewDuration: z.number().nonnegative(),
  averageViewPercentage: z.number().nonnegative(),
  likes: count,
}).strict();
export type VideoTotals = z.infer<typeof VideoTotals>;

/** A point of the retention curve as the engine stores it. */
const RetentionPoint = z.object({ ratio: z.number().gt(0).max(1), watch_ratio: z.number().nonnegative() }).strict();
type RetentionPoint = z.infer<typeof RetentionPoint>;

export interface VideoReportQuery {
  /** The API root, `https://youtubeanalytics.googleapis.com` or the emulator's. */
  baseUrl: string;
  accessToken: string;
  videoId: string;
  /** `YYYY-MM-DD`, inclusive. */
  startDate: string;
  endDate: string;
  signal?: AbortSignal;
}

function client(query: VideoReportQuery) {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: query.accessToken });
  return youtubeAnalytics({ version: "v2", auth, rootUrl: `${query.baseUrl.replace(/\/+$/, "")}/` });
}

/** Google's failure as a ProviderError: status and reason from the answer, never the request (it carries the token). */
function failure(what: string, error: unknown): Error {
  const failed = error as { status?: number; response?: { status?: number; data?: unknown }; code?: string };
  const status = failed.response?.status ?? failed.status;
  const body = failed.response?.data as { error?: { message?: unknown; errors?: Array<{ reason?: unknown }> } } | undefined;
  const reason = typeof body?.error?.errors?.[0]?.reason === "string" ? body.error.errors[0].reason as string : undefined;
  const message = typeof body?.error?.message === "string" ? body.error.message.slice(0, 300) : failed.code ?? "no answer";
  if (typeof status === "number") return errorForStatus(PROVIDER, status, `${what} failed (${status}${reason ? ` ${reason}` : ""}): ${message}`, error, reason);
  return new ProviderUnavailableError(PROVIDER, `${what} failed: ${message}`, { cause: error });
}

async function report(query: VideoReportQuery, params: { metrics: string; dimensions?: string; sort?: string }) {
  let data: unknown;
  try {
    data = (await client(query).reports.query({
      ids: "channel==MINE",
      startDate: query.startDate,
      endDate: query.endDate,
      filters: `video==${query.videoId}`,
      ...params,
      // One query is one call, as the ledger reserved it: the engine's own backoff retries, not gaxios'.
    }, { signal: query.signal, retry: false })).data;
  } catch (error) {
    throw failure(`reports.query (${params.dimensions ?? "totals"})`, error);
  }
  const parsed = ResultTable.safeParse(data);
  if (!parsed.success) {
    throw new ProviderUnavailableError(PROVIDER, `reports.query answered a table that is not a resultTable: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data;
}

/** The video's totals for the period, or null while YouTube has no data for it. */
export async function queryVideoTotals(query: VideoReportQuery): Promise<VideoTotals | null> {
  const table = await report(query, { metrics: TOTAL_METRICS.join(",") });
  const row = table.rows?.[0];
  if (!row) return null;
  const named = Object.fromEntries(table.columnHeaders.map((header, i) => [header.name, row[i]]));
  const totals = VideoTotals.safeParse(Object.fromEntries(TOTAL_METRICS.map((name) => [name, named[name]])));
  if (!totals.success) {
    throw new ProviderUnavailableError(
      PROVIDER,
      `reports.query answered totals that break their contract: ${totals.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return totals.data;
}

/** The retention curve (up to 100 points, in ratio order), or null while YouTube has no data. */
export async function queryVideoRetention(query: VideoReportQuery): Promise<RetentionPoint[] | null> {
  const table = await report(query, { metrics: "audienceWatchRatio", dimensions: "elapsedVideoTimeRatio", sort: "elapsedVideoTimeRatio" });
  if (!table.rows || table.rows.length === 0) return null;
  const ratioAt = table.columnHeaders.findIndex((h) => h.name === "elapsedVideoTimeRatio");
  const watchAt = table.columnHeaders.findIndex((h) => h.name === "audienceWatchRatio");
  if (ratioAt < 0 || watchAt < 0) throw new ProviderUnavailableError(PROVIDER, "reports.query answered a retention table without its two columns");
  const points = z.array(RetentionPoint).max(100).safeParse(table.rows.map((row) => ({ ratio: row[ratioAt], watch_ratio: row[watchAt] })));
  if (!points.success) {
    throw new ProviderUnavailableError(PROVIDER, `reports.query answered a retention curve that breaks its contract: ${points.error.issues[0]?.message}`);
  }
  return points.data.sort((a, b) => a.ratio - b.ratio);
}
