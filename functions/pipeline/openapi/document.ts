/**
 * The OpenAPI 3.1 document of both Edge Functions, `pipeline` and `worker-callback`, and the route
 * that serves it: `GET /pipeline/openapi.json`, no auth (it describes the API and holds nothing
 * secret). Paths carry each function's name (`/pipeline/...`, `/worker-callback`), so the one
 * server is FUNCTIONS_URL, where Supabase and the local edge host route both (docs/reference/api.md).
 */
import type { Env, Hono, Schema } from "hono";
import { buildOpenApiDocument } from "../../../shared/http/openapi.ts";
import { components } from "./components.ts";
import { SERVICE_ROLE, WEBHOOK_SIGNATURE } from "./responses.ts";
import { routeDocs } from "./routes.ts";

const OPENAPI_PATH = "/openapi.json";

/** The document for functions served at `functionsUrl` (`https://<project>.supabase.co/functions/v1`). */
export function openApiDocument(functionsUrl: string): Record<string, unknown> {
  return buildOpenApiDocument({
    info: {
      title: "MD-AME Edge Functions",
      version: "0.1.0",
      description: [
        "The `pipeline` function (runs, the tick, the operator API the `mdame` CLI calls) and the `worker-callback` function (signed deliveries from the Bun workers).",
        "Bodies are the Zod contracts of shared/contracts: the routes parse requests and build answers with them, and `mdame` parses the answers with the same ones.",
        "Every error answer is an `ErrorAnswer`. A path asked with a method it does not serve is 405 with an `Allow` header; an unknown path is 404.",
      ].join(" "),
    },
    servers: [{ url: functionsUrl.replace(/\/+$/, ""), description: "FUNCTIONS_URL: where both functions are served" }],
    tags: [
      { name: "pipeline", description: "The function itself" },
      { name: "runs", description: "Runs, the tick, dead letters" },
      { name: "dimensions", description: "Dimensions (`mdame dimension`)" },
      { name: "accounts", description: "Publishing accounts (`mdame account`)" },
      { name: "credentials", description: "Key rotation (`mdame credentials`, docs/guides/rotation.md)" },
      { name: "alerts", description: "Alerts (`mdame alerts`, docs/reference/alerts.md)" },
      { name: "reports", description: "Weekly reports (`mdame report`)" },
      { name: "adapt", description: "The adaptive engine (`mdame adapt`, docs/reference/adaptive.md)" },
      { name: "ops", description: "The ops dashboard's views (`mdame dashboard`, docs/reference/ops-api.md)" },
      {
        name: "housekeeping",
        description: "Retention, housekeeping passes and sizes (`mdame housekeeping`, `mdame storage usage`, docs/reference/retention.md)",
      },
      { name: "worker-callback", description: "The `worker-callback` function: Standard Webhooks deliveries from the workers" },
    ],
    securitySchemes: {
      [SERVICE_ROLE]: { type: "http", scheme: "bearer", description: "The project's service-role key (SERVICE_ROLE_KEY)" },
      [WEBHOOK_SIGNATURE]: {
        type: "apiKey",
        in: "header",
        name: "webhook-signature",
        description:
          "Standard Webhooks: `webhook-signature` holds HMAC-SHA256 signatures of `webhook-id.webhook-timestamp.body` with WEBHOOK_SECRET; the three headers are described on the operation",
      },
    },
    components,
    routes: routeDocs,
  });
}

/** Serves the document, built once per process (on the first request) with its ETag. */
export function registerOpenApiRoute<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, functionsUrl: string): void {
  let served: Promise<{ text: string; etag: string }> | undefined;
  const build = async () => {
    const text = JSON.stringify(openApiDocument(functionsUrl));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    const etag = `"${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
    return { text, etag };
  };
  app.get(OPENAPI_PATH, async (c) => {
    served ??= build().catch((error) => {
      served = undefined;
      throw error;
    });
    const { text, etag } = await served;
    c.header("ETag", etag);
    c.header("Cache-Control", "public, max-age=300");
    const asked = c.req.header("if-none-match");
    if (asked !== undefined && asked.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) return c.body(null, 304);
    return c.body(text, 200, { "Content-Type": "application/json; charset=utf-8" });
  });
}
