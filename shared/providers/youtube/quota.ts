/**
 * The quota steps of every metered YouTube call (docs/reference/distribution.md), written once for
 * the publish stage's uploads and the analytics fetches: reserve in the ledger before the call (a
 * spent bucket or a reached channel cap is a deferral, not an error), settle once Google answered,
 * release when no answer came, and take over YouTube's own "spent" answers as ledger corrections.
 */
import type { Queryable } from "../../db/client.ts";
import { ChannelCapReachedError, QuotaBucketSpentError } from "../../db/errors.ts";
import {
  type QuotaLedgerEntry,
  recordYouTubeRefusal,
  releaseYouTubeCall,
  reserveYouTubeCall,
  settleYouTubeCall,
  type YouTubeCallKind,
} from "../../db/rpc/quota-ledger.ts";
import { ProviderError } from "../errors.ts";
import { classifyYouTubeRefusal, type PublishRefusal } from "./refusals.ts";

/** Why a call cannot be made now, and from when it may (null: the ledger cannot say). */
interface QuotaDeferral {
  reason: "quota_spent" | "channel_cap";
  notBefore: Date | null;
  /** Who said so: the ledger before the call, or YouTube's own count answering it. */
  by: "ledger" | "youtube";
}

interface QuotaReservation {
  accountId: string;
  callKind: YouTubeCallKind;
  /** An upload's publication: a repeat returns the reservation it holds. */
  publicationId?: string | null;
}

/** Reserves one call; a spent bucket or a reached cap comes back as a deferral. */
export async function reserveYouTubeQuota(
  sql: Queryable,
  reservation: QuotaReservation,
): Promise<{ kind: "reserved"; entry: QuotaLedgerEntry } | ({ kind: "deferred" } & QuotaDeferral)> {
  try {
    return { kind: "reserved", entry: await reserveYouTubeCall(sql, reservation) };
  } catch (error) {
    if (error instanceof QuotaBucketSpentError) return { kind: "deferred", reason: "quota_spent", notBefore: error.notBefore, by: "ledger" };
    if (error instanceof ChannelCapReachedError) return { kind: "deferred", reason: "channel_cap", notBefore: error.notBefore, by: "ledger" };
    throw error;
  }
}

/**
 * YouTube's own count refusing a reserved call (403 quotaExceeded, 400 uploadLimitExceeded; the
 * caller classified the error once, classifyYouTubeRefusal), recorded in the ledger: the deferral
 * it means, with the moment the ledger now gives; null for any other refusal or none.
 */
export async function recordYouTubeQuotaRefusal(
  sql: Queryable,
  entry: QuotaLedgerEntry,
  refusal: PublishRefusal | null,
): Promise<(QuotaDeferral & { notBefore: Date }) | null> {
  if (refusal?.kind === "quota_exceeded") {
    return { reason: "quota_spent", notBefore: await recordYouTubeRefusal(sql, entry.id, "quotaExceeded"), by: "youtube" };
  }
  if (refusal?.kind === "upload_limit_exceeded") {
    return { reason: "channel_cap", notBefore: await recordYouTubeRefusal(sql, entry.id, "uploadLimitExceeded"), by: "youtube" };
  }
  return null;
}

/**
 * One call metered whole: reserved first; settled once Google answered, an error answer included
 * (it counted); released when no answer came or Google was out (it did not); a refusal by YouTube's
 * own count recorded and returned as a deferral. Any other error is thrown after the ledger is right.
 */
export async function withYouTubeQuota<T>(
  sql: Queryable,
  reservation: QuotaReservation,
  call: () => Promise<T>,
): Promise<{ kind: "answered"; value: T } | ({ kind: "deferred" } & QuotaDeferral)> {
  const reserved = await reserveYouTubeQuota(sql, reservation);
  if (reserved.kind === "deferred") return reserved;
  let value: T;
  try {
    value = await call();
  } catch (error) {
    const refused = await recordYouTubeQuotaRefusal(sql, reserved.entry, classifyYouTubeRefusal(error));
    if (refused) return { kind: "deferred", ...refused };
    if (error instanceof ProviderError && typeof error.status === "number" && !error.retriable) await settleYouTubeCall(sql, reserved.entry.id);
    else await releaseYouTubeCall(sql, reserved.entry.id);
    throw error;
  }
  await settleYouTubeCall(sql, reserved.entry.id);
  return { kind: "answered", value };
}
