import { HTTPException } from "hono/http-exception";
import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { mondayOf, type RenderedWeeklyReport } from "../../../shared/contracts/weekly-report.ts";
import { getDimensions } from "../../../shared/db/rpc/dimensions.ts";
import { weeklyReport } from "../../../shared/db/rpc/weekly-reports.ts";
import { chartPng } from "../../../shared/reports/chart-png.ts";
import { renderWeeklyChartSvg } from "../../../shared/reports/weekly-charts.ts";
import { renderWeeklyMarkdown } from "../../../shared/reports/weekly-markdown.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

function base64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/**
 * The weekly report route of the operator API (`mdame report`), behind the service-role bearer:
 *
 * - `GET /reports/weekly?week=YYYY-MM-DD[&dimension=<id>][&chart=svg|png]`  the week holding that
 *   date, for every active dimension or the one named (404 when unknown): figures, Markdown and, when
 *   asked, the charts (svg: the SVG; png: the SVG and its PNG in base64). Drawing costs Edge CPU
 *   (docs/reports/benchmarks.md), so charts are drawn only when asked for and for one dimension a
 *   request: `chart` without `dimension` is a 400.
 *   A date that is not a calendar date is a 400 naming the `week` parameter.
 *
 * The figures are read live (mdame.weekly_report), so a report asked for after the Sunday run
 * includes what happened since.
 */
export function reportHandlers(deps: OperatorDeps): Handlers<"weeklyReports"> {
  return {
    weeklyReports: async (c) => {
      const query = c.req.valid("query");
      if (query.chart !== undefined && query.dimension === undefined) {
        throw new HTTPException(400, { message: "chart needs dimension: charts are drawn for one dimension per request (a few hundred ms of CPU each)" });
      }
      const dimensions = (await getDimensions(deps.sql, query.dimension ?? null)).filter((d) => query.dimension !== undefined || d.active);
      if (query.dimension !== undefined && dimensions.length === 0) throw new HTTPException(404, { message: `no dimension ${query.dimension}` });
      const reports: RenderedWeeklyReport[] = [];
      for (const dimension of dimensions) {
        const report = await weeklyReport(deps.sql, dimension.id, query.week);
        const svg = query.chart === undefined ? null : await renderWeeklyChartSvg(report);
        const png = svg !== null && query.chart === "png" ? base64(await chartPng(svg)) : null;
        reports.push({ report, markdown: renderWeeklyMarkdown(report), chart_svg: svg, chart_png_base64: png });
      }
      return reply(c, routes.weeklyReports, 200, { week_start: mondayOf(query.week), reports });
    },
  };
}
