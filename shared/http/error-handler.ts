import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ZodError } from "zod";
import { EnvironmentMismatchError, LockBusyError, mapDbError, NotFoundError, QuotaExhaustedError, WrongStateError } from "../db/errors.ts";
import { coerceError } from "../errors.ts";
import type { Logger } from "../logging/logger.ts";

/**
 * The one onError of every Hono app: contract errors -> 4xx with the Zod issues, engine rule
 * errors -> their status, everything else -> 500 with an id to find in the log. No stack traces
 * or secrets in a response.
 */
export function createErrorHandler(logger: Logger) {
  return (thrown: unknown, c: Context) => {
    if (thrown instanceof HTTPException) {
      return c.json({ error: thrown.message || "request refused" }, thrown.status);
    }
    if (thrown instanceof ZodError) {
      return c.json({ error: "invalid request", issues: thrown.issues }, 400);
    }
    const error = coerceError(mapDbError(thrown));
    if (error instanceof NotFoundError) return c.json({ error: error.message }, 404);
    if (error instanceof LockBusyError || error instanceof WrongStateError) return c.json({ error: error.message }, 409);
    if (error instanceof QuotaExhaustedError) return c.json({ error: error.message }, 429);
    if (error instanceof EnvironmentMismatchError) return c.json({ error: error.message }, 503);
    const errorId = crypto.randomUUID();
    logger.error({ error_id: errorId, err: error, path: c.req.path }, "unhandled error");
    return c.json({ error: "internal error", error_id: errorId }, 500);
  };
}
