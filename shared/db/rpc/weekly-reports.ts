/**
 * The weekly reports' RPCs: the report's figures (mdame.weekly_report), the queue of reports to
 * build (queue, claim, complete, fail), and the cache lookups their hit rates count.
 */
import { z } from "zod";
import { WeeklyReport } from "../../contracts/weekly-report.ts";
import type { Queryable } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

export const WeeklyReportRow = z.object({
  id: z.string().uuid(),
  dimension_id: z.string(),
  week_start: z.string(),
  status: z.enum(["pending", "ready", "failed"]),
  attempts: z.number().int().nonnegative(),
  lease_holder: z.string().nullable(),
  next_attempt_at: z.date(),
  last_error: z.string().nullable(),
  report: z.unknown().nullable(),
  markdown: z.string().nullable(),
  chart_key: z.string().nullable(),
  alert_id: z.string().uuid().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  ready_at: z.date().nullable(),
}).strict();
export type WeeklyReportRow = z.infer<typeof WeeklyReportRow>;

// week_start is read as text: a date has no time zone, and a JS Date would give it one.
const columns = (sql: Queryable) =>
  sql`id, dimension_id, week_start::text as week_start, status, attempts, lease_holder, next_attempt_at,
  last_error, report, markdown, chart_key, alert_id, created_at, updated_at, ready_at`;

/** The figures of a dimension's week (any date of it); NotFoundError (MDN01) for an unknown dimension. */
export async function weeklyReport(sql: Queryable, dimensionId: string, weekDate: string): Promise<WeeklyReport> {
  const row = await oneRow(
    "weekly_report",
    z.object({ report: WeeklyReport }).strict(),
    sql`select mdame.weekly_report(${dimensionId}, ${weekDate}::date) as report`,
  );
  return row.report;
}

/** Takes the pending reports that are due, for `leaseS` seconds each. */
export function claimWeeklyReports(sql: Queryable, holder: string, limit: number, leaseS: number): Promise<WeeklyReportRow[]> {
  return manyRows("claim_weekly_reports", WeeklyReportRow, sql`select ${columns(sql)} from mdame.claim_weekly_reports(${holder}, ${limit}, ${leaseS})`);
}

/** Marks a claimed report ready and raises its alert, in one transaction. */
export function completeWeeklyReport(
  sql: Queryable,
  claim: { id: string; holder: string },
  done: { report: WeeklyReport; markdown: string; chartKey: string; details: Record<string, unknown> },
): Promise<WeeklyReportRow> {
  return oneRow(
    "complete_weekly_report",
    WeeklyReportRow,
    sql`select ${columns(sql)} from mdame.complete_weekly_report(${claim.id}::uuid, ${claim.holder}, ${sql.json(done.report as never)}::jsonb,
        ${done.markdown}, ${done.chartKey}, ${sql.json(done.details as never)}::jsonb)`,
  );
}

/** Records a failed attempt: retried after a backoff, failed for good after the fifth. */
export function failWeeklyReport(sql: Queryable, claim: { id: string; holder: string }, error: string): Promise<WeeklyReportRow> {
  return oneRow("fail_weekly_report", WeeklyReportRow, sql`select ${columns(sql)} from mdame.fail_weekly_report(${claim.id}::uuid, ${claim.holder}, ${error})`);
}

/** Records one lookup of the LLM answer cache or the stored voice tracks, hit or miss. */
export async function recordCacheLookup(
  sql: Queryable,
  lookup: { cache: "llm" | "tts"; dimensionId: string; hit: boolean; runId?: string | null; unitId?: string | null; stage?: string | null },
): Promise<void> {
  await maybeRow(
    "record_cache_lookup",
    z.object({ recorded: z.unknown() }).strict(),
    sql`select mdame.record_cache_lookup(${lookup.cache}, ${lookup.dimensionId}, ${lookup.hit}, ${lookup.runId ?? null}::uuid,
        ${lookup.unitId ?? null}::uuid, ${lookup.stage ?? null}) as recorded`,
  );
}
