/** What the operator routes share: bounded JSON bodies and reading RPC rows through their contracts. */
import type { z } from "zod";
import { PIPELINE_MAX_BODY_BYTES, readJsonBody } from "../../../shared/http/bounded-body.ts";

/**
 * A JSON body that may be empty, read up to the pipeline's cap (the app refuses larger ones before
 * any route runs); malformed JSON or a NUL character is the caller's mistake (400), not ours.
 */
export function jsonBody(request: Request): Promise<unknown> {
  return readJsonBody(request, PIPELINE_MAX_BODY_BYTES);
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
