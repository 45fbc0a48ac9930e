/**
 * The ops dashboard's RPCs (supabase/schemas/mdame/functions/ops_*.sql, run_engine_job.sql). Each
 * returns one JSON document shaped like its answer in shared/contracts/ops.ts, less what the route
 * adds (signed URLs, next cron times, missing scopes); Postgres's timestamps in it become ISO 8601
 * (`2026-12-02T07:54:00.109Z`) before the document is parsed.
 */
import { z } from "zod";
import {
  OpsAccountHealth,
  OpsOverview,
  OpsQueues,
  OpsQuota,
  OpsRender,
  OpsSchedule,
  OpsScheduleRunNow,
  OpsVideo,
  OpsVideoDetail,
} from "../../contracts/ops.ts";
import type { Queryable } from "../client.ts";
import { maybeRow, oneRow, RowContractError } from "./query.ts";

/** What to_jsonb makes of a timestamptz: `2026-12-02T07:54:00.109745+00:00`. */
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}(:\d{2})?$/;

/** Every timestamptz text in a JSON document, as ISO 8601 UTC; everything else unchanged. */
export function isoTimestamps(value: unknown): unknown {
  if (typeof value === "string") return PG_TIMESTAMP.test(value) ? new Date(value).toISOString() : value;
  if (Array.isArray(value)) return value.map(isoTimestamps);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, isoTimestamps(inner)]));
  }
  return value;
}

const Document = z.object({ document: z.unknown() }).strict();

function parseDocument<S extends z.ZodType>(rpc: string, schema: S, document: unknown): z.infer<S> {
  const parsed = schema.safeParse(isoTimestamps(document));
  if (!parsed.success) throw new RowContractError(rpc, parsed.error.issues);
  return parsed.data;
}

async function jsonDocument<S extends z.ZodType>(rpc: string, schema: S, query: PromiseLike<readonly unknown[]>): Promise<z.infer<S>> {
  const row = await oneRow(rpc, Document, query);
  return parseDocument(rpc, schema, row.document);
}

/** Today's runs and funnels, counts by state, and the latest `failures` failures. */
export function opsOverview(sql: Queryable, failures: number): Promise<OpsOverview> {
  return jsonDocument("ops_overview", OpsOverview, sql`select mdame.ops_overview(${failures}::integer) as document`);
}

/** Queue metrics, leases held and stale, and the workers' last leases. */
export function opsQueues(sql: Queryable): Promise<OpsQueues> {
  return jsonDocument("ops_queues", OpsQueues, sql`select mdame.ops_queues() as document`);
}

/** The most recent publications, newest first. */
export function opsVideos(sql: Queryable, limit: number): Promise<OpsVideo[]> {
  return jsonDocument("ops_videos", z.array(OpsVideo), sql`select mdame.ops_videos(${limit}::integer) as document`);
}

/** One publication's detail without its signed URL; null when there is no such publication. */
const OpsVideoRow = OpsVideoDetail.extend({ render: OpsRender.omit({ signed_url: true, expires_at: true }).strict() }).strict();
type OpsVideoRow = z.infer<typeof OpsVideoRow>;

export async function opsVideo(sql: Queryable, publicationId: string): Promise<OpsVideoRow | null> {
  const row = await maybeRow("ops_video", Document, sql`select mdame.ops_video(${publicationId}::uuid) as document`);
  if (row === null || row.document === null) return null;
  return parseDocument("ops_video", OpsVideoRow, row.document);
}

/** Quota buckets and account health, the accounts without their missing scopes. */
const OpsQuotaRow = OpsQuota.extend({ accounts: z.array(OpsAccountHealth.omit({ missing_scopes: true }).strict()) }).strict();
type OpsQuotaRow = z.infer<typeof OpsQuotaRow>;

export function opsQuota(sql: Queryable): Promise<OpsQuotaRow> {
  return jsonDocument("ops_quota", OpsQuotaRow, sql`select mdame.ops_quota() as document`);
}

/** The engine's pg_cron jobs without their next run time. */
const OpsSchedulesRow = z.object({
  cron_available: z.boolean(),
  run_details_readable: z.boolean(),
  schedules: z.array(OpsSchedule.omit({ next_run_at: true }).strict()),
}).strict();
type OpsSchedulesRow = z.infer<typeof OpsSchedulesRow>;

export function opsSchedules(sql: Queryable): Promise<OpsSchedulesRow> {
  return jsonDocument("ops_schedules", OpsSchedulesRow, sql`select mdame.ops_schedules() as document`);
}

/** Runs an engine schedule's function now; NotFoundError (MDN01) for a name outside the whitelist. */
export function runEngineJob(sql: Queryable, name: string): Promise<OpsScheduleRunNow> {
  return jsonDocument("run_engine_job", OpsScheduleRunNow, sql`select mdame.run_engine_job(${name}) as document`);
}
