/**
 * The Shorts thumbnails of published YouTube videos (docs/reference/distribution.md, "Thumbnails"):
 * enqueued by a trigger when a publication is confirmed, claimed from the thumbnail_sets queue by
 * the pipeline's tick, and finished as set, retried later or given up.
 */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow } from "./query.ts";

/** A claimed thumbnail set: its queue message and what setting it needs. */
export const ClaimedThumbnailSet = z.object({
  msg_id: z.coerce.number().int(),
  publication_id: z.string().uuid(),
  /** Claims so far, this one included. */
  attempts: z.number().int().positive(),
  external_id: z.string().nullable(),
  cover_key: z.string(),
  unit_id: z.string().uuid(),
  run_id: z.string().uuid(),
  account_id: z.string().uuid(),
  dimension_id: z.string(),
  channel_handle: z.string(),
  credentials_enc: z.string().nullable(),
  /** Active, healthy and holding credentials. */
  account_ready: z.boolean(),
  /** mdame.engine_now() at the claim. */
  engine_now: z.date(),
}).strict();
export type ClaimedThumbnailSet = z.infer<typeof ClaimedThumbnailSet>;

/** A row of mdame.thumbnail_sets. */
export const ThumbnailSet = z.object({
  publication_id: z.string().uuid(),
  cover_key: z.string(),
  status: z.enum(["queued", "set", "given_up"]),
  msg_id: z.coerce.number().int().nullable(),
  attempts: z.number().int().nonnegative(),
  enqueued_at: z.date(),
  last_error: z.string().nullable(),
  finished_at: z.date().nullable(),
}).strict();
export type ThumbnailSet = z.infer<typeof ThumbnailSet>;

/** Claims up to `qty` due sets for `vtSeconds`; each claim counts an attempt. */
export function claimThumbnailSets(sql: Queryable, qty: number, vtSeconds: number): Promise<ClaimedThumbnailSet[]> {
  return manyRows("claim_thumbnail_sets", ClaimedThumbnailSet, sql`select * from mdame.claim_thumbnail_sets(${qty}::integer, ${vtSeconds}::integer)`);
}

/**
 * Finishes a claimed set: set (no error), again after `delaySeconds` with the reason, or given up
 * for good with it. A set finished already is answered as it is.
 */
export function finishThumbnailSet(
  sql: Queryable,
  p:
    & { publicationId: string; msgId: number }
    & ({ outcome: "set" } | { outcome: "retry"; reason: string; delaySeconds: number } | { outcome: "give_up"; reason: string }),
): Promise<ThumbnailSet> {
  const reason = p.outcome === "set" ? null : p.reason;
  const delay = p.outcome === "retry" ? p.delaySeconds : null;
  return oneRow(
    "finish_thumbnail_set",
    ThumbnailSet,
    sql`select * from mdame.finish_thumbnail_set(${p.publicationId}::uuid, ${String(p.msgId)}::bigint, ${reason}::text, ${delay}::integer,
      ${p.outcome === "give_up"}::boolean)`,
  );
}
