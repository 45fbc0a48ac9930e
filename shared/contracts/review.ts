/**
 * Review before publish (docs/guides/review.md): a dimension's `review` setting, and the operator
 * API's review bodies and answers (GET /pipeline/reviews, GET /pipeline/reviews/{unit_id}, POST
 * .../approve and .../reject), which `mdame review`, the dashboard's Review page and any other client
 * of the API share. The rows come from mdame.list_reviews, get_review, approve_review and
 * reject_review (supabase/schemas/mdame/functions).
 */
import { z } from "zod";
import { count, timestamp, uuid } from "./columns.ts";
import { DimensionId } from "./dimension-id.ts";
import { ScriptDraft } from "./llm.ts";
import { oneLine, storableText } from "./text.ts";

const MINUTE_MS = 60_000;
const UNIT_MS = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: 24 * 60 * MINUTE_MS } as const;
/** How long a review may wait: the table checks the same bounds (dimensions_review_check). */
const EXPIRY_BOUNDS_MS = { min: 10 * MINUTE_MS, max: 30 * UNIT_MS.d } as const;

/** A wait as `90m`, `24h` or `2d`, in milliseconds. */
export function reviewExpiryMs(text: string): number {
  const match = /^([1-9][0-9]{0,3})([mhd])$/.exec(text);
  if (!match) return Number.NaN;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

const ExpiresAfter = z.string().regex(/^[1-9][0-9]{0,3}[mhd]$/, "must be a whole number of minutes, hours or days, like 90m, 24h or 2d")
  .refine((text) => {
    const ms = reviewExpiryMs(text);
    return ms >= EXPIRY_BOUNDS_MS.min && ms <= EXPIRY_BOUNDS_MS.max;
  }, "must be 10m to 30d");

/** What happens to a review nobody decided in time. */
export const OnExpiry = z.enum(["reject", "publish"]);
export type OnExpiry = z.infer<typeof OnExpiry>;

/** A dimension's review setting (mdame.dimensions.review): null, or required false, publishes without review. */
export const ReviewSettings = z.object({
  required: z.boolean({ message: "must be true or false" }).default(true).describe(
    "Whether each rendered video waits for the operator before it is published.",
  ),
  expires_after: ExpiresAfter.default("24h").describe("How long a video waits for a decision: 10m to 30d, as 90m, 24h or 2d."),
  on_expiry: OnExpiry.default("reject").describe("What happens to a video nobody decided in time: reject (never uploaded) or publish (as it is)."),
}).strict();
export type ReviewSettings = z.infer<typeof ReviewSettings>;

/** Who decided a review: the operator (CLI, dashboard, API) or its expiry. */
const DecidedBy = z.enum(["operator", "expiry"]);
const Decision = z.enum(["approved", "rejected"]);

/** A unit waiting for review, as GET /pipeline/reviews lists it (mdame.list_reviews). */
export const ReviewSummary = z.object({
  unit_id: uuid,
  run_id: uuid,
  dimension_id: DimensionId,
  title: z.string().nullable(),
  requested_at: timestamp,
  expires_at: timestamp,
  on_expiry: OnExpiry,
  /** The render's quality gate (null for a render that reported none). */
  quality_passed: z.boolean().nullable(),
}).strict();
export type ReviewSummary = z.infer<typeof ReviewSummary>;

/** GET /pipeline/reviews. */
export const ReviewList = z.object({ reviews: z.array(ReviewSummary) }).strict();
export type ReviewList = z.infer<typeof ReviewList>;

/** GET /pipeline/reviews query: one dimension's, or every waiting unit. */
export const ReviewListQuery = z.object({ dimension: DimensionId.optional() }).strict();

/** A review row (mdame.unit_reviews) as approve_review and reject_review return it. */
export const Review = z.object({
  unit_id: uuid,
  run_id: uuid,
  dimension_id: DimensionId,
  requested_at: timestamp,
  expires_at: timestamp,
  on_expiry: OnExpiry,
  decision: Decision.nullable(),
  decided_by: DecidedBy.nullable(),
  decided_at: timestamp.nullable(),
  /** The reason of a rejection. */
  reason: z.string().nullable(),
  /** The title and description an approval replaced, as they were. */
  edits: z.object({ title: z.string().optional(), description: z.string().optional() }).strict().nullable(),
}).strict();
export type Review = z.infer<typeof Review>;

/** One scene of the reviewed video. */
const ReviewScene = z.object({
  index: count,
  prompt: z.string(),
  narration: z.string(),
  duration_s: z.number().positive(),
  backend: z.string().nullable(),
  asset_key: z.string().nullable(),
}).strict();

const ReviewVideo = z.object({ video_key: z.string().nullable(), duration_s: z.number().nullable() }).strict();

/** mdame.get_review: the review and what the operator decides on. */
export const ReviewRecord = Review.extend({
  /** The unit's stage: awaiting_review while undecided. */
  stage: z.string(),
  topic: z.string().nullable(),
  script: z.object({
    title: z.string().nullable(),
    description: z.string().nullable(),
    hook: z.string().nullable(),
    narration: z.string().nullable(),
    hashtags: z.array(z.string()),
  }).strict(),
  video: ReviewVideo,
  /** The render's quality report (shared/contracts/quality.ts), as stored. */
  quality: z.record(z.string(), z.unknown()).nullable(),
  scenes: z.array(ReviewScene),
}).strict();
export type ReviewRecord = z.infer<typeof ReviewRecord>;

/** GET /pipeline/reviews/{unit_id}: the review, with a signed URL that plays its render (null when storage has none). */
export const ReviewDetail = ReviewRecord.extend({
  video: ReviewVideo.extend({ signed_url: z.string().nullable(), signed_url_expires_at: timestamp.nullable() }),
}).strict();
export type ReviewDetail = z.infer<typeof ReviewDetail>;

/**
 * Body of POST /pipeline/reviews/{unit_id}/approve: an edited title or description, within the
 * limits a script's own have (ScriptDraft), which every platform's upload takes as they are.
 */
const TITLE = { min: ScriptDraft.shape.title.minLength!, max: ScriptDraft.shape.title.maxLength! };
const DESCRIPTION = { min: ScriptDraft.shape.description.minLength!, max: ScriptDraft.shape.description.maxLength! };
/** Why a video is rejected: one line of this length. */
const REASON = { min: 1, max: 500 };
/** The bounds of an approval's edits and a rejection's reason, for the forms that show them. */
export const REVIEW_TEXT_LIMITS = { title: TITLE, description: DESCRIPTION, reason: REASON } as const;
const lengthRange = (range: { min: number; max: number }) => `must be ${range.min} to ${range.max} characters`;

export const ApproveReviewBody = z.object({
  title: oneLine(z.string().trim().min(TITLE.min, lengthRange(TITLE)).max(TITLE.max, lengthRange(TITLE))).optional()
    .describe(`The title to publish instead of the script's: one line, ${TITLE.min}-${TITLE.max} characters.`),
  description: storableText(z.string().trim().min(DESCRIPTION.min, lengthRange(DESCRIPTION)).max(DESCRIPTION.max, lengthRange(DESCRIPTION))).optional()
    .describe(`The description to publish instead of the script's: ${DESCRIPTION.min}-${DESCRIPTION.max} characters.`),
}).strict();
export type ApproveReviewBody = z.infer<typeof ApproveReviewBody>;

/** Body of POST /pipeline/reviews/{unit_id}/reject: why, for the weekly report and the adaptive engine. */
export const RejectReviewBody = z.object({
  reason: oneLine(z.string().trim().min(REASON.min, "must not be empty").max(REASON.max, `must be at most ${REASON.max} characters`)).describe(
    `Why the video is not published: one line, ${REASON.min}-${REASON.max} characters.`,
  ),
}).strict();
export type RejectReviewBody = z.infer<typeof RejectReviewBody>;
