/**
 * Meta's moving 24-hour publishing windows (docs/reference/platforms.md): a post takes its place in
 * its Instagram or Facebook account's window before its first call (mdame.reserve_meta_post, with
 * the limit Meta reports or documents); a full window throws ChannelCapReachedError (MDQ03) with
 * `notBefore`. A post that failed before Meta accepted anything gives its place back; Meta refusing
 * a post for its own count holds the account until a post ages out.
 */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { oneRow } from "./query.ts";

const MetaPost = z.object({
  publication_id: z.string().uuid(),
  account_id: z.string().uuid(),
  reserved_at: z.date(),
}).strict();
type MetaPost = z.infer<typeof MetaPost>;

/** The limit a post is reserved against: Meta's total for 24 hours and, when Meta reports it, the posts it counts now. */
export interface MetaLimit {
  quotaTotal: number;
  quotaUsage: number | null;
}

export function reserveMetaPost(sql: Queryable, accountId: string, publicationId: string, limit: MetaLimit): Promise<MetaPost> {
  return oneRow(
    "reserve_meta_post",
    MetaPost,
    sql`select * from mdame.reserve_meta_post(${accountId}::uuid, ${publicationId}::uuid, ${limit.quotaTotal}::integer, ${limit.quotaUsage}::integer)`,
  );
}

/** Gives the post's place back (it failed before Meta accepted anything); true when there was one. */
export async function releaseMetaPost(sql: Queryable, publicationId: string): Promise<boolean> {
  const row = await oneRow(
    "release_meta_post",
    z.object({ released: z.boolean() }).strict(),
    sql`select mdame.release_meta_post(${publicationId}::uuid) as released`,
  );
  return row.released;
}

/** Meta refused the post for its limit: the account is held full; returns when it may post again. */
export async function recordMetaRefusal(sql: Queryable, publicationId: string): Promise<Date> {
  const row = await oneRow(
    "record_meta_refusal",
    z.object({ not_before: z.date() }).strict(),
    sql`select mdame.record_meta_refusal(${publicationId}::uuid) as not_before`,
  );
  return row.not_before;
}
