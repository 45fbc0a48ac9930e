/**
 * GET /pipeline/openapi.json: the OpenAPI 3.1 document of both Edge Functions (shared/api/document.ts),
 * no auth (it describes the API and holds nothing secret), with an ETag.
 */
import type { Context } from "hono";
import { openApiDocument } from "../../shared/api/document.ts";

/** The route's handler: the document is built once per process (on the first request) with its ETag. */
export function serveOpenApiDocument(functionsUrl: string) {
  let served: Promise<{ text: string; etag: string }> | undefined;
  const build = async () => {
    const text = JSON.stringify(openApiDocument(functionsUrl));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    const etag = `"${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
    return { text, etag };
  };
  return async (c: Context): Promise<never> => {
    served ??= build().catch((error) => {
      served = undefined;
      throw error;
    });
    const { text, etag } = await served;
    c.header("ETag", etag);
    c.header("Cache-Control", "public, max-age=300");
    const asked = c.req.header("if-none-match");
    if (asked !== undefined && asked.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) return c.body(null, 304) as never;
    return c.body(text, 200, { "Content-Type": "application/json; charset=utf-8" }) as never;
  };
}
