import type { MiddlewareHandler } from "hono";
import { formatJsonPath, type JsonPath, unstorableTextReason } from "../text/storable.ts";
import { MalformedRequestError } from "./malformed-request.ts";

/**
 * The URL's text as the routes read it: every path segment and every query key and value,
 * percent-decoded. A byte sequence that is not UTF-8 (`%ED%A0%80`, a surrogate's bytes) would reach
 * a route as undecoded text or, through URLSearchParams, as U+FFFD; a `%00` as a NUL. Both are
 * refused here, for every route of an app, before any route reads a parameter.
 */

function decoded(part: string, plusIsSpace: boolean): string | undefined {
  try {
    return decodeURIComponent(plusIsSpace ? part.replaceAll("+", " ") : part);
  } catch {
    return undefined;
  }
}

function refuse(path: JsonPath, reason: string): never {
  throw new MalformedRequestError(`${formatJsonPath(path)}: ${reason}`, { code: "unstorable_text", path, message: reason });
}

/** Checks one percent-encoded part of the URL; gives back its decoded text. */
function check(raw: string, plusIsSpace: boolean, path: () => JsonPath): string {
  const text = decoded(raw, plusIsSpace);
  if (text === undefined) refuse(path(), "is not percent-encoded UTF-8 text");
  const reason = unstorableTextReason(text);
  if (reason) refuse(path(), reason);
  return text;
}

/** Refuses (400, naming `query.<key>` or `path[<segment>]`) a URL part that is not storable text. */
export function refuseUnstorableUrlText(): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    url.pathname.split("/").forEach((segment, index) => check(segment, false, () => ["path", index]));
    for (const pair of url.search.slice(1).split("&")) {
      if (pair === "") continue;
      const equals = pair.indexOf("=");
      const rawKey = equals === -1 ? pair : pair.slice(0, equals);
      const key = check(rawKey, true, () => ["query", rawKey]);
      if (equals !== -1) check(pair.slice(equals + 1), true, () => ["query", key]);
    }
    await next();
  };
}
