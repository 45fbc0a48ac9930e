/**
 * `mdame report --week <date> [--dimension <id>] [--chart FILE] [--json]`: the weekly report of the
 * week holding the date (Monday to Sunday in each dimension's time zone), for every active dimension
 * or one, as Markdown; `--chart` writes the charts as PNG (SVG for a .svg file) (one file per dimension when there are
 * several: FILE's name with `-<dimension>` before its extension).
 */
import { markdownForTerminal } from "../../shared/reports/weekly-markdown.ts";
import { writeFile } from "node:fs/promises";
import { ReportDate, type WeeklyReportList } from "../../shared/contracts/weekly-report.ts";
import { renderWeeklyChartSvg } from "../../shared/reports/weekly-charts.ts";
import { chartPng } from "../../shared/reports/chart-png.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, JSON_FLAG } from "../command-spec.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { type CommandContext, printJson, println } from "../output.ts";
import { DIMENSION_ID } from "../../shared/contracts/dimension-id.ts";

export type ReportCommand = { name: "report"; week: string; dimension: string | null; chart: string | null; json: boolean };

export const REPORT_SPECS: CommandSpec[] = [
  {
    words: ["report"],
    positionals: [],
    flags: [
      { name: "week", kind: "string", value: "<YYYY-MM-DD>", description: "any date of the week to report (Monday to Sunday)" },
      { name: "dimension", kind: "string", value: "<id>", description: "only this dimension (default: every active one)" },
      {
        name: "chart",
        kind: "string",
        value: "<file.png|file.svg>",
        description: "write the charts (outcomes, views, retention, spend) as PNG, or SVG for a .svg file",
      },
      JSON_FLAG,
    ],
    summary: "print the weekly report (outcomes, stage latency, cache hits, quota, best and worst videos) as Markdown",
    details: "The figures are read when asked, so a past week's report includes what was recorded since. See docs/reference/weekly-report.md.",
  },
];

/** Parses the flags of `report` (args.ts has checked their kinds). */
export function parseReport(flags: Map<string, string | number | boolean>): ReportCommand {
  const week = flags.get("week");
  if (typeof week !== "string") throw new UsageError("report needs --week <YYYY-MM-DD> (any date of the week)", "report");
  if (!ReportDate.safeParse(week).success) throw new UsageError(`--week takes a date YYYY-MM-DD, not ${JSON.stringify(week)}`, "report");
  const dimension = flags.get("dimension");
  if (typeof dimension === "string" && !DIMENSION_ID.test(dimension)) {
    throw new UsageError(`not a dimension id (lower-case letters, digits, '-' or '_'): ${JSON.stringify(dimension)}`, "report");
  }
  const chart = flags.get("chart");
  return {
    name: "report",
    week,
    dimension: typeof dimension === "string" ? dimension : null,
    chart: typeof chart === "string" ? chart : null,
    json: flags.get("json") === true,
  };
}

/** Where a dimension's chart goes: FILE itself for one report, FILE-<dimension>.ext for several. */
export function chartPath(file: string, dimensionId: string, several: boolean): string {
  if (!several) return file;
  const dot = file.lastIndexOf(".");
  const slash = file.lastIndexOf("/");
  return dot > slash + 1 ? `${file.slice(0, dot)}-${dimensionId}${file.slice(dot)}` : `${file}-${dimensionId}`;
}

export async function reportCommand(command: ReportCommand, api: ApiClient, ctx: CommandContext): Promise<number> {
  const list: WeeklyReportList = await api.weeklyReports(command.week, command.dimension);
  if (command.chart !== null) {
    const several = list.reports.length > 1;
    const svg = command.chart.toLowerCase().endsWith(".svg");
    for (const { report } of list.reports) {
      const path = chartPath(command.chart, report.dimension_id, several);
      // Drawn here from the figures, as the render-runner draws the alert's (the Edge cannot hold resvg).
      const drawn = await renderWeeklyChartSvg(report);
      try {
        await writeFile(path, svg ? drawn : await chartPng(drawn));
      } catch (error) {
        throw new CliError(`cannot write the chart to ${path}: ${error instanceof Error ? error.message : String(error)}`, EXIT.failure);
      }
      if (!command.json) ctx.err.write(`chart of ${report.dimension_id} written to ${path}\n`);
    }
  }
  if (command.json) {
    printJson(ctx.out, { week_start: list.week_start, reports: list.reports.map((r) => ({ report: r.report, markdown: r.markdown })) });
    return EXIT.ok;
  }
  if (list.reports.length === 0) println(ctx.out, `no active dimension to report for the week of ${list.week_start}`);
  // Markdown to a file or a pipe; to a terminal, without the escapes that keep outside text inert in Markdown.
  const shown = (markdown: string) => (ctx.out.isTTY ? markdownForTerminal(markdown) : markdown).trimEnd();
  println(ctx.out, list.reports.map((r) => shown(r.markdown)).join("\n\n---\n\n"));
  return EXIT.ok;
}
