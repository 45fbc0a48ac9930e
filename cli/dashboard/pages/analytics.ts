/**
 * Analytics: this week's charts of each active dimension (the weekly report's: outcomes, views,
 * retention, spend; drawn here as SVG from the report's figures), then each recent publication's day-3 and day-7 windows, YouTube Analytics' or
 * TikTok's.
 */
import { html } from "hono/html";
import type { RunVideoAnalytics } from "../../../shared/contracts/analytics.ts";
import type { WeeklyReport } from "../../../shared/contracts/weekly-report.ts";
import { renderWeeklyChartSvg } from "../../../shared/reports/weekly-charts.ts";
import type { DashboardApi } from "../ops-client.ts";
import { type Html, section, sectionError, table, when } from "../layout.ts";

/** How many recent runs the page reads. */
const ANALYTICS_RUNS = 10;
/** How many dimensions' charts the page draws (each a vega run in this process). */
const CHART_DIMENSIONS = 8;

type Figures = Pick<
  RunVideoAnalytics,
  "views" | "engaged_views" | "average_view_duration_s" | "average_view_percentage" | "likes" | "comments" | "shares" | "fetched_at"
>;

/** The headers of figureCells' cells. */
export const FIGURE_HEADERS = ["views", "engaged", "avg. watched", "avg. %", "likes", "comments", "shares", "fetched"];

/** A figure the platform does not report (YouTube's watch figures on TikTok, TikTok's comments on YouTube). */
const dash = (value: number | null, show: (v: number) => string = String) => value === null ? "–" : show(value);

/** The cells of a window's figures, here and on a video's page: FIGURE_HEADERS in order. */
export function figureCells(a: Figures, nowMs: number): Html {
  return html`
    <td class="num">${a.views}</td>
    <td class="num">${dash(a.engaged_views)}</td>
    <td class="num">${dash(a.average_view_duration_s, (v) => `${v.toFixed(1)} s`)}</td>
    <td class="num">${dash(a.average_view_percentage, (v) => `${v.toFixed(1)} %`)}</td>
    <td class="num">${a.likes}</td>
    <td class="num">${dash(a.comments)}</td>
    <td class="num">${dash(a.shares)}</td>
    <td>${when(a.fetched_at, nowMs)}</td>
  `;
}

function row(a: RunVideoAnalytics, titles: Map<string, string>, nowMs: number): Html {
  const title = titles.get(a.publication_id);
  return html`
    <tr data-publication="${a.publication_id}">
      <td><a href="/videos/${a.publication_id}">${title ?? a.external_id ?? a.publication_id.slice(0, 8)}</a></td>
      <td>${a.platform} ${a.channel_handle}</td>
      <td>day ${a.window_days}</td>
      ${figureCells(a, nowMs)}
    </tr>
  `;
}

/**
 * The SVG as an image: a data: URL the CSP's img-src allows, and an SVG shown as an image runs no
 * script and loads nothing, whatever its text says.
 */
export function chartImage(svg: string, alt: string): Html {
  const width = /^<svg[^>]*\swidth="(\d+)"/.exec(svg)?.[1];
  return html`<img class="chart" src="data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}" alt="${alt}" width="${width ?? ""}">`;
}

/**
 * Charts already drawn, by the figures they were drawn from (all but generated_at): drawing one
 * costs about half a second of CPU, and the figures change only as the week's work does.
 */
const drawnCharts = new Map<string, string>();

async function chartOf(report: WeeklyReport): Promise<string> {
  const { generated_at: _at, ...figures } = report;
  const key = JSON.stringify(figures);
  const seen = drawnCharts.get(key);
  if (seen !== undefined) return seen;
  const svg = await renderWeeklyChartSvg(report);
  if (drawnCharts.size >= 2 * CHART_DIMENSIONS) drawnCharts.delete(drawnCharts.keys().next().value!);
  drawnCharts.set(key, svg);
  return svg;
}

/** This week's charts of the active dimensions (the first CHART_DIMENSIONS), drawn here from the weekly report's figures. */
function weekCharts({ api }: DashboardApi, nowMs: number): Promise<Html> {
  const week = new Date(nowMs).toISOString().slice(0, 10);
  return section("this week's reports", async () => {
    const { reports } = await api.weeklyReports(week, null);
    const shown = reports.slice(0, CHART_DIMENSIONS);
    return {
      more: reports.length - shown.length,
      drawn: await Promise.all(shown.map(async ({ report }) => ({ report, svg: await chartOf(report) }))),
    };
  }, ({ more, drawn }) =>
    html`
      <h2>This week</h2>
      ${drawn.length === 0 ? html`<p class="empty">No active dimension.</p>` : drawn.map(({ report, svg }) =>
        html`
          <figure>
            ${chartImage(svg, `This week's charts of ${report.display_name}`)}
            <figcaption>${report.display_name} (${report.dimension_id}), week of ${report.week_start}</figcaption>
          </figure>
        `
      )}
      ${more > 0 ? html`<p class="muted">${more} more active dimension(s): <code>mdame report --week ${week} --dimension ID --chart FILE.svg</code></p>` : ""}
      <h2>Videos</h2>
    `);
}

export async function analyticsPage(dashboard: DashboardApi, nowMs: number): Promise<Html> {
  const [charts, videos] = await Promise.all([weekCharts(dashboard, nowMs), videoAnalytics(dashboard, nowMs)]);
  return html`${charts}${videos}`;
}

function videoAnalytics({ api, ops }: DashboardApi, nowMs: number): Promise<Html> {
  return section("the analytics", async () => {
    const [{ runs }, videos] = await Promise.all([api.listRuns(ANALYTICS_RUNS), ops.videos(200).catch(() => ({ videos: [] }))]);
    const settled = await Promise.allSettled(runs.map((r) => api.runAnalytics(r.id)));
    const titles = new Map(videos.videos.map((v) => [v.id, v.title ?? v.external_id ?? v.id]));
    return { settled, runs, titles };
  }, ({ settled, runs, titles }) => {
    const rows: Html[] = [];
    const errors: Html[] = [];
    settled.forEach((s, i) => {
      if (s.status === "rejected") errors.push(sectionError(`the analytics of run ${runs[i]!.id}`, s.reason));
      else for (const a of s.value.analytics) rows.push(row(a, titles, nowMs));
    });
    return html`${errors}${
      table(
        ["video", "channel", "window", ...FIGURE_HEADERS],
        rows,
        `No analytics fetched for the last ${ANALYTICS_RUNS} runs' videos.`,
      )
    }`;
  });
}
