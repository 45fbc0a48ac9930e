import { HTTPException } from "hono/http-exception";
import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { approveReview, getReview, listReviews, rejectReview } from "../../../shared/db/rpc/reviews.ts";
import { signedRenderUrl } from "./render-url.ts";
import { reply } from "../../../shared/api/serve.ts";
import { type Handlers } from "../routes.ts";
import type { OperatorDeps } from "./deps.ts";

/**
 * Review before publish (shared/api/routes/reviews.ts, docs/guides/review.md), behind the
 * service-role bearer; what `mdame review`, the dashboard's Review page and other clients call.
 *
 * - `GET  /reviews?dimension=`        the units waiting, soonest expiry first (mdame.list_reviews)
 * - `GET  /reviews/:unit_id`          one review: script, scenes, quality gate, a signed URL of the render
 * - `POST /reviews/:unit_id/approve`  an edited title or description, then the publish stage (mdame.approve_review)
 * - `POST /reviews/:unit_id/reject`   the reason; the unit ends rejected (mdame.reject_review)
 *
 * The bodies are checked by their contracts (400) before any write; the RPCs' refusals reach the
 * app's onError (never sent for review: 404; already decided the other way, or no longer waiting: 409).
 */
export function reviewHandlers(deps: OperatorDeps): Handlers<"listReviews" | "getReview" | "approveReview" | "rejectReview"> {
  return {
    listReviews: async (c) => {
      const { dimension } = c.req.valid("query");
      return reply(c, routes.listReviews, 200, { reviews: await listReviews(deps.sql, dimension ?? null) });
    },

    getReview: async (c) => {
      const { unit_id: unitId } = c.req.valid("param");
      const review = await getReview(deps.sql, unitId);
      if (review === null) throw new HTTPException(404, { message: `work unit ${unitId} was never sent for review` });
      const signed = await signedRenderUrl(deps, review.video.video_key, { unit_id: unitId, stage: "awaiting_review" });
      return reply(c, routes.getReview, 200, { ...review, video: { ...review.video, signed_url: signed.url, signed_url_expires_at: signed.expiresAt } });
    },

    approveReview: async (c) => {
      const { unit_id: unitId } = c.req.valid("param");
      const edits = c.req.valid("json");
      const review = await approveReview(deps.sql, unitId, edits);
      deps.logger.info({
        execution_id: review.run_id,
        dimension_id: review.dimension_id,
        unit_id: unitId,
        stage: "awaiting_review",
        status: "approved",
        edited: Object.keys(review.edits ?? {}),
      }, "review approved");
      return reply(c, routes.approveReview, 200, review);
    },

    rejectReview: async (c) => {
      const { unit_id: unitId } = c.req.valid("param");
      const { reason } = c.req.valid("json");
      const review = await rejectReview(deps.sql, unitId, reason);
      deps.logger.info({
        execution_id: review.run_id,
        dimension_id: review.dimension_id,
        unit_id: unitId,
        stage: "awaiting_review",
        status: "rejected",
        reason: review.reason,
      }, "review rejected");
      return reply(c, routes.rejectReview, 200, review);
    },
  };
}
