/** The adaptive engine (functions/pipeline/adapt/routes.ts serves it, docs/reference/adaptive.md). */
import { z } from "@hono/zod-openapi";
import { DimensionId } from "../../contracts/dimension.ts";
import { bodies } from "../components.ts";
import { examples } from "../examples.ts";
import { body, errors, ok, routesOf, serviceBodyErrors, serviceErrors } from "../kit.ts";
import { noDimension } from "./dimensions.ts";

export const AdaptationsQuery = z.object({ dimension: DimensionId.optional(), limit: z.coerce.number().int().min(1).max(500).default(50) }).strict();
const adaptationParams = z.object({ id: z.string().uuid("must be an adaptation id (a uuid)").describe("The adaptation's id (a uuid)") });
const route = routesOf("adapt");

/** POST /pipeline/adapt/pin or /unpin. */
const pinRoute = <A extends "pin" | "unpin">(action: A) =>
  route({
    method: "post",
    path: `/pipeline/adapt/${action}`,
    operationId: `${action}AdaptParameter`,
    summary: action === "pin" ? "The parameter never moves" : "The parameter may move again",
    request: { body: body(bodies.AdaptPinBody, true, { default: { summary: "the hook threshold", value: examples.pin } }) },
    responses: {
      200: ok("The dimension's pinned parameters afterwards", bodies.AdaptPins, "pinned", action === "pin" ? examples.pins : { ...examples.pins, pinned: [] }),
      ...serviceBodyErrors,
      404: noDimension,
    },
  });

export const adaptRoutes = {
  adapt: route({
    method: "post",
    path: "/pipeline/adapt",
    operationId: "adapt",
    summary: "Decide now for one dimension or every active one; a dry run records nothing (docs/reference/adaptive.md)",
    request: { body: body(bodies.AdaptBody, false, { default: { summary: "a dry run for one dimension", value: examples.adaptDryRun } }) },
    responses: { 200: ok("Each dimension's decisions", bodies.AdaptAnswer, "one move proposed", examples.adaptAnswer), ...serviceBodyErrors, 404: noDimension },
  }),
  listAdaptations: route({
    method: "get",
    path: "/pipeline/adaptations",
    operationId: "listAdaptations",
    summary: "The recorded moves, newest first",
    request: { query: AdaptationsQuery },
    responses: { 200: ok("The moves", bodies.AdaptationList, "one move", { adaptations: [examples.adaptation] }), ...serviceErrors },
  }),
  revertAdaptation: route({
    method: "post",
    path: "/pipeline/adaptations/{id}/revert",
    operationId: "revertAdaptation",
    summary: "Put the value before a move in force again",
    request: { params: adaptationParams },
    responses: {
      200: ok("The move, reverted", bodies.Adaptation, "reverted", { ...examples.adaptation, reverted_at: "2026-12-02T08:00:00.000Z" }),
      ...serviceBodyErrors,
      404: errors.notFound("adaptation", { error: `no adaptation ${examples.adaptation.id}` }),
      409: errors.conflict("A later move of the same parameter is in force", {
        error:
          `adaptation ${examples.adaptation.id} is not the one in force for hook_threshold of tech-explained: revert 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e first`,
      }),
    },
  }),
  pinAdaptParameter: pinRoute("pin"),
  unpinAdaptParameter: pinRoute("unpin"),
};
