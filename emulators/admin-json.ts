/**
 * Reading an admin route's JSON body: at most `maxBytes` (413 past it, nothing more is read), UTF-8
 * JSON (400 otherwise), an object (400 for an array or a scalar). An empty body reads as `{}`. Any
 * string JSON can carry is kept, NUL and lone surrogates included: a fault may serve such text to
 * the engine on purpose.
 */
import { isBodyTooLargeError, readBoundedText } from "../shared/http/bounded-body.ts";
import { jsonResponse } from "./context.ts";

const ADMIN_BODY_BYTES = 16 * 1024;

export async function readAdminJson(req: Request, maxBytes = ADMIN_BODY_BYTES): Promise<Record<string, unknown> | Response> {
  let text: string;
  try {
    text = await readBoundedText(req, maxBytes);
  } catch (error) {
    if (isBodyTooLargeError(error)) return jsonResponse({ error: `body must be at most ${maxBytes} bytes` }, 413);
    return jsonResponse({ error: "the body is not valid UTF-8" }, 400);
  }
  let body: unknown = {};
  try {
    if (text.trim() !== "") body = JSON.parse(text);
  } catch {
    return jsonResponse({ error: "the body is not valid JSON" }, 400);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return jsonResponse({ error: "body must be a JSON object" }, 400);
  return body as Record<string, unknown>;
}

/** An error message when `body` has keys outside `allowed`. */
export function unknownKeys(body: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  const extra = Object.keys(body).filter((key) => !allowed.includes(key));
  return extra.length > 0 ? `unknown keys: ${extra.join(", ")} (allowed: ${allowed.join(", ")})` : undefined;
}

/**
 * A whole admin body of any JSON value, for the bodies larger than the 16 KiB an admin object
 * gets (a posted feed, the fooled models' attacks): read whole, 413 past `maxChars` characters,
 * 400 when it is not JSON (an empty body included).
 */
export async function readJsonValue(req: Request, maxChars: number): Promise<{ value: unknown } | Response> {
  const text = await req.text();
  if (text.length > maxChars) return jsonResponse({ error: `body must be at most ${maxChars} bytes` }, 413);
  try {
    return { value: JSON.parse(text) };
  } catch {
    return jsonResponse({ error: "body must be JSON" }, 400);
  }
}
