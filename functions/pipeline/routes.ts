/**
 * Serves the declared routes (shared/api/routes): each with the handler of its name, behind the
 * service-role bearer when its declaration asks for it (checked before anything else of the request), its request checked by the declaration's
 * schemas before the handler runs, and its answer shaped by the declaration (`reply`).
 */
import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { PatternRouter } from "hono/router/pattern-router";
import { SERVICE_ROLE } from "../../shared/api/kit.ts";
import { type PipelineRouteName, type PipelineRoutes, pipelineRoutes } from "../../shared/api/routes/index.ts";
import { parseJsonText, PIPELINE_MAX_BODY_BYTES, readBoundedText, withJsonBody } from "../../shared/http/bounded-body.ts";
import { requireServiceRole } from "../../shared/http/service-auth.ts";

/** The handlers of some declared routes, by name; the compiler holds each to its route's types. */
export type Handlers<K extends PipelineRouteName> = { [N in K]: RouteHandler<PipelineRoutes[N]> };

/**
 * Reads a JSON body with the pipeline's cap whatever its content type says (an empty body is `{}`;
 * malformed JSON or text that cannot be stored is a 400: parseJsonText) and hands the same text on
 * as `application/json`, so the declaration's schema checks every body a route receives: `null`, or
 * a body sent as text, is never taken for an empty one. The text itself goes on, not a copy written
 * again, so what the schema sees is what the client sent (`1e400` stays Infinity, never `null`).
 */
const jsonRequestBody: MiddlewareHandler = async (c, next) => {
  const text = await readBoundedText(c.req.raw, PIPELINE_MAX_BODY_BYTES);
  if (text.trim() !== "") parseJsonText(text);
  c.req.raw = withJsonBody(c.req.raw, text.trim() === "" ? "{}" : text);
  await next();
};

/** Whether a declaration asks for the service-role bearer. */
const needsServiceRole = (route: RouteConfig) => (route.security ?? []).some((scheme) => SERVICE_ROLE in scheme);

/**
 * The bearer, asked of every request to a path a route behind it serves, whatever the method: an
 * unauthenticated caller learns nothing of the methods served there (401, never the 405's `Allow`).
 * A path no declared route serves stays 404, and the routes that ask for nothing stay open.
 */
function bearerForDeclaredPaths(serviceRoleKey: string): MiddlewareHandler {
  const auth = requireServiceRole(serviceRoleKey);
  const guarded = new PatternRouter<true>();
  for (const route of Object.values(pipelineRoutes) as RouteConfig[]) {
    if (needsServiceRole(route)) guarded.add("ALL", route.path.replaceAll(/\{([^}]+)\}/g, ":$1"), true);
  }
  return async (c, next) => {
    if (guarded.match("ALL", c.req.path)[0].length > 0) return await auth(c, next);
    await next();
  };
}

/** Serves every declared route with its handler: the bearer first, then the body, then the declaration's checks. */
export function serveRoutes(app: OpenAPIHono, serviceRoleKey: string, handlers: Handlers<PipelineRouteName>): void {
  app.use("*", bearerForDeclaredPaths(serviceRoleKey));
  for (const name of Object.keys(pipelineRoutes) as PipelineRouteName[]) {
    const route: RouteConfig = pipelineRoutes[name];
    app.openapi({ ...route, middleware: route.request?.body ? [jsonRequestBody] : [] }, handlers[name] as never);
  }
}
