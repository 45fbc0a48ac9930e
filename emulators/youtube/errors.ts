/**
 * The Data API's error answers: `{error:{code, message, errors:[{message, domain, reason}], status}}`,
 * as Google documents them for YouTube.
 */
import { jsonResponse } from "../context.ts";

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  429: "RESOURCE_EXHAUSTED",
  503: "UNAVAILABLE",
};

export function apiError(code: number, reason: string, message: string, extra: Record<string, unknown> = {}, domain = "youtube.video"): Response {
  return jsonResponse(
    { error: { code, message, errors: [{ message, domain, reason, ...extra }], status: STATUS[code] ?? "UNKNOWN" } },
    code,
    code === 401 ? { "www-authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"' } : {},
  );
}

/** The project's daily quota is spent (it resets at midnight Pacific time). */
export const quotaExceeded = () => apiError(403, "quotaExceeded", "The request cannot be completed because you have exceeded your quota.", {}, "youtube.quota");

export const rateLimited = () =>
  apiError(429, "rateLimitExceeded", "The request cannot be completed because you have exceeded your rate limit.", {}, "youtube.quota");

/** The channel has used its rolling 24-hour upload allowance. */
export const uploadLimitExceeded = () => apiError(400, "uploadLimitExceeded", "The user has exceeded the number of videos they may upload.");

export const unauthorized = () =>
  apiError(
    401,
    "authError",
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    { location: "Authorization", locationType: "header" },
    "global",
  );
