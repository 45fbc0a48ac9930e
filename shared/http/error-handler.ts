import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { HTTPException } from "hono/http-exception";
import { ZodError } from "zod";
import type { ErrorAnswer, ErrorIssue } from "../contracts/http-error.ts";
import { EnvironmentMismatchError, InvalidSettingError, LockBusyError, mapDbError, NotFoundError, QuotaExhaustedError, WrongStateError } from "../db/errors.ts";
import { coerceError } from "../errors.ts";
import type { Logger } from "../logging/logger.ts";
import { visibleText } from "../text/storable.ts";
import { isBodyTooLargeError } from "./bounded-body.ts";
import { MalformedRequestError } from "./malformed-request.ts";

/** Issues and texts an answer or a log line carries at most: an error never echoes a huge input. */
const MAX_ISSUES = 20;
const MAX_TEXT = 200;
const MAX_LOGGED_MESSAGE = 2000;

/**
 * SQLSTATEs of text Postgres cannot store (a NUL, a character outside the encoding): the input's
 * fault. Bodies are checked for such text before any route runs (parseJsonText); this stays as
 * the second line. 22P02 (invalid_text_representation) is not here: it is also what a bad cast in
 * the engine's own SQL raises, a bug to log with an id, and the client's cases of it (a lone
 * surrogate in a JSON body, an id that is not a uuid) are refused before any SQL is sent.
 */
const UNSTORABLE_TEXT = new Set(["22021", "22P05"]);

/** At most `max` characters, with controls and bidi controls escaped: an answer never carries what a terminal acts on. */
function clip(text: string, max = MAX_TEXT): string {
  const shown = text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
  return visibleText(shown);
}

/** One issue without anything that repeats the input at length (unrecognized keys, long paths). */
function boundedIssue(issue: { code: string; path: readonly PropertyKey[]; message: string; keys?: unknown }): ErrorIssue {
  const out: ErrorIssue = {
    code: issue.code,
    path: issue.path.slice(0, 10).map((part) => (typeof part === "string" ? clip(part, 100) : typeof part === "number" ? part : String(part))),
    message: clip(issue.message),
  };
  if (Array.isArray(issue.keys)) out.keys = issue.keys.slice(0, 10).map((key) => clip(String(key), 100));
  return out;
}

/** Zod issues, bounded in count and length. */
function boundedIssues(error: ZodError): ErrorIssue[] {
  return error.issues.slice(0, MAX_ISSUES).map(boundedIssue);
}

/**
 * The one onError of every Hono app: contract errors -> 4xx with the Zod issues (bounded), engine
 * rule errors -> their status, everything else -> 500 with an id to find in the log. No stack
 * traces or secrets in a response, and no unbounded input in a response or a log line.
 */
export function createErrorHandler(logger: Logger) {
  const refuse = (c: Context, body: ErrorAnswer, status: ContentfulStatusCode) => c.json(body, status);
  return (thrown: unknown, c: Context) => {
    if (thrown instanceof MalformedRequestError && thrown.issue) {
      return refuse(c, { error: clip(thrown.message, 500), issues: [boundedIssue(thrown.issue)] }, 400);
    }
    if (thrown instanceof HTTPException) {
      return refuse(c, { error: clip(thrown.message || "request refused", 500) }, thrown.status);
    }
    // A runtime may wrap the capped stream's error when a route read the body itself.
    if (isBodyTooLargeError(thrown)) {
      return refuse(c, { error: "the body is larger than this endpoint accepts" }, 413);
    }
    if (thrown instanceof ZodError) {
      const issues = boundedIssues(thrown);
      return refuse(c, {
        error: "invalid request",
        issues,
        ...(thrown.issues.length > issues.length ? { more_issues: thrown.issues.length - issues.length } : {}),
      }, 400);
    }
    const code = (thrown as { code?: unknown })?.code;
    if (typeof code === "string" && UNSTORABLE_TEXT.has(code)) {
      return refuse(c, { error: "the request holds text that cannot be stored (a NUL character or an invalid sequence)" }, 400);
    }
    const error = coerceError(mapDbError(thrown));
    if (error instanceof InvalidSettingError) return refuse(c, { error: clip(error.message, 500) }, 400);
    if (error instanceof NotFoundError) return refuse(c, { error: clip(error.message, 500) }, 404);
    if (error instanceof LockBusyError || error instanceof WrongStateError) return refuse(c, { error: clip(error.message, 500) }, 409);
    if (error instanceof QuotaExhaustedError) return refuse(c, { error: clip(error.message, 500) }, 429);
    if (error instanceof EnvironmentMismatchError) return refuse(c, { error: clip(error.message, 500) }, 503);
    const errorId = crypto.randomUUID();
    logger.error({
      error_id: errorId,
      err: { type: error.name, message: clip(error.message, MAX_LOGGED_MESSAGE), stack: clip(error.stack ?? "", MAX_LOGGED_MESSAGE), code },
      path: clip(c.req.path),
      status: "failed",
    }, "unhandled error");
    return refuse(c, { error: "internal error", error_id: errorId }, 500);
  };
}
