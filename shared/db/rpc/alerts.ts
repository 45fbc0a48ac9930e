/** The alerts outbox (docs/reference/alerts.md): raise, claim, record the outcome, list. */
import { z } from "zod";
import { AlertRow, ClaimedAlert, EdgeAlertKind } from "../../contracts/alerts.ts";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow } from "./query.ts";

interface RaisedAlert {
  kind: EdgeAlertKind;
  dimensionId: string | null;
  dedupeKey: string;
  summary: string;
  details?: Record<string, unknown>;
  photoKey?: string | null;
}

/** Raises an alert in the caller's transaction; the same dedupe key within the window counts one more occurrence. Returns its id. */
export async function raiseAlert(sql: Queryable, alert: RaisedAlert): Promise<string> {
  const row = await oneRow(
    "raise_alert",
    z.object({ id: z.string().uuid() }).strict(),
    sql`
    select mdame.raise_alert(${alert.kind}, ${alert.dimensionId}, ${alert.dedupeKey}, ${alert.summary},
                             ${sql.json((alert.details ?? {}) as never)}::jsonb, ${alert.photoKey ?? null}) as id`,
  );
  return row.id;
}

/** Claims up to `limit` due alerts for `leaseS` seconds, oldest due first. */
export function claimAlerts(sql: Queryable, limit: number, leaseS: number): Promise<ClaimedAlert[]> {
  return manyRows("claim_alerts", ClaimedAlert, sql`select * from mdame.claim_alerts(${limit}::integer, ${leaseS}::integer)`);
}

/** Records a claimed alert as sent to `chatId` as the messages `messageIds`. */
export function recordAlertSent(sql: Queryable, claim: { id: string; claimToken: string }, chatId: string, messageIds: number[]): Promise<AlertRow> {
  return oneRow(
    "record_alert_sent",
    AlertRow,
    sql`
    select * from mdame.record_alert_sent(${claim.id}::uuid, ${claim.claimToken}::uuid, ${chatId}, ${messageIds}::bigint[])`,
  );
}

/** Records a failed attempt: permanent marks the alert failed; otherwise it is due again after `retryAfterS` or the backoff. */
export function recordAlertAttempt(
  sql: Queryable,
  claim: { id: string; claimToken: string },
  attempt: { error: string; permanent: boolean; retryAfterS?: number },
): Promise<AlertRow> {
  return oneRow(
    "record_alert_attempt",
    AlertRow,
    sql`
    select * from mdame.record_alert_attempt(${claim.id}::uuid, ${claim.claimToken}::uuid, ${attempt.error}, ${attempt.permanent},
                                             ${attempt.retryAfterS ?? null}::integer)`,
  );
}

/** The most recent alerts, newest raised first. */
export function listAlerts(sql: Queryable, limit: number): Promise<AlertRow[]> {
  return manyRows("list_alerts", AlertRow, sql`select * from mdame.list_alerts(${limit}::integer)`);
}

const Moment = z.union([z.string(), z.date()]).transform((v) => new Date(v));

/** What the watchdog knows (mdame.watchdog_status): the tick's liveness, the checks failing, whether it can page. */
export const WatchdogStatus = z.object({
  now: Moment,
  tick_ok_at: Moment.nullable(),
  tick_pending_since: Moment.nullable(),
  failing: z.array(z.object({ check: z.string(), since: Moment, detail: z.string().nullable() }).strict()),
  missing_secrets: z.array(z.string()),
  heartbeat_url: z.boolean(),
  job_active: z.boolean().nullable(),
}).strict();
export type WatchdogStatus = z.infer<typeof WatchdogStatus>;

export async function watchdogStatus(sql: Queryable): Promise<WatchdogStatus> {
  const row = await oneRow("watchdog_status", z.object({ status: WatchdogStatus }).strict(), sql`select mdame.watchdog_status() as status`);
  return row.status;
}
