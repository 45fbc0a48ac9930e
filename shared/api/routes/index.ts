/**
 * Every route of the `pipeline` Edge Function, declared once: the function serves each with the
 * handler of the same name (functions/pipeline/routes.ts refuses to compile without one), the
 * OpenAPI document is generated from them (shared/api/document.ts), and the CLI and the dashboard
 * call them through Hono's typed client with `PipelineApi` (cli/api-client.ts).
 *
 * A new route is one declaration in the file of its kind, under its operationId, made with the
 * file's `routesOf(tag)` (shared/api/kit.ts: `createRoute` with the tag and the security filled in):
 * method, full path with `{param}`, summary, the schemas of its parameters, query and body, and its
 * answers, each with an example.
 */
import type { RouteConfig, RouteConfigToTypedResponse, RouteHandler } from "@hono/zod-openapi";
import type { Env, Handler, Hono, ToSchema } from "hono";
import { accountRoutes } from "./accounts.ts";
import { adaptRoutes } from "./adapt.ts";
import { dimensionRoutes } from "./dimensions.ts";
import { housekeepingRoutes } from "./housekeeping.ts";
import { opsRoutes } from "./ops.ts";
import { reportRoutes } from "./reports.ts";
import { reviewRoutes } from "./reviews.ts";
import { runRoutes } from "./runs.ts";
import { spendRoutes } from "./spend.ts";

export const pipelineRoutes = {
  ...runRoutes,
  ...dimensionRoutes,
  ...accountRoutes,
  ...reportRoutes,
  ...adaptRoutes,
  ...reviewRoutes,
  ...opsRoutes,
  ...housekeepingRoutes,
  ...spendRoutes,
};
export type PipelineRoutes = typeof pipelineRoutes;
export type PipelineRouteName = keyof PipelineRoutes;

/** `/pipeline/runs/{id}` as Hono routes it: `/pipeline/runs/:id`. */
type HonoPath<T extends string> = T extends `${infer Start}/{${infer Param}}${infer Rest}` ? `${Start}/:${Param}${HonoPath<Rest>}` : T;
/** What a route accepts (params, query, json), as its handler sees it. */
type InputOf<R extends RouteConfig> = RouteHandler<R> extends Handler<Env, string, infer I, infer _> ? I : never;
type RouteSchema<R extends RouteConfig> = ToSchema<R["method"], HonoPath<R["path"]>, InputOf<R>, RouteConfigToTypedResponse<R>>;
type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/** The `pipeline` function as Hono's typed client (`hc<PipelineApi>`) sees it: every declared route. */
export type PipelineApi = Hono<Env, Intersection<{ [K in PipelineRouteName]: RouteSchema<PipelineRoutes[K]> }[PipelineRouteName]>, "/">;
