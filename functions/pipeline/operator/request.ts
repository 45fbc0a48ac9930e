/** What the operator routes share: bounded JSON bodies and reading RPC rows through their contracts. */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";

/** A dimension config or an account connect fits in a few KiB; anything near this is not one. */
export const MAX_OPERATOR_BODY_BYTES = 64 * 1024;

/** Refuses bodies over the bound with 413 before they are read whole. */
export const limitBody: MiddlewareHandler = bodyLimit({
  maxSize: MAX_OPERATOR_BODY_BYTES,
  onError: (c) => c.json({ error: `the body is over ${MAX_OPERATOR_BODY_BYTES} bytes` }, 413),
});

/** A JSON body that may be empty; malformed JSON is the caller's mistake (400), not ours. */
export async function jsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HTTPException(400, { message: "the body is not valid JSON" });
  }
}

/**
 * Reads what an RPC returned through its contract. A mismatch is the engine's fault, not the
 * caller's: a plain Error (500 with an id in the log), never the ZodError the onError turns into 400.
 */
export function fromDb<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} broke its contract: ${parsed.error.message}`);
  return parsed.data;
}

export const iso = (value: unknown): string | null => (value == null ? null : value instanceof Date ? value.toISOString() : String(value));
export const int = (value: unknown): number | null => (value == null ? null : Number(value));
