/**
 * The weekly reports' builder, run by the render-runner (render-runner/weekly-reports.ts): each
 * pending report that is due is claimed, its figures read (mdame.weekly_report), rendered as
 * Markdown and charts (SVG drawn by vega, rasterised as PNG by resvg: weekly-charts.ts,
 * chart-png.ts), the PNG stored through the asset store, and the report marked ready with its alert
 * raised in one transaction (mdame.complete_weekly_report). A failure is recorded for a later pass
 * (mdame.fail_weekly_report: backoff, five attempts); the row's unique week keeps it to one report
 * however often it runs. Not on the Edge: drawing a report's charts passes the Edge's 256 MB
 * (docs/reports/benchmarks.md).
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { WeeklyReport } from "../contracts/weekly-report.ts";
import type { Sql } from "../db/client.ts";
import { claimWeeklyReports, completeWeeklyReport, failWeeklyReport, weeklyReport, type WeeklyReportRow } from "../db/rpc/weekly-reports.ts";
import { coerceError } from "../errors.ts";
import { sha256Hex } from "../hashing.ts";
import type { Logger } from "../logging/logger.ts";
import type { AssetStore } from "../storage/asset-store.ts";
import { makeScratchDir } from "../storage/scratch-dirs.ts";
import { chartPng } from "./chart-png.ts";
import { renderWeeklyChartSvg } from "./weekly-charts.ts";
import { renderWeeklyMarkdown } from "./weekly-markdown.ts";

/** What the builder uses: the database, the asset store, a logger. */
export interface WeeklyReportDeps {
  sql: Sql;
  store: AssetStore;
  logger: Logger;
}

/** The alert's text is the Markdown; the outbox keeps at most this much of it. */
const MAX_ALERT_TEXT = 20_000;
const LEASE_S = 300;

interface WeeklyReportsBuilt {
  built: number;
  failed: number;
}

/** Where a report's chart is stored: content-addressed, so a retry stores the same key. */
export async function chartKey(dimensionId: string, weekStart: string, png: Uint8Array<ArrayBuffer>): Promise<string> {
  return `reports/weekly/${dimensionId}/${weekStart}-${(await sha256Hex(png)).slice(0, 16)}.png`;
}

/** The Markdown as the alert's text, bounded to what the outbox takes. */
function alertText(markdown: string): string {
  if (markdown.length <= MAX_ALERT_TEXT) return markdown;
  return `${markdown.slice(0, MAX_ALERT_TEXT - 40)}\n\n(report shortened; see mdame report)\n`;
}

async function storeChart(deps: Pick<WeeklyReportDeps, "store">, report: WeeklyReport, png: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await chartKey(report.dimension_id, report.week_start, png);
  const dir = await makeScratchDir("report");
  try {
    const path = join(dir, "chart.png");
    await writeFile(path, png);
    await deps.store.putFile(key, path, "image/png");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return key;
}

async function buildOne(deps: WeeklyReportDeps, row: WeeklyReportRow, holder: string): Promise<boolean> {
  const log = deps.logger.child({ dimension_id: row.dimension_id, stage: "report", week_start: row.week_start, report_id: row.id });
  try {
    const report = await weeklyReport(deps.sql, row.dimension_id, row.week_start);
    const markdown = renderWeeklyMarkdown(report);
    const png = await chartPng(await renderWeeklyChartSvg(report));
    const key = await storeChart(deps, report, png);
    const done = await completeWeeklyReport(deps.sql, { id: row.id, holder }, {
      report,
      markdown: alertText(markdown),
      chartKey: key,
      details: { week_end: report.week_end, published: report.outcomes.published, rejected: report.outcomes.rejected, failed: report.outcomes.failed },
    });
    log.info({ status: done.status, chart_key: key, attempt: row.attempts }, "weekly report built");
    return done.status === "ready";
  } catch (thrown) {
    const error = coerceError(thrown);
    const failed = await failWeeklyReport(deps.sql, { id: row.id, holder }, error.message).catch((recordError) => {
      log.error({ status: "failed", err: coerceError(recordError) }, "weekly report failure could not be recorded; the lease will run out");
      return null;
    });
    log.warn({ status: failed?.status ?? "pending", attempt: row.attempts, err: error }, "weekly report not built");
    return false;
  }
}

/** Builds the weekly reports that are due, claimed one at a time, at most `limit`; never throws for one report's failure. */
export async function buildPendingWeeklyReports(deps: WeeklyReportDeps, limit = 5): Promise<WeeklyReportsBuilt> {
  const holder = `report-${crypto.randomUUID()}`;
  let built = 0;
  let failed = 0;
  while (built + failed < limit) {
    const [row] = await claimWeeklyReports(deps.sql, holder, 1, LEASE_S);
    if (row === undefined) break;
    if (await buildOne(deps, row, holder)) built += 1;
    else failed += 1;
  }
  return { built, failed };
}
