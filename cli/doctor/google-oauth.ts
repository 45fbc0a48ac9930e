/**
 * Google OAuth: is the client (GOOGLE_OAUTH_CLIENT_ID / _SECRET) accepted by the token endpoint?
 * A refresh grant with a made-up refresh token, through google-auth-library as the publish stage
 * uses it, must be refused with `invalid_grant` (the client is known, the token is not), never
 * with `invalid_client` (the client itself is wrong).
 */
import { OAuth2Client } from "google-auth-library";
import { type CheckResult, describeError, fail, ok, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";
const NAME = "google-oauth";
const PROBE_REFRESH_TOKEN = "mdame-doctor-probe-not-a-real-token";

interface GaxiosFailure {
  status?: number;
  response?: { status?: number; data?: { error?: string; error_description?: string } | string };
}

export async function checkGoogleOAuth(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const env = config.env;
  const tokenUrl = env.GOOGLE_OAUTH_TOKEN_URL || "https://oauth2.googleapis.com/token";
  const missing = ["GOOGLE_OAUTH_CLIENT_ID", "GOOGLE_OAUTH_CLIENT_SECRET"].filter((k) => !env[k]);
  if (missing.length > 0) return fail(FAMILY, NAME, `${missing.join(" and ")} not set`, hintFor("GOOGLE_OAUTH_CLIENT_ID"));
  const client = new OAuth2Client({
    clientId: env.GOOGLE_OAUTH_CLIENT_ID,
    clientSecret: env.GOOGLE_OAUTH_CLIENT_SECRET,
    endpoints: { oauth2TokenUrl: tokenUrl },
  });
  client.setCredentials({ refresh_token: PROBE_REFRESH_TOKEN });
  try {
    await withTimeout(timeoutMs, () => client.getAccessToken());
    return fail(
      FAMILY,
      NAME,
      `${tokenUrl} issued a token for a made-up refresh token: this is not a Google OAuth token endpoint`,
      hintFor("GOOGLE_OAUTH_TOKEN_URL"),
    );
  } catch (error) {
    const failure = error as GaxiosFailure;
    const status = failure.response?.status ?? failure.status;
    const data = failure.response?.data;
    const code = typeof data === "object" && data !== null ? data.error : undefined;
    if (code === "invalid_grant") return ok(FAMILY, NAME, `client accepted by ${tokenUrl} (a made-up refresh token is refused with invalid_grant)`);
    if (code === "invalid_client" || code === "unauthorized_client") {
      return fail(
        FAMILY,
        NAME,
        `${tokenUrl} refused the OAuth client (${code}): GOOGLE_OAUTH_CLIENT_ID or GOOGLE_OAUTH_CLIENT_SECRET is wrong`,
        hintFor("GOOGLE_OAUTH_CLIENT_ID"),
      );
    }
    if (typeof status === "number") {
      return fail(
        FAMILY,
        NAME,
        `${tokenUrl} answered HTTP ${status}${code ? ` (${code})` : ""}, not an OAuth refusal of the grant`,
        hintFor("GOOGLE_OAUTH_TOKEN_URL"),
      );
    }
    return fail(FAMILY, NAME, `cannot reach ${tokenUrl}: ${describeError(error)}`, `check GOOGLE_OAUTH_TOKEN_URL: ${hintFor("GOOGLE_OAUTH_TOKEN_URL")}`);
  }
}
