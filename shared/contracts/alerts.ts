/** The operator's alerts (docs/reference/alerts.md): the outbox rows, what the notifier claims, the CLI's list. */
import { z } from "zod";
import { DimensionId } from "./dimension-id.ts";

/** The kinds the tick's notifier delivers (mdame.claim_alerts hands out no other). */
const EDGE_ALERT_KINDS = [
  "run_failed",
  "dead_letter",
  "needs_reconnect",
  "quota_deferral_stale",
  "quality_gate_failed",
  "component_restarting",
  "weekly_report",
  "upload_locked",
  "quota_bucket_high",
  "spend_budget",
  "review_waiting",
] as const;
/** The watchdog's kinds, which the database delivers itself (mdame.deliver_database_alerts). */
const WATCHDOG_ALERT_KINDS = ["engine_stopped", "engine_recovered", "workers_absent"] as const;
export const AlertKind = z.enum([...EDGE_ALERT_KINDS, ...WATCHDOG_ALERT_KINDS]);
export type AlertKind = z.infer<typeof AlertKind>;
export const EdgeAlertKind = z.enum(EDGE_ALERT_KINDS);
export type EdgeAlertKind = z.infer<typeof EdgeAlertKind>;

const AlertStatus = z.enum(["pending", "sent", "failed"]);

/** A chat id: a number (groups and channels negative) or a public `@channelname`. */
const AlertChatId = z.string().regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/, "must be a Telegram chat id (a number) or @channelname");

/** A dimension's alert settings: its own Telegram chat instead of the environment's TELEGRAM_CHAT_ID. */
export const DimensionAlerts = z.object({
  telegram_chat_id: AlertChatId.optional().describe(
    "Telegram chat of this dimension's alerts: a chat id (a number) or @channelname; left out: TELEGRAM_CHAT_ID.",
  ),
}).strict();
export type DimensionAlerts = z.infer<typeof DimensionAlerts>;

const Timestamp = z.union([z.string(), z.date()]).transform((v) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString()));
const Details = z.record(z.string(), z.unknown());

/** An alert row (mdame.alerts), as the RPCs return it. */
export const AlertRow = z.object({
  id: z.string().uuid(),
  kind: AlertKind,
  dimension_id: DimensionId.nullable(),
  dedupe_key: z.string(),
  summary: z.string(),
  details: Details,
  photo_key: z.string().nullable(),
  status: AlertStatus,
  occurrences: z.number().int(),
  attempts: z.number().int(),
  next_attempt_at: Timestamp,
  last_error: z.string().nullable(),
  created_at: Timestamp,
  last_raised_at: Timestamp,
  sent_at: Timestamp.nullable(),
  claim_token: z.string().uuid().nullable(),
  chat_id: z.string().nullable(),
  message_ids: z.array(z.union([z.number(), z.string()]).transform(Number)),
  /** edge: the tick's notifier delivers it; database: the watchdog sends it itself through pg_net. */
  delivered_by: z.enum(["edge", "database"]),
  net_request_id: z.union([z.number(), z.string()]).transform(Number).nullable(),
  net_posted_at: Timestamp.nullable(),
}).strict();
export type AlertRow = z.infer<typeof AlertRow>;

/** One alert the notifier claimed (mdame.claim_alerts): the row's delivery fields, with its claim token. */
export const ClaimedAlert = AlertRow.pick({
  id: true,
  kind: true,
  dimension_id: true,
  dedupe_key: true,
  summary: true,
  details: true,
  photo_key: true,
  occurrences: true,
  attempts: true,
  created_at: true,
  last_raised_at: true,
  chat_id: true,
}).extend({ kind: EdgeAlertKind, claim_token: z.string().uuid() });
export type ClaimedAlert = z.infer<typeof ClaimedAlert>;

/** One alert as `GET /pipeline/alerts` lists it (no claim token). */
export const ListedAlert = AlertRow.omit({ claim_token: true, dedupe_key: true });
export type ListedAlert = z.infer<typeof ListedAlert>;

/** `GET /pipeline/alerts`: the most recent alerts, newest first, and whether delivery is configured. */
export const AlertList = z.object({
  alerts: z.array(ListedAlert),
  delivery: z.object({ configured: z.boolean(), default_chat: z.boolean() }).strict(),
}).strict();
export type AlertList = z.infer<typeof AlertList>;
