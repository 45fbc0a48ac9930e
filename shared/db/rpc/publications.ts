/**
 * Publication RPCs: one publication per (unit, account), quota reserved before the upload, the
 * resumable session stored before the first byte, each account's upload recorded as soon as it
 * is done, and the unit published once every active account has it.
 */
import { z } from "zod";
import { WorkUnit } from "../../contracts/work-unit.ts";
import type { Sql } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";
import type { StageClaim } from "./work-units.ts";

/** An active account of the unit's dimension to publish to; `credentials_enc` is decrypted in memory only. */
export const PublishTarget = z.object({
  account_id: z.string().uuid(),
  platform: z.string(),
  channel_handle: z.string(),
  credentials_enc: z.string().nullable(),
}).strict();
export type PublishTarget = z.infer<typeof PublishTarget>;

/** A row of mdame.publications. */
export const Publication = z.object({
  id: z.string().uuid(),
  unit_id: z.string().uuid(),
  account_id: z.string().uuid(),
  platform: z.literal("youtube"),
  status: z.enum(["pending", "uploading", "published", "failed"]),
  upload_session_uri: z.string().nullable(),
  external_id: z.string().nullable(),
  video_key: z.string().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  published_at: z.date().nullable(),
}).strict();
export type Publication = z.infer<typeof Publication>;

/** A row of mdame.quota_reservations: the upload units one publication holds on its account's day. */
export const QuotaReservation = z.object({
  publication_id: z.string().uuid(),
  account_id: z.string().uuid(),
  usage_date: z.coerce.date(),
  units: z.number().int().positive(),
  created_at: z.date(),
}).strict();
export type QuotaReservation = z.infer<typeof QuotaReservation>;

/** The unit's dimension's active accounts. */
export function getPublishTargets(sql: Sql, unitId: string): Promise<PublishTarget[]> {
  return manyRows("get_publish_targets", PublishTarget, sql`select * from mdame.get_publish_targets(${unitId}::uuid)`);
}

/** The unit's publication on an account, created on the first call and returned as it stands on a repeat. */
export function beginPublication(sql: Sql, unitId: string, accountId: string): Promise<Publication> {
  return oneRow("begin_publication", Publication, sql`select * from mdame.begin_publication(${unitId}::uuid, ${accountId}::uuid)`);
}

/** Reserves the upload's quota (once per publication); QuotaExhaustedError when the account's day is spent. */
export function reserveQuota(sql: Sql, publicationId: string): Promise<QuotaReservation> {
  return oneRow("reserve_quota", QuotaReservation, sql`select * from mdame.reserve_quota(${publicationId}::uuid)`);
}

/** Stores the resumable session before the first byte; returns the publication with the session stored first. */
export function recordUploadSession(sql: Sql, publicationId: string, sessionUri: string): Promise<Publication> {
  return oneRow("record_upload_session", Publication, sql`select * from mdame.record_upload_session(${publicationId}::uuid, ${sessionUri})`);
}

/** Forgets an expired session (only if it is still the stored one), so the next attempt opens a new one. */
export function clearUploadSession(sql: Sql, publicationId: string, sessionUri: string): Promise<Publication | null> {
  return maybeRow("clear_upload_session", Publication, sql`select * from mdame.clear_upload_session(${publicationId}::uuid, ${sessionUri})`);
}

/** The publication, or null. */
export function getPublication(sql: Sql, publicationId: string): Promise<Publication | null> {
  return maybeRow("get_publication", Publication, sql`select * from mdame.get_publication(${publicationId}::uuid)`);
}

/**
 * Records one account's finished upload under the publish task's lease, at once: a crash or a
 * failure on a later account leaves this one published, and the next attempt does not upload it
 * again. Nothing is archived (a late call only archives a message whose unit is past publish).
 */
export function recordPublication(
  sql: Sql,
  claim: Omit<StageClaim, "stepToken">,
  publicationId: string,
  externalId: string,
): Promise<Publication> {
  return oneRow("record_publication", Publication, sql`
    select * from mdame.record_publication(${claim.msgId}, ${publicationId}::uuid, ${externalId}, ${claim.holder})`);
}

/**
 * The publish stage's completion: records the publication if not yet recorded and, once every
 * active account of the dimension has one, stores the step's result, publishes the unit and
 * archives the task. Returns the unit as it stands (still at publish while an account is missing).
 */
export function completePublication(sql: Sql, claim: StageClaim, publicationId: string, externalId: string): Promise<WorkUnit | null> {
  return maybeRow("complete_publication", WorkUnit, sql`
    select * from mdame.complete_publication(${claim.msgId}, ${publicationId}::uuid, ${externalId}, ${claim.stepToken}, ${claim.holder})`);
}
