/**
 * The weekly reports' builder, run by the pipeline's tick: each pending report that is due is
 * claimed, its figures read (mdame.weekly_report), rendered as Markdown and charts (SVG drawn by
 * vega, rasterised as PNG by resvg: shared/reports/weekly-charts.ts, chart-png.ts), the PNG stored
 * through the asset store, and the report marked ready with its alert raised in one transaction
 * (mdame.complete_weekly_report). A failure is recorded for a later tick (mdame.fail_weekly_report:
 * backoff, five attempts); the row's unique week keeps it to one report however often it runs.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { WeeklyReport } from "../../../shared/contracts/weekly-report.ts";
import { coerceError } from "../../../shared/errors.ts";
import { claimWeeklyReports, completeWeeklyReport, failWeeklyReport, weeklyReport, type WeeklyReportRow } from "../../../shared/db/rpc/weekly-reports.ts";
import { sha256Hex } from "../../../shared/hashing.ts";
import { chartPng } from "../../../shared/reports/chart-png.ts";
import { renderWeeklyChartSvg } from "../../../shared/reports/weekly-charts.ts";
import { renderWeeklyMarkdown } from "../../../shared/reports/weekly-markdown.ts";
import { makeScratchDir } from "../../../shared/storage/scratch-dirs.ts";
import type { PipelineDeps } from "../deps.ts";

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

async function storeChart(deps: Pick<PipelineDeps, "store">, report: WeeklyReport, png: Uint8Array<ArrayBuffer>): Promise<string> {
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

async function buildOne(deps: Pick<PipelineDeps, "sql" | "store" | "logger">, row: WeeklyReportRow, holder: string): Promise<boolean> {
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

/** The request's CPU so far and the share of it the reports may take before the next is claimed. */
export interface ReportCpuBudget {
  usedMs: () => number;
  budgetMs: number;
}

/**
 * Builds the weekly reports that are due, claimed one at a time: at most `limit`, and none once the
 * request's CPU passes `cpu.budgetMs` (drawing a report's charts costs a few hundred ms of CPU, most
 * of a second in a cold worker: docs/reports/benchmarks.md). Never throws for one report's failure.
 */
export async function buildPendingWeeklyReports(
  deps: Pick<PipelineDeps, "sql" | "store" | "logger">,
  cpu: ReportCpuBudget | null = null,
  limit = 5,
): Promise<WeeklyReportsBuilt> {
  const holder = `pipeline-${crypto.randomUUID()}`;
  let built = 0;
  let failed = 0;
  while (built + failed < limit && (cpu === null || cpu.usedMs() < cpu.budgetMs)) {
    const [row] = await claimWeeklyReports(deps.sql, holder, 1, LEASE_S);
    if (row === undefined) break;
    if (await buildOne(deps, row, holder)) built += 1;
    else failed += 1;
  }
  return { built, failed };
}
