/**
 * Publication RPCs: one publication per (unit, account), the resumable session stored before the
 * first byte, each account's upload recorded as soon as it is done, a publication its account
 * cannot make now deferred, and the unit published once every active account has it (or waiting
 * at stage deferred). Quota is the ledger's business (quota-ledger.ts).
 */
import { z } from "zod";
import { AccountHealth, Platform } from "../../contracts/account.ts";
import { WorkUnit } from "../../contracts/work-unit.ts";
import type { Sql } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";
import type { StageClaim } from "./work-units.ts";

/** Why a publication waits: the project's bucket, the channel's cap, or a grant Google refused. */
export const DeferralReason = z.enum(["quota_spent", "channel_cap", "rate_limited", "needs_reconnect"]);
export type DeferralReason = z.infer<typeof DeferralReason>;

/** An active account of the unit's dimension to publish to; `credentials_enc` is decrypted in memory only. */
export const PublishTarget = z.object({
  account_id: z.string().uuid(),
  platform: z.string(),
  channel_handle: z.string(),
  credentials_enc: z.string().nullable(),
  /** needs_reconnect once Google refused the account's grant: its publication is deferred without a call. */
  health_state: AccountHealth,
  /** The platform's id of the channel (YouTube UC..., TikTok open_id, Instagram IG user id, Facebook Page id); null when never recorded. */
  channel_id: z.string().nullable(),
}).strict();
export type PublishTarget = z.infer<typeof PublishTarget>;

/** A row of mdame.publications. */
export const Publication = z.object({
  id: z.string().uuid(),
  unit_id: z.string().uuid(),
  account_id: z.string().uuid(),
  platform: Platform,
  status: z.enum(["pending", "uploading", "published", "deferred", "failed", "skipped"]),
  upload_session_uri: z.string().nullable(),
  external_id: z.string().nullable(),
  video_key: z.string().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  published_at: z.date().nullable(),
  deferred_reason: DeferralReason.nullable(),
  /** A deferred publication is tried again from then on; null: once its account is reconnected. */
  not_before: z.date().nullable(),
  /** The privacy the platform gave the finished upload (YouTube status.privacyStatus, TikTok privacy_level). */
  privacy_status: z.string().nullable(),
  /** The privacy the engine asked for; a difference means the platform locked the upload. */
  privacy_requested: z.string().nullable(),
  /** Since when it has been deferred (engine clock); null when it is not deferred. */
  deferred_since: z.date().nullable(),
  /** Why the account will not take this video (status skipped). */
  skip_reason: z.string().nullable(),
}).strict();
export type Publication = z.infer<typeof Publication>;

/** The unit's dimension's active accounts. */
export function getPublishTargets(sql: Sql, unitId: string): Promise<PublishTarget[]> {
  return manyRows("get_publish_targets", PublishTarget, sql`select * from mdame.get_publish_targets(${unitId}::uuid)`);
}

/** The unit's publication on an account, created on the first call and returned as it stands on a repeat. */
export function beginPublication(sql: Sql, unitId: string, accountId: string): Promise<Publication> {
  return oneRow("begin_publication", Publication, sql`select * from mdame.begin_publication(${unitId}::uuid, ${accountId}::uuid)`);
}

/** Defers a publication its account cannot make now (a published one is returned unchanged). */
export function deferPublication(sql: Sql, publicationId: string, reason: DeferralReason, notBefore: Date | null): Promise<Publication> {
  return oneRow(
    "defer_publication",
    Publication,
    sql`
    select * from mdame.defer_publication(${publicationId}::uuid, ${reason}::text, ${notBefore}::timestamptz)`,
  );
}

/**
 * Records that the account will not take this video, with the reason the run's status shows; the
 * publication counts as done for the unit (a published or skipped one is returned unchanged).
 */
export function skipPublication(sql: Sql, publicationId: string, reason: string): Promise<Publication> {
  return oneRow("skip_publication", Publication, sql`select * from mdame.skip_publication(${publicationId}::uuid, ${reason}::text)`);
}

/** Records the privacy YouTube gave the finished upload; an event when it differs from the one asked. */
export function recordPublicationPrivacy(sql: Sql, publicationId: string, privacyStatus: string, requested: string): Promise<Publication> {
  return oneRow(
    "record_publication_privacy",
    Publication,
    sql`
    select * from mdame.record_publication_privacy(${publicationId}::uuid, ${privacyStatus}::text, ${requested}::text)`,
  );
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
  return oneRow(
    "record_publication",
    Publication,
    sql`
    select * from mdame.record_publication(${claim.msgId}, ${publicationId}::uuid, ${externalId}, ${claim.holder})`,
  );
}

/**
 * The publish stage's completion: records the publication if not yet recorded and, once every
 * active account of the dimension has one, stores the step's result, publishes the unit and
 * archives the task. Returns the unit as it stands (still at publish while an account is missing).
 */
export function completePublication(sql: Sql, claim: StageClaim, publicationId: string, externalId: string): Promise<WorkUnit | null> {
  return maybeRow(
    "complete_publication",
    WorkUnit,
    sql`
    select * from mdame.complete_publication(${claim.msgId}, ${publicationId}::uuid, ${externalId}, ${claim.stepToken}, ${claim.holder})`,
  );
}

/**
 * The publish stage's completion when some accounts could not publish: every active account's
 * publication is published or deferred; the unit waits at stage deferred (its run may close) and
 * the task is archived, with no step result stored, so the drain sends the same step again.
 */
export function deferUnitPublish(sql: Sql, claim: StageClaim, unitId: string): Promise<WorkUnit | null> {
  return maybeRow(
    "defer_unit_publish",
    WorkUnit,
    sql`
    select * from mdame.defer_unit_publish(${claim.msgId}, ${unitId}::uuid, ${claim.stepToken}, ${claim.holder})`,
  );
}

/** Sends units whose deferred publications' time has come back to publish (what pg_cron runs every minute). */
export async function drainDeferredPublications(sql: Sql): Promise<number> {
  const row = await oneRow(
    "drain_deferred_publications",
    z.object({ sent: z.number().int() }).strict(),
    sql`select mdame.drain_deferred_publications() as sent`,
  );
  return row.sent;
}
