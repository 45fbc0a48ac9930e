/**
 * A Data API error answer as the engine acts on it: Google's `{error: {message, errors: [{reason}]}}`
 * read into a ProviderError with the HTTP status and the first reason (quotaExceeded, forbidden,
 * invalidImage, ...), retriable for 429 and 5xx (errorForStatus). Shared by every Data API call the
 * engine speaks directly.
 */
import { errorForStatus, type ProviderError } from "../errors.ts";

/** Google's error body's message and first reason; the text itself when it is not JSON. */
export async function googleErrorOf(response: Response): Promise<{ message: string; reason: string | undefined }> {
  const text = await response.text().catch(() => "");
  let message = text.slice(0, 300);
  let reason: string | undefined;
  try {
    const body = JSON.parse(text);
    message = body?.error?.message ?? message;
    const first = Array.isArray(body?.error?.errors) ? body.error.errors[0]?.reason : undefined;
    reason = typeof first === "string" ? first : undefined;
  } catch { /* not JSON: keep the text */ }
  return { message, reason };
}

/** The error a failed Data API answer means, `what` naming the call. */
export async function dataApiError(provider: string, response: Response, what: string): Promise<ProviderError> {
  const { message, reason } = await googleErrorOf(response);
  return errorForStatus(provider, response.status, `${what}: YouTube answered ${response.status}${reason ? ` ${reason}` : ""}: ${message}`, undefined, reason);
}
