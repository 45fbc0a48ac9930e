/**
 * Gemini: `models.get` of GEMINI_MODEL through @google/genai, the client the pipeline uses. It
 * proves the endpoint answers, the key is accepted and the model exists, without spending tokens.
 */
import { ApiError, GoogleGenAI } from "@google/genai";
import { type CheckResult, describeError, fail, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";
const NAME = "gemini";

/** Google's `{error:{message,status,details}}` inside an ApiError's message, when there is one. */
function googleErrorOf(error: ApiError): { message?: string; status?: string; reason?: string } {
  const start = error.message.indexOf("{");
  if (start < 0) return {};
  try {
    const body = JSON.parse(error.message.slice(start)) as { error?: { message?: string; status?: string; details?: { reason?: string }[] } };
    return { message: body.error?.message, status: body.error?.status, reason: body.error?.details?.find((d) => d.reason)?.reason };
  } catch {
    return {};
  }
}

export async function checkGemini(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const env = config.env;
  if (!env.GEMINI_API_KEY) return fail(FAMILY, NAME, "GEMINI_API_KEY is not set", hintFor("GEMINI_API_KEY"));
  const model = env.GEMINI_MODEL || "gemini-2.5-flash";
  const endpoint = env.GEMINI_BASE_URL || "https://generativelanguage.googleapis.com";
  const ai = new GoogleGenAI({
    apiKey: env.GEMINI_API_KEY,
    httpOptions: { baseUrl: env.GEMINI_BASE_URL || undefined, apiVersion: "v1beta", timeout: timeoutMs },
  });
  try {
    const found = await withTimeout(timeoutMs, () => ai.models.get({ model }));
    if (found.supportedActions && !found.supportedActions.includes("generateContent")) {
      return fail(FAMILY, NAME, `model ${model} does not support generateContent`, hintFor("GEMINI_MODEL"));
    }
    return ok(FAMILY, NAME, `key accepted; model ${model}${found.displayName ? ` (${found.displayName})` : ""} at ${endpoint}`);
  } catch (error) {
    if (error instanceof ApiError) {
      const google = googleErrorOf(error);
      const said = google.message ? `: ${google.message}` : "";
      if (
        google.reason === "API_KEY_INVALID" || error.status === 401 || error.status === 403 || (error.status === 400 && /API key/i.test(google.message ?? ""))
      ) {
        return fail(
          FAMILY,
          NAME,
          `${endpoint} refused GEMINI_API_KEY (HTTP ${error.status}${google.reason ? ` ${google.reason}` : ""}${said})`,
          hintFor("GEMINI_API_KEY"),
        );
      }
      if (error.status === 404) return fail(FAMILY, NAME, `model ${model} not found at ${endpoint}${said}`, hintFor("GEMINI_MODEL"));
      if (error.status === 429) {
        return warn(FAMILY, NAME, `key accepted, but quota exhausted (HTTP 429${said})`, "wait for the quota to reset, or raise it in Google AI Studio");
      }
      return fail(FAMILY, NAME, `${endpoint} answered HTTP ${error.status}${said}`);
    }
    return fail(
      FAMILY,
      NAME,
      `cannot reach ${endpoint}: ${describeError(error)}`,
      env.GEMINI_BASE_URL ? `check GEMINI_BASE_URL (${hintFor("GEMINI_BASE_URL")})` : "check this machine's network access to Google",
    );
  }
}
