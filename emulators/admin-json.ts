/**
 * Reading an admin route's JSON body: at most `maxBytes` (413 past it, nothing more is read), valid
 * JSON (400 otherwise), an object (400 for an array or a scalar). An empty body reads as `{}`.
 */
import { isBodyTooLargeError, readJsonBody } from "../shared/http/bounded-body.ts";
import { jsonResponse } from "./context.ts";

export const ADMIN_BODY_BYTES = 16 * 1024;

export async function readAdminJson(req: Request, maxBytes = ADMIN_BODY_BYTES): Promise<Record<string, unknown> | Response> {
  let body: unknown;
  try {
    body = await readJsonBody(req, maxBytes);
  } catch (error) {
    if (isBodyTooLargeError(error)) return jsonResponse({ error: `body must be at most ${maxBytes} bytes` }, 413);
    return jsonResponse({ error: error instanceof Error ? error.message : "the body could not be read" }, 400);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return jsonResponse({ error: "body must be a JSON object" }, 400);
  return body as Record<string, unknown>;
}

/** An error message when `body` has keys outside `allowed`. */
export function unknownKeys(body: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  const extra = Object.keys(body).filter((key) => !allowed.includes(key));
  return extra.length > 0 ? `unknown keys: ${extra.join(", ")} (allowed: ${allowed.join(", ")})` : undefined;
}
