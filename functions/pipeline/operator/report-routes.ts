import { HTTPException } from "hono/http-exception";
import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { mondayOf, type RenderedWeeklyReport } from "../../../shared/contracts/weekly-report.ts";
import { getDimensions } from "../../../shared/db/rpc/dimensions.ts";
import { weeklyReport } from "../../../shared/db/rpc/weekly-reports.ts";
import { renderWeeklyMarkdown } from "../../../shared/reports/weekly-markdown.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

/**
 * The weekly report route of the operator API (`mdame report`), behind the service-role bearer:
 *
 * - `GET /reports/weekly?week=YYYY-MM-DD[&dimension=<id>]`  the week holding that date, for every
 *   active dimension or the one named (404 when unknown): figures and Markdown. The charts are drawn
 *   from the figures where they are shown (the CLI, the dashboard, the render-runner for the alert):
 *   rasterising them passes the Edge's memory (docs/reports/benchmarks.md).
 *   A date that is not a calendar date is a 400 naming the `week` parameter.
 *
 * The figures are read live (mdame.weekly_report), so a report asked for after the Sunday run
 * includes what happened since.
 */
export function reportHandlers(deps: OperatorDeps): Handlers<"weeklyReports"> {
  return {
    weeklyReports: async (c) => {
      const query = c.req.valid("query");
      const dimensions = (await getDimensions(deps.sql, query.dimension ?? null)).filter((d) => query.dimension !== undefined || d.active);
      if (query.dimension !== undefined && dimensions.length === 0) throw new HTTPException(404, { message: `no dimension ${query.dimension}` });
      const reports: RenderedWeeklyReport[] = [];
      for (const dimension of dimensions) {
        const report = await weeklyReport(deps.sql, dimension.id, query.week);
        reports.push({ report, markdown: renderWeeklyMarkdown(report) });
      }
      return reply(c, routes.weeklyReports, 200, { week_start: mondayOf(query.week), reports });
    },
  };
}
