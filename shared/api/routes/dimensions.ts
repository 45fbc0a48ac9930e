/** Dimensions (functions/pipeline/operator/dimension-routes.ts serves them; `mdame dimension ...`). */
import { z } from "@hono/zod-openapi";
import { DimensionId } from "../../contracts/dimension.ts";
import { bodies } from "../components.ts";
import { dimension, dimensionConfig, dimensionPatch, errorExamples } from "../examples.ts";
import { body, errors, ok, pauseAndResume, routesOf, serviceBodyErrors, serviceErrors } from "../kit.ts";

export const dimensionParams = z.object({ id: DimensionId.describe("The dimension's id") });
export const noDimension = errors.notFound("dimension", errorExamples.dimensionNotFound);

const route = routesOf("dimensions");
const setActive = pauseAndResume(route, {
  what: "dimension",
  path: "/pipeline/dimensions/{id}",
  params: dimensionParams,
  schema: bodies.Dimension,
  example: dimension,
  notFound: noDimension,
});

export const dimensionRoutes = {
  listDimensions: route({
    method: "get",
    path: "/pipeline/dimensions",
    operationId: "listDimensions",
    summary: "Every dimension, with its account counts",
    responses: { 200: ok("The dimensions", bodies.DimensionList, "one dimension", { dimensions: [dimension] }), ...serviceErrors },
  }),
  createDimension: route({
    method: "post",
    path: "/pipeline/dimensions",
    operationId: "createDimension",
    summary: "Create a dimension from a whole configuration (mdame.create_dimension)",
    description: "Every bad field is reported at once (400) before anything is written.",
    request: { body: body(bodies.DimensionConfig, true, { default: { summary: "the fields without a default", value: dimensionConfig } }) },
    responses: {
      201: ok("Created", bodies.Dimension, "created", dimension),
      ...serviceBodyErrors,
      409: errors.conflict("The id is taken", { error: "dimension tech-explained already exists (change it with `mdame dimension set`)" }),
    },
  }),
  getDimension: route({
    method: "get",
    path: "/pipeline/dimensions/{id}",
    operationId: "getDimension",
    summary: "One dimension",
    request: { params: dimensionParams },
    responses: { 200: ok("The dimension", bodies.Dimension, "a dimension", dimension), ...serviceErrors, 404: noDimension },
  }),
  updateDimension: route({
    method: "patch",
    path: "/pipeline/dimensions/{id}",
    operationId: "updateDimension",
    summary: "Change some fields (and some of `publishing`); the merged configuration is checked whole (mdame.update_dimension)",
    request: {
      params: dimensionParams,
      body: body(bodies.DimensionPatch, true, { default: { summary: "two videos a day, public at 18:00", value: dimensionPatch } }),
    },
    responses: { 200: ok("The dimension afterwards", bodies.Dimension, "changed", dimension), ...serviceBodyErrors, 404: noDimension },
  }),
  pauseDimension: setActive("pause", "New runs leave the dimension out (mdame.set_dimension_active)"),
  resumeDimension: setActive("resume", "New runs pick the dimension again"),
};
