/**
 * Which failures of an Instagram or Facebook publish are Meta saying "not this grant" or "not now"
 * rather than a fault, so the publish stage can mark the account or defer the publication. Decided
 * from the error class and Graph's code and subcode (Graph API, "Handling Errors"), never from the
 * message.
 *
 * - code 190 (the token expired, was invalidated or the app was removed) and the permission codes
 *   10 and 200-299 (the grant lacks a permission publishing needs): the account needs a new connect;
 *   so does the upload host's NotAuthorizedError for a token Graph just issued;
 * - code 9 (Instagram subcode 2207042, Facebook's Reels limit at the finish): the account's
 *   publishing limit of a moving 24 hours is reached;
 * - the rate limits, codes 4 (app), 17 (user), 32 (Page), 613 and 80001-80014 (Business Use Case):
 *   the calls may be made again later.
 */
import { MetaGraphError } from "./graph.ts";
import { MetaUploadError } from "./rupload.ts";

/** Meta's throttles clear within an hour ("Rate Limiting": the windows are one hour). */
const RATE_LIMIT_WAIT_MS = 60 * 60_000;

const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);

type MetaRefusal =
  | { kind: "needs_reconnect"; reason: string }
  | { kind: "posting_limit"; reason: string }
  | { kind: "rate_limited"; reason: string; notBefore: Date };

/** What a failure of a Meta call means for the account; null for any other failure. */
export function classifyMetaRefusal(error: unknown, now: Date = new Date()): MetaRefusal | null {
  if (error instanceof MetaUploadError) {
    return error.type === "NotAuthorizedError" ? { kind: "needs_reconnect", reason: `Meta's upload host refused the token (${error.type})` } : null;
  }
  if (!(error instanceof MetaGraphError)) return null;
  const sub = error.subcode === undefined ? "" : `/${error.subcode}`;
  if (error.code === 190) return { kind: "needs_reconnect", reason: `Meta refused the account's token (code 190${sub})` };
  if (error.code === 10 || (error.code >= 200 && error.code <= 299)) {
    return { kind: "needs_reconnect", reason: `the account's grant lacks a permission publishing needs (code ${error.code})` };
  }
  if (error.code === 9) return { kind: "posting_limit", reason: `Meta's publishing limit is reached (code 9${sub})` };
  if (RATE_LIMIT_CODES.has(error.code) || (error.code >= 80001 && error.code <= 80014)) {
    return { kind: "rate_limited", reason: `Meta throttles the calls (code ${error.code})`, notBefore: new Date(now.getTime() + RATE_LIMIT_WAIT_MS) };
  }
  return null;
}
