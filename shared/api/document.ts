/**
 * The OpenAPI 3.1 document of both Edge Functions, `pipeline` and `worker-callback`, generated from
 * their route declarations (shared/api/routes) by @hono/zod-openapi. Paths carry each function's
 * name (`/pipeline/...`, `/worker-callback`), so the one server is FUNCTIONS_URL, where Supabase and
 * the local edge host route both (docs/reference/api.md).
 */
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { SERVICE_ROLE, TAGS, WEBHOOK_SIGNATURE } from "./kit.ts";
import { pipelineRoutes } from "./routes/index.ts";
import { workerCallbackRoutes } from "./routes/worker-callback.ts";

/** Every route of both functions, in the order the document lists them. */
export const allRoutes: readonly RouteConfig[] = [...Object.values(pipelineRoutes), ...Object.values(workerCallbackRoutes)];

/** The document for functions served at `functionsUrl` (`https://<project>.supabase.co/functions/v1`). */
export function openApiDocument(functionsUrl: string, routes: readonly RouteConfig[] = allRoutes): Record<string, unknown> {
  const declared = new OpenAPIHono();
  for (const route of routes) declared.openAPIRegistry.registerPath(route);
  declared.openAPIRegistry.registerComponent("securitySchemes", SERVICE_ROLE, {
    type: "http",
    scheme: "bearer",
    description: "The project's service-role key (SERVICE_ROLE_KEY)",
  });
  declared.openAPIRegistry.registerComponent("securitySchemes", WEBHOOK_SIGNATURE, {
    type: "apiKey",
    in: "header",
    name: "webhook-signature",
    description:
      "Standard Webhooks: `webhook-signature` holds HMAC-SHA256 signatures of `webhook-id.webhook-timestamp.body` with WEBHOOK_SECRET; the three headers are described on the operation",
  });
  const document = declared.getOpenAPI31Document({
    openapi: "3.1.1",
    info: {
      title: "MD-AME Edge Functions",
      version: "0.1.0",
      description: [
        "The `pipeline` function (runs, the tick, the operator API the `mdame` CLI calls) and the `worker-callback` function (signed deliveries from the Bun workers).",
        "Each route is declared once with its Zod contracts: the functions check requests and shape answers with the declaration, and `mdame` calls it through Hono's typed client and parses the answers with the same contracts.",
        "Every error answer is an `ErrorAnswer`. A path asked with a method it does not serve is 405 with an `Allow` header; an unknown path is 404.",
      ].join(" "),
    },
    servers: [{ url: functionsUrl.replace(/\/+$/, ""), description: "FUNCTIONS_URL: where both functions are served" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  });
  return { ...document, paths: Object.fromEntries(Object.entries(document.paths ?? {}).sort(([a], [b]) => a.localeCompare(b))) };
}
