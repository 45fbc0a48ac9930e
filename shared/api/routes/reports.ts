/**
 * Alerts, a run's analytics and the weekly reports (functions/pipeline/operator/alert-routes.ts,
 * analytics-routes.ts and report-routes.ts serve them).
 */
import { ListQuery } from "../../contracts/operator.ts";
import { WeeklyReportQuery } from "../../contracts/weekly-report.ts";
import { bodies } from "../components.ts";
import { errorExamples, examples } from "../examples.ts";
import { errors, ok, routesOf, serviceErrors } from "../kit.ts";
import { noRun, runParams } from "./runs.ts";

export const AlertsQuery = ListQuery(30);

const alerts = routesOf("alerts");
const runs = routesOf("runs");
const reports = routesOf("reports");

export const reportRoutes = {
  listAlerts: alerts({
    method: "get",
    path: "/pipeline/alerts",
    operationId: "listAlerts",
    summary: "Recent alerts, newest first, with their delivery, and whether this environment delivers them",
    request: { query: AlertsQuery },
    responses: { 200: ok("The alerts", bodies.AlertList, "one alert sent", examples.alerts), ...serviceErrors },
  }),
  getRunAnalytics: runs({
    method: "get",
    path: "/pipeline/runs/{id}/analytics",
    operationId: "getRunAnalytics",
    summary: "The YouTube Analytics fetched for a run's published videos (empty before any fetch)",
    request: { params: runParams },
    responses: {
      200: ok("The figures, per video and window", bodies.RunAnalyticsList, "day-3 figures of one video", examples.analytics),
      ...serviceErrors,
      404: noRun,
    },
  }),
  weeklyReports: reports({
    method: "get",
    path: "/pipeline/reports/weekly",
    operationId: "weeklyReports",
    summary:
      "The weekly report of the week holding `week`, for every active dimension or the one named: figures and Markdown (charts are drawn from the figures where they are shown)",
    request: { query: WeeklyReportQuery },
    responses: {
      200: ok("The reports", bodies.WeeklyReportList, "a week with no active dimension", examples.weeklyReports),
      ...serviceErrors,
      404: errors.notFound("dimension", errorExamples.dimensionNotFound),
    },
  }),
};
