/**
 * The weekly report's charts, the figures the closed loop runs on, in one picture of four panels:
 * outcomes per day (stacked by outcome), views and engaged views per video (each labelled with its
 * platform; engaged views where the platform reports them), the retention curves of the week's best and worst videos (YouTube's), and spend per
 * day. The charts are a Vega-Lite specification built from the report alone (a pure function),
 * compiled by vega-lite and drawn as SVG by vega's headless renderer; chart-png.ts rasterises that
 * SVG for Telegram and the dashboard shows it as it is.
 */
import type { TopLevelSpec } from "vega-lite";
import { compile } from "vega-lite";
import { parse, View } from "vega";
import type { DailySpend, WeeklyReport } from "../contracts/weekly-report.ts";

/** The one font the charts name: chart-png.ts hands resvg this face (shared/reports/fonts/). */
export const CHART_FONT = "DejaVu Sans";

const PANEL_WIDTH = 380;
const PANEL_HEIGHT = 220;
/** Longest label of a video on the views chart, in characters (vega measures text by estimate). */
const LABEL_CHARS = 30;

export const OUTCOME_COLORS = { published: "#2e8b57", rejected: "#e69f00", failed: "#cc3333" } as const;
const VIEW_COLORS = { views: "#4c78a8", "engaged views": "#72b7b2" } as const;
const CURVE_COLORS = ["#2e8b57", "#cc3333"];
const SPEND_COLOR = "#8c564b";

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** One panel: a unit specification, as the vconcat of TopLevelSpec takes it. */
type Panel = Extract<TopLevelSpec, { vconcat: unknown }>["vconcat"][number];

/** A day's label on the x axis: its weekday and month-day ("Mon 11-16", drawn on two lines by DAY_AXIS). */
function dayLabel(date: string, index: number): string {
  return `${WEEKDAYS[index] ?? ""} ${date.slice(5)}`;
}

/** The days' axis: each label on two lines (weekday, then month-day), as a week's seven do not fit on one. */
const DAY_AXIS = { labelAngle: 0, labelExpr: "split(datum.label, ' ')", labelLineHeight: 13 };

/** One line of untrusted text, bounded: no control characters (the SVG escapes the rest). */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A panel that says why it has nothing to draw, the size of the others. */
function notice(title: string, text: string): Panel {
  return {
    title,
    width: PANEL_WIDTH,
    height: PANEL_HEIGHT,
    data: { values: [{ text }] },
    mark: { type: "text", fontSize: 14, color: "#666" },
    encoding: { text: { field: "text", type: "nominal" } },
  };
}

function outcomesPanel(report: WeeklyReport): Panel {
  const order = Object.keys(OUTCOME_COLORS) as (keyof typeof OUTCOME_COLORS)[];
  const values = report.daily.flatMap((day, i) => order.map((outcome, rank) => ({ day: dayLabel(day.date, i), outcome, rank, units: day[outcome] })));
  const busiest = Math.max(0, ...report.daily.map((d) => d.published + d.rejected + d.failed));
  return {
    title: "Outcomes per day",
    width: PANEL_WIDTH,
    height: PANEL_HEIGHT,
    data: { values },
    mark: "bar",
    encoding: {
      x: { field: "day", type: "ordinal", sort: null, title: null, axis: DAY_AXIS },
      // An empty week still draws its axis from 0 to 1, not a lone 0 in the middle.
      y: {
        field: "units",
        type: "quantitative",
        stack: "zero",
        title: "units",
        scale: { domainMax: busiest > 0 ? undefined : 1 },
        axis: { tickMinStep: 1, format: "d" },
      },
      color: {
        field: "outcome",
        type: "nominal",
        title: null,
        scale: { domain: order, range: order.map((o) => OUTCOME_COLORS[o]) },
        legend: { orient: "top" },
      },
      order: { field: "rank", type: "quantitative" },
    },
  };
}

function viewsPanel(report: WeeklyReport): Panel {
  const title = "Views and engaged views per video";
  const videos = report.videos.each;
  if (videos.length === 0) return notice(title, "no analytics this week");
  const values = videos.flatMap((v, i) => {
    const video = `${i + 1}. ${v.platform}: ${oneLine(v.title, LABEL_CHARS)}`;
    const rows = [{ video, measure: "views", value: v.views }];
    if (v.engaged_views !== null) rows.push({ video, measure: "engaged views", value: v.engaged_views });
    return rows;
  });
  const measures = Object.keys(VIEW_COLORS) as (keyof typeof VIEW_COLORS)[];
  return {
    title,
    width: PANEL_WIDTH,
    height: PANEL_HEIGHT,
    data: { values },
    mark: "bar",
    encoding: {
      y: { field: "video", type: "nominal", sort: null, title: null, axis: { labelLimit: 400, labelFontSize: videos.length > 12 ? 9 : 11 } },
      yOffset: { field: "measure", type: "nominal", sort: measures },
      x: { field: "value", type: "quantitative", title: "views" },
      color: {
        field: "measure",
        type: "nominal",
        title: null,
        scale: { domain: measures, range: measures.map((m) => VIEW_COLORS[m]) },
        legend: { orient: "top" },
      },
    },
  };
}

function retentionPanel(report: WeeklyReport): Panel {
  const title = "Retention: the week's best and worst video";
  const { best_retention, worst_retention, retention_curves } = report.videos;
  const curves = [
    { role: "best", video: best_retention, points: retention_curves.best },
    { role: "worst", video: worst_retention, points: retention_curves.worst },
  ].filter((c) => c.video !== null && c.points !== null && c.points.length > 0);
  // One video is both best and worst when it is the week's only one with retention: one curve.
  if (curves.length === 2 && curves[0]!.video!.publication_id === curves[1]!.video!.publication_id) curves.pop();
  if (curves.length === 0) return notice(title, "no retention curve this week");
  const series = curves.map((c) => `${c.role}: ${oneLine(c.video!.title, LABEL_CHARS)}`);
  const values = curves.flatMap((c, i) => c.points!.map((p) => ({ curve: series[i], elapsed: p.ratio, watching: p.watch_ratio })));
  return {
    title,
    width: PANEL_WIDTH,
    height: PANEL_HEIGHT,
    data: { values },
    mark: { type: "line", strokeWidth: 2 },
    encoding: {
      x: { field: "elapsed", type: "quantitative", title: "share of the video", axis: { format: "%" }, scale: { domain: [0, 1] } },
      y: { field: "watching", type: "quantitative", title: "audience watching", axis: { format: "%" } },
      color: {
        field: "curve",
        type: "nominal",
        title: null,
        scale: { domain: series, range: CURVE_COLORS.slice(0, series.length) },
        legend: { orient: "top", direction: "vertical", labelLimit: 400 },
      },
    },
  };
}

/** The week's spend per day (report.spend.daily); a report stored before spend was recorded has none. */
function spendPanel(report: WeeklyReport): Panel {
  const title = "Spend per day (USD)";
  const spend: DailySpend[] = report.spend?.daily ?? [];
  if (spend.every((s) => s.usd === 0)) return notice(title, "no spend recorded");
  const byDate = new Map(spend.map((s) => [s.date, s.usd]));
  const values = report.daily.map((day, i) => ({ day: dayLabel(day.date, i), usd: byDate.get(day.date) ?? 0 }));
  return {
    title,
    width: PANEL_WIDTH,
    height: PANEL_HEIGHT,
    data: { values },
    mark: { type: "bar", color: SPEND_COLOR },
    encoding: {
      x: { field: "day", type: "ordinal", sort: null, title: null, axis: DAY_AXIS },
      y: { field: "usd", type: "quantitative", title: "USD", axis: { format: "$.2f" } },
    },
  };
}

/** The Vega-Lite specification of the weekly charts: a pure function of the report. */
export function weeklyChartSpec(report: WeeklyReport): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: `${oneLine(report.display_name, 60)} (${report.dimension_id})`,
      subtitle: `week ${report.week_start} to ${report.week_end} (${report.time_zone})`,
      anchor: "start",
      fontSize: 18,
    },
    background: "white",
    padding: 16,
    config: {
      font: CHART_FONT,
      view: { stroke: "#ddd" },
      title: { fontSize: 14 },
      axis: { labelFontSize: 11, titleFontSize: 12 },
      legend: { labelFontSize: 11 },
    },
    vconcat: [
      { hconcat: [outcomesPanel(report), viewsPanel(report)], resolve: { scale: { color: "independent" } } },
      { hconcat: [retentionPanel(report), spendPanel(report)], resolve: { scale: { color: "independent" } } },
    ],
    resolve: { scale: { color: "independent" } },
  };
}

/** The weekly charts as one SVG document (vega's headless renderer: no canvas, no DOM). */
export async function renderWeeklyChartSvg(report: WeeklyReport): Promise<string> {
  const view = new View(parse(compile(weeklyChartSpec(report)).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
