/**
 * YouTube upload host: the resumable-upload endpoint the publish stage uses must answer like
 * Google's API. Asked without credentials it answers 401 and starts nothing, so the check never
 * creates an upload session.
 */
import { type CheckResult, describeError, fail, ok, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";
const NAME = "youtube";

export async function checkYouTube(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const base = config.env.YOUTUBE_UPLOAD_BASE_URL || "https://www.googleapis.com";
  let url: URL;
  try {
    url = new URL("/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status", base);
  } catch {
    return fail(FAMILY, NAME, "YOUTUBE_UPLOAD_BASE_URL is not a URL", hintFor("YOUTUBE_UPLOAD_BASE_URL"));
  }
  try {
    const response = await withTimeout(
      timeoutMs,
      (signal) => fetch(url, { method: "POST", headers: { "content-type": "application/json; charset=UTF-8" }, body: "{}", signal }),
    );
    const body = await response.text().catch(() => "");
    let googleShaped = false;
    try {
      googleShaped = typeof (JSON.parse(body) as { error?: { code?: unknown } }).error?.code === "number";
    } catch {
      googleShaped = false;
    }
    if (response.status === 401 && googleShaped) return ok(FAMILY, NAME, `upload host ${base} answers (401 without credentials, as expected)`);
    return fail(
      FAMILY,
      NAME,
      `upload host ${base} answered HTTP ${response.status}${
        googleShaped ? "" : " without Google's error body"
      }; expected 401 to a request without credentials`,
      hintFor("YOUTUBE_UPLOAD_BASE_URL"),
    );
  } catch (error) {
    return fail(FAMILY, NAME, `cannot reach ${base}: ${describeError(error)}`, `check YOUTUBE_UPLOAD_BASE_URL: ${hintFor("YOUTUBE_UPLOAD_BASE_URL")}`);
  }
}
