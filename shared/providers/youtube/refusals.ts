/**
 * Which failures of a publish are YouTube or Google saying "not now" or "not this grant" rather
 * than a fault: the publish stage defers the account's publication on these instead of failing
 * the unit (docs/reference/distribution.md). Decided from the error class, status and reason code the
 * provider clients attach, never from the message.
 */
import { ProviderError } from "../errors.ts";

export type PublishRefusal =
  /** 403 `quotaExceeded` (domain youtube.quota): the Google project's bucket is spent for the Pacific day. */
  | { kind: "quota_exceeded" }
  /** 400 `uploadLimitExceeded`: the channel's rolling 24-hour upload cap is reached (web and mobile uploads count too). */
  | { kind: "upload_limit_exceeded" }
  /**
   * The token endpoint's 400 `invalid_grant` (expired or revoked) or `unauthorized_client` (the
   * refresh token was granted to another OAuth client than its project's), or a Data API 401 right
   * after a fresh token.
   */
  | { kind: "grant_refused"; reason: string };

export function classifyYouTubeRefusal(error: unknown): PublishRefusal | null {
  if (!(error instanceof ProviderError)) return null;
  if (error.provider === "google-oauth") {
    if (error.status === 400 && error.apiReason === "invalid_grant") return { kind: "grant_refused", reason: `invalid_grant: ${error.message}` };
    if ((error.status === 400 || error.status === 401) && error.apiReason === "unauthorized_client") {
      return {
        kind: "grant_refused",
        reason: `unauthorized_client: the refresh token was granted to another OAuth client than its Google project's (${error.message})`,
      };
    }
    return null;
  }
  // The Data API and the Analytics API answer in Google's one error format, reasons included.
  if (error.provider !== "youtube" && error.provider !== "youtube-analytics") return null;
  if (error.status === 403 && error.apiReason === "quotaExceeded") return { kind: "quota_exceeded" };
  if (error.status === 400 && error.apiReason === "uploadLimitExceeded") return { kind: "upload_limit_exceeded" };
  if (error.status === 401) return { kind: "grant_refused", reason: `YouTube refused a fresh access token (401): ${error.message}` };
  return null;
}
