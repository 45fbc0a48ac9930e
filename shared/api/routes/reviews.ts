/**
 * Review before publish (functions/pipeline/operator/review-routes.ts serves them,
 * docs/guides/review.md): the units waiting, one of them, and the two decisions. Approving a unit
 * twice, or rejecting it twice, answers the review as the first decision left it.
 */
import { z } from "@hono/zod-openapi";
import { ReviewListQuery } from "../../contracts/review.ts";
import { bodies } from "../components.ts";
import { body, errors, ok, routesOf, serviceBodyErrors, serviceErrors } from "../kit.ts";

const UNIT_ID = "2b4d6f80-1a3c-4e5f-8a7b-9c0d1e2f3a4b";
const RUN_ID = "7f3c2a10-5b6d-4e8f-9a0b-1c2d3e4f5a6b";
const unitParams = z.object({ unit_id: z.string().uuid("must be a work unit id (a uuid)").describe("The work unit's id (a uuid)") });

const waiting = {
  unit_id: UNIT_ID,
  run_id: RUN_ID,
  dimension_id: "tech-explained",
  requested_at: "2026-12-02T07:40:00.000Z",
  expires_at: "2026-12-03T07:40:00.000Z",
  on_expiry: "reject",
};
const undecided = { ...waiting, decision: null, decided_by: null, decided_at: null, reason: null, edits: null };
const reviewExamples = {
  list: { reviews: [{ ...waiting, title: "Why your phone battery ages", quality_passed: true }] },
  detail: {
    ...undecided,
    stage: "awaiting_review",
    topic: "Lithium-ion battery ageing",
    script: {
      title: "Why your phone battery ages",
      description: "What happens inside a lithium-ion cell as it ages.",
      hook: "Your battery is dying a little every night.",
      narration: "Your battery is dying a little every night. ...",
      hashtags: ["#battery", "#tech"],
    },
    video: {
      video_key: `renders/${UNIT_ID}.mp4`,
      duration_s: 42.5,
      signed_url: `https://project.supabase.co/storage/v1/object/sign/assets/renders/${UNIT_ID}.mp4?token=...`,
      signed_url_expires_at: "2026-12-02T09:40:00.000Z",
    },
    quality: { passed: true },
    scenes: [{
      index: 0,
      prompt: "macro shot of a phone battery",
      narration: "Your battery is dying",
      duration_s: 4.2,
      backend: "procedural",
      asset_key: null,
    }],
  },
  approveBody: { title: "Why every phone battery ages" },
  approved: {
    ...undecided,
    decision: "approved",
    decided_by: "operator",
    decided_at: "2026-12-02T08:05:00.000Z",
    edits: { title: "Why your phone battery ages" },
  },
  rejectBody: { reason: "the claim about overnight charging is wrong" },
  rejected: {
    ...undecided,
    decision: "rejected",
    decided_by: "operator",
    decided_at: "2026-12-02T08:05:00.000Z",
    reason: "the claim about overnight charging is wrong",
  },
};

const noReview = errors.notFound("review", { error: `work unit ${UNIT_ID} was never sent for review` });
const route = routesOf("reviews");

export const reviewRoutes = {
  listReviews: route({
    method: "get",
    path: "/pipeline/reviews",
    operationId: "listReviews",
    summary: "The units waiting for review, the soonest to expire first (mdame.list_reviews)",
    request: { query: ReviewListQuery },
    responses: { 200: ok("The waiting units", bodies.ReviewList, "one waiting", reviewExamples.list), ...serviceErrors },
  }),
  getReview: route({
    method: "get",
    path: "/pipeline/reviews/{unit_id}",
    operationId: "getReview",
    summary: "One unit's review: script, scenes, quality gate and a signed URL of its render (mdame.get_review)",
    request: { params: unitParams },
    responses: { 200: ok("The review", bodies.ReviewDetail, "waiting", reviewExamples.detail), ...serviceErrors, 404: noReview },
  }),
  approveReview: route({
    method: "post",
    path: "/pipeline/reviews/{unit_id}/approve",
    operationId: "approveReview",
    summary: "Publish the unit through the publish stage, with an edited title or description (mdame.approve_review)",
    request: {
      params: unitParams,
      body: body(bodies.ApproveReviewBody, false, { default: { summary: "with a new title", value: reviewExamples.approveBody } }),
    },
    responses: {
      200: ok("The review, approved; the unit is queued for publishing", bodies.Review, "approved", reviewExamples.approved),
      ...serviceBodyErrors,
      404: noReview,
      409: errors.conflict("The review was rejected, or the unit awaits no review (its run was aborted)", {
        error: `the review of work unit ${UNIT_ID} was rejected (off topic)`,
      }),
    },
  }),
  rejectReview: route({
    method: "post",
    path: "/pipeline/reviews/{unit_id}/reject",
    operationId: "rejectReview",
    summary: "End the unit rejected with a reason; it is never uploaded (mdame.reject_review)",
    request: {
      params: unitParams,
      body: body(bodies.RejectReviewBody, true, { default: { summary: "a reason", value: reviewExamples.rejectBody } }),
    },
    responses: {
      200: ok("The review, rejected", bodies.Review, "rejected", reviewExamples.rejected),
      ...serviceBodyErrors,
      404: noReview,
      409: errors.conflict("The review was approved, or the unit awaits no review", { error: `the review of work unit ${UNIT_ID} was approved already` }),
    },
  }),
};
