/**
 * Access tokens for the YouTube Data API from a channel's refresh token, through
 * google-auth-library's OAuth2Client (refresh-token grant against `tokenUrl`). The client
 * caches the access token and refreshes it shortly before it expires, so keep one source per
 * channel for as long as it is needed. Runs in Deno and Bun.
 */
import { OAuth2Client } from "google-auth-library";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";

const PROVIDER = "google-oauth";

interface YouTubeAccessTokenSourceOptions {
  clientId: string;
  clientSecret: string;
  /** The OAuth 2.0 token endpoint, e.g. `https://oauth2.googleapis.com/token`. */
  tokenUrl: string;
  refreshToken: string;
}

interface YouTubeAccessTokenSource {
  /** A valid access token; refused grants throw ProviderRejectedError, outages ProviderUnavailableError. */
  getAccessToken(): Promise<string>;
}

export function createYouTubeAccessTokenSource(options: YouTubeAccessTokenSourceOptions): YouTubeAccessTokenSource {
  const client = new OAuth2Client({
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    endpoints: { oauth2TokenUrl: options.tokenUrl },
  });
  client.setCredentials({ refresh_token: options.refreshToken });

  return {
    async getAccessToken() {
      let token: string | null | undefined;
      try {
        token = (await client.getAccessToken()).token;
      } catch (error) {
        // gaxios errors carry the HTTP response; the OAuth error code is in its JSON body.
        const failure = error as { status?: number; response?: { status?: number; data?: { error?: string; error_description?: string } } };
        const status = failure.response?.status ?? failure.status;
        const detail = failure.response?.data?.error
          ? `${failure.response.data.error}: ${failure.response.data.error_description ?? ""}`
          : error instanceof Error
          ? error.message
          : String(error);
        const reason = failure.response?.data?.error;
        if (typeof status === "number") throw errorForStatus(PROVIDER, status, `token refresh failed (${status}) ${detail}`, error, reason);
        throw new ProviderUnavailableError(PROVIDER, `token refresh failed: ${detail}`, { cause: error });
      }
      if (!token) throw new ProviderUnavailableError(PROVIDER, "token endpoint answered without an access token");
      return token;
    },
  };
}
