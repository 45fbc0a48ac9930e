/** Review before publish (docs/guides/review.md): the waiting units, one review, and the two decisions. */
import { z } from "zod";
import { Review, ReviewRecord, ReviewSummary } from "../../contracts/review.ts";
import type { Queryable } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

/** Instants as JSON text in the API's form (ISO 8601, UTC), whether a row brought them as dates (a record) or as text (jsonb). */
const instant = z.union([z.date(), z.string()]).transform((v) => new Date(v).toISOString());

/** The units awaiting review, the soonest to expire first (at most 500), of one dimension or all. */
export function listReviews(sql: Queryable, dimensionId: string | null): Promise<ReviewSummary[]> {
  return manyRows(
    "list_reviews",
    ReviewSummary.extend({ requested_at: instant, expires_at: instant }),
    sql`select * from mdame.list_reviews(${dimensionId}::text)`,
  );
}

/** One unit's review with its script, video, quality report and scenes; null when it was never sent for review. */
export async function getReview(sql: Queryable, unitId: string): Promise<ReviewRecord | null> {
  const row = await maybeRow(
    "get_review",
    z.object({ review: ReviewRecord.extend({ requested_at: instant, expires_at: instant, decided_at: instant.nullable() }).nullable() }).strict(),
    sql`select mdame.get_review(${unitId}::uuid) as review`,
  );
  return row?.review ?? null;
}

/** A review row as approve_review and reject_review return it, its instants as JSON text. */
const ReviewRow = Review.extend({ requested_at: instant, expires_at: instant, decided_at: instant.nullable() });

/** Approves a unit awaiting review, with an edited title or description; the unit moves to publish. A repeat returns the review unchanged. */
export function approveReview(sql: Queryable, unitId: string, edits: { title?: string; description?: string }): Promise<Review> {
  return oneRow(
    "approve_review",
    ReviewRow,
    sql`select * from mdame.approve_review(${unitId}::uuid, ${edits.title ?? null}::text, ${edits.description ?? null}::text)`,
  );
}

/** Rejects a unit awaiting review with its reason; the unit ends rejected and is never uploaded. A repeat returns the review unchanged. */
export function rejectReview(sql: Queryable, unitId: string, reason: string): Promise<Review> {
  return oneRow("reject_review", ReviewRow, sql`select * from mdame.reject_review(${unitId}::uuid, ${reason}::text)`);
}
