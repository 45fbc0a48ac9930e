/**
 * Spend, prices and budgets (functions/pipeline/operator/spend-routes.ts serves them,
 * docs/reference/spend.md), with an example of each body and answer.
 */
import { bodies } from "../components.ts";
import { answers, body, errors, ok, routesOf, serviceBodyErrors, serviceErrors } from "../kit.ts";
import { SpendQuery } from "../../contracts/spend.ts";

const UPDATED = "2026-12-01T09:00:00.000Z";

const imagePrice = {
  provider: "gemini-image",
  model: "*",
  kind: "images",
  usd_per_unit: 0.039,
  default_usd_per_unit: 0.039,
  source: "default",
  updated_at: UPDATED,
};

const spendExamples = {
  month: {
    month: "2026-12",
    usd: 0.1236,
    dimensions: [{
      dimension_id: "tech-explained",
      usd: 0.1236,
      budget: { daily_usd: 2, monthly_usd: 40 },
      providers: [
        {
          provider: "gemini",
          calls: 14,
          cached_calls: 3,
          usd: 0.0456,
          lines: [
            { model: "gemini-2.5-flash", kind: "input_tokens", calls: 14, cached_calls: 3, quantity: 42_000, usd: 0.0126 },
            { model: "gemini-2.5-flash", kind: "output_tokens", calls: 14, cached_calls: 3, quantity: 13_200, usd: 0.033 },
          ],
        },
        {
          provider: "gemini-image",
          calls: 2,
          cached_calls: 0,
          usd: 0.078,
          lines: [{ model: "gemini-2.5-flash-image", kind: "images", calls: 2, cached_calls: 0, quantity: 2, usd: 0.078 }],
        },
        {
          provider: "edge-tts",
          calls: 1,
          cached_calls: 0,
          usd: 0,
          lines: [{ model: "en-US-AriaNeural", kind: "characters", calls: 1, cached_calls: 0, quantity: 812, usd: 0 }],
        },
      ],
    }],
  },
  prices: { prices: [imagePrice, { ...imagePrice, provider: "pexels", kind: "requests", usd_per_unit: 0, default_usd_per_unit: 0 }] },
  setBody: { provider: "gemini-image", model: "*", kind: "images", usd_per_unit: 0.03 },
  set: { ...imagePrice, usd_per_unit: 0.03, source: "operator" },
  resetBody: { provider: "gemini-image", model: "*", kind: "images" },
  reset: { price: imagePrice },
};

const errorExamples = {
  badMonth: { error: "invalid request", issues: [{ code: "invalid_format", path: ["month"], message: "must be a month like 2026-12" }] },
  badKind: { error: "invalid request", issues: [{ code: "invalid_value", path: ["kind"], message: "Invalid option" }] },
  noPrice: { error: "no price for nobody * images" },
};

const route = routesOf("spend");

export const spendRoutes = {
  getSpend: route({
    method: "get",
    path: "/pipeline/spend",
    operationId: "getSpend",
    summary: "A month's spend (UTC) by dimension and provider, with each model and unit kind, and each dimension's budget (mdame.get_spend)",
    description:
      "Every provider call is recorded with its units and its cost at the price in force; a call answered from a cache is counted in `cached_calls` at cost 0.",
    request: { query: SpendQuery },
    responses: {
      200: ok("The month's spend", bodies.SpendReport, "a month of one dimension", spendExamples.month),
      ...serviceErrors,
      400: ok(errors[400].description, bodies.ErrorAnswer, "a month that is no month", errorExamples.badMonth),
    },
  }),
  listPrices: route({
    method: "get",
    path: "/pipeline/prices",
    operationId: "listPrices",
    summary: "The price table: USD per unit for each provider, model (`*`: any) and unit kind, the defaults and the operator's overrides",
    responses: {
      200: ok("Every price", bodies.PriceList, "two defaults", spendExamples.prices),
      401: serviceErrors[401],
      500: serviceErrors[500],
    },
  }),
  setPrice: route({
    method: "put",
    path: "/pipeline/prices",
    operationId: "setPrice",
    summary: "The operator's price for one unit kind of a provider's model, from now on (calls recorded before keep theirs)",
    request: { body: body(bodies.PriceSet, true, { set: { summary: "cheaper images", value: spendExamples.setBody } }) },
    responses: {
      200: ok("The price row", bodies.ProviderPrice, "the override", spendExamples.set),
      ...serviceBodyErrors,
      400: ok(errors[400].description, bodies.ErrorAnswer, "an unknown unit kind", errorExamples.badKind),
    },
  }),
  resetPrice: route({
    method: "post",
    path: "/pipeline/prices/reset",
    operationId: "resetPrice",
    summary: "A price back to its default; a row the operator added is removed (`price` null)",
    request: { body: body(bodies.PriceReset, true, { reset: { summary: "images back to the default", value: spendExamples.resetBody } }) },
    responses: {
      200: answers("The row as it now stands", bodies.PriceResetResult, { reset: { summary: "the default again", value: spendExamples.reset } }),
      ...serviceBodyErrors,
      404: errors.notFound("price", errorExamples.noPrice),
    },
  }),
};
