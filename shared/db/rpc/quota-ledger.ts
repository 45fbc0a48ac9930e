/**
 * The YouTube quota ledger (docs/reference/distribution.md): a call is reserved before it is made, against
 * its Google project's bucket for the Pacific quota day and, for an upload, the channel's rolling
 * 24-hour cap; settled once YouTube accepted it, released when it failed before YouTube accepted
 * anything; and corrected when YouTube refused it for its own count. Reservations that cannot be
 * made throw QuotaBucketSpentError (MDQ02) or ChannelCapReachedError (MDQ03) with `notBefore`.
 */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { oneRow } from "./query.ts";
import { YouTubeBucket } from "../../contracts/youtube-project.ts";

/** The calls the ledger prices (mdame.youtube_call_costs). */
export const YouTubeCallKind = z.enum([
  "videos.insert",
  "videos.list",
  "channels.list",
  "videoCategories.list",
  "videos.update",
  "thumbnails.set",
  "videos.batchGetStats",
  "analytics.reports.query",
]);
export type YouTubeCallKind = z.infer<typeof YouTubeCallKind>;

/** YouTube's answers that say its own count is spent, which the ledger takes over. */
const YouTubeRefusal = z.enum(["quotaExceeded", "uploadLimitExceeded"]);
type YouTubeRefusal = z.infer<typeof YouTubeRefusal>;

/** A row of mdame.quota_ledger. */
export const QuotaLedgerEntry = z.object({
  id: z.string().uuid(),
  oauth_client_id: z.string(),
  account_id: z.string().uuid(),
  publication_id: z.string().uuid().nullable(),
  call_kind: YouTubeCallKind,
  bucket: YouTubeBucket,
  cost: z.number().int().positive(),
  /** The Pacific calendar day the call is charged to. */
  quota_day: z.coerce.date(),
  entry: z.enum(["call", "correction"]),
  status: z.enum(["reserved", "settled", "released"]),
  created_at: z.date(),
  settled_at: z.date().nullable(),
}).strict();
export type QuotaLedgerEntry = z.infer<typeof QuotaLedgerEntry>;

/** Reserves one call (a publication's call once: a repeat returns the reservation it holds). */
export function reserveYouTubeCall(
  sql: Queryable,
  p: { accountId: string; callKind: YouTubeCallKind; publicationId?: string | null },
): Promise<QuotaLedgerEntry> {
  return oneRow(
    "reserve_youtube_call",
    QuotaLedgerEntry,
    sql`
    select * from mdame.reserve_youtube_call(${p.accountId}::uuid, ${p.callKind}::text, ${p.publicationId ?? null}::uuid)`,
  );
}

/** YouTube accepted the call: it counts for good. */
export function settleYouTubeCall(sql: Queryable, entryId: string): Promise<QuotaLedgerEntry> {
  return oneRow("settle_youtube_call", QuotaLedgerEntry, sql`select * from mdame.settle_youtube_call(${entryId}::uuid)`);
}

/** The call failed before YouTube accepted anything: its cost goes back to the bucket and the cap. */
export function releaseYouTubeCall(sql: Queryable, entryId: string): Promise<QuotaLedgerEntry> {
  return oneRow("release_youtube_call", QuotaLedgerEntry, sql`select * from mdame.release_youtube_call(${entryId}::uuid)`);
}

/** Releases the refused call, corrects the ledger to YouTube's count and returns when the account may try again. */
export async function recordYouTubeRefusal(sql: Queryable, entryId: string, reason: YouTubeRefusal): Promise<Date> {
  const row = await oneRow(
    "record_youtube_refusal",
    z.object({ not_before: z.date() }).strict(),
    sql`select mdame.record_youtube_refusal(${entryId}::uuid, ${reason}::text) as not_before`,
  );
  return row.not_before;
}
