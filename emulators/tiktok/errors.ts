/**
 * TikTok's error answers. The Content Posting API (API v2) answers `{data: {}, error: {code,
 * message, log_id}}`, `code` a readable string (`ok` on success); OAuth v2 answers `{error,
 * error_description, log_id}`. Every answer carries a fresh log id, as TikTok's do.
 */
import { randomBytes } from "node:crypto";
import { jsonResponse } from "../context.ts";

export function logId(): string {
  // TikTok's log ids: a timestamp followed by hex, e.g. 202312011200000A1B2C3D4E5F.
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  return `${stamp}${randomBytes(9).toString("hex").toUpperCase()}`;
}

/** A successful API v2 answer: `data` and `error.code: "ok"`. */
export function apiOk(data: unknown): Response {
  return jsonResponse({ data, error: { code: "ok", message: "", log_id: logId() } });
}

/** An API v2 error: `{data: {}, error: {code, message, log_id}}` with its HTTP status. */
export function apiError(status: number, code: string, message: string): Response {
  return jsonResponse({ data: {}, error: { code, message, log_id: logId() } }, status);
}

export const accessTokenInvalid = () => apiError(401, "access_token_invalid", "The access token is invalid or not found in the request.");

export const scopeNotAuthorized = (scope: string) =>
  apiError(401, "scope_not_authorized", `The user did not authorize the scope required for completing this request: ${scope}.`);

export const rateLimitExceeded = () => apiError(429, "rate_limit_exceeded", "The API rate limit was exceeded. Please try again later.");

export const invalidParams = (message: string) => apiError(400, "invalid_params", message);

/** An OAuth v2 error: `{error, error_description, log_id}`. */
export function oauthError(status: number, error: string, description: string): Response {
  return jsonResponse({ error, error_description: description, log_id: logId() }, status);
}
