/**
 * Connecting a YouTube channel to a dimension: the OAuth 2.0 installed-app flow with PKCE (S256)
 * and a loopback redirect, through google-auth-library's OAuth2Client; the channel found with the
 * YouTube Data API's `channels.list?mine=true` (googleapis' youtube client); then the refresh token
 * handed once to the operator API, which seals it. Nothing here prints or logs a token.
 */
import { randomBytes } from "node:crypto";
import { youtube } from "@googleapis/youtube";
import { CodeChallengeMethod, OAuth2Client } from "google-auth-library";
import { ChannelHandle, type ConnectedAccount } from "../shared/contracts/account.ts";
import type { ApiClient } from "./api-client.ts";
import { CliError, EXIT } from "./errors.ts";
import { listenForRedirect, showConsent } from "./loopback-redirect.ts";
import type { OAuthConfig } from "./oauth-config.ts";
import type { Screen } from "./output.ts";

/** Uploading videos, reading which channel the signed-in account owns, and reading how its videos did (YouTube Analytics). */
const YOUTUBE_SCOPES = [
  "https://www.googleapis.com/auth/youtube.upload",
  "https://www.googleapis.com/auth/youtube.readonly",
  "https://www.googleapis.com/auth/yt-analytics.readonly",
];

interface ConnectYouTubeOptions {
  dimension: string;
  /** The channel's handle, when it is not to be discovered through the YouTube Data API. */
  channel: string | null;
  /** Pre-selects the Google account on the consent screen. */
  loginHint: string | null;
  timeoutMs: number;
  openBrowser: boolean;
}

/** What a failed Google call says, without anything from the request (which carries secrets). */
function googleFailure(what: string, error: unknown): CliError {
  const failure = error as { status?: number; response?: { status?: number; data?: unknown }; code?: string; message?: string };
  const status = failure.response?.status ?? failure.status;
  const data = failure.response?.data as { error?: unknown; error_description?: unknown } | undefined;
  let detail: string;
  if (data && typeof data.error === "string") detail = `${data.error}${typeof data.error_description === "string" ? `: ${data.error_description}` : ""}`;
  else if (data && typeof data.error === "object" && data.error !== null) detail = String((data.error as { message?: unknown }).message ?? "error");
  else detail = failure.code ?? (status ? `HTTP ${status}` : "no answer");
  return new CliError(`${what} failed${status ? ` (HTTP ${status})` : ""}: ${detail}`, status ? EXIT.failure : EXIT.unreachable);
}

/** The channel the signed-in account owns, as `{handle, id}`. */
async function discoverChannel(client: OAuth2Client, apiBaseUrl: string): Promise<{ handle: string; id: string }> {
  const api = youtube({ version: "v3", auth: client, rootUrl: `${apiBaseUrl}/` });
  let items;
  try {
    items = (await api.channels.list({ part: ["snippet"], mine: true })).data.items ?? [];
  } catch (error) {
    throw googleFailure("finding the signed-in account's YouTube channel (channels.list)", error);
  }
  const channel = items[0];
  if (!channel?.id) throw new CliError("the signed-in Google account has no YouTube channel: create one, or sign in with another account", EXIT.failure);
  const handle = channel.snippet?.customUrl || channel.snippet?.title || channel.id;
  const parsed = ChannelHandle.safeParse(handle.startsWith("@") || handle === channel.id ? handle : `@${handle}`);
  return { handle: parsed.success ? parsed.data : channel.id, id: channel.id };
}

/**
 * Runs the whole connect: consent URL on `err` (and the browser), the redirect, the code exchange,
 * the channel, then POST /pipeline/accounts. Nothing is stored unless every step succeeded.
 */
export async function connectYouTube(options: ConnectYouTubeOptions, oauth: OAuthConfig, api: ApiClient, err: Screen): Promise<ConnectedAccount> {
  // Fails before the consent when the dimension does not exist (404).
  await api.showDimension(options.dimension);

  const state = randomBytes(32).toString("base64url");
  const redirect = await listenForRedirect(state, options.timeoutMs);
  try {
    const client = new OAuth2Client({
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      redirectUri: redirect.redirectUri,
      endpoints: { oauth2AuthBaseUrl: oauth.authUrl, oauth2TokenUrl: oauth.tokenUrl },
    });
    const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
    const consentUrl = client.generateAuthUrl({
      access_type: "offline",
      // Asks again even for an account that consented before, so Google issues a new refresh token.
      prompt: "consent",
      scope: YOUTUBE_SCOPES,
      state,
      code_challenge_method: CodeChallengeMethod.S256,
      code_challenge: codeChallenge,
      ...(options.loginHint ? { login_hint: options.loginHint } : {}),
    });
    showConsent(err, `To let mdame publish to a YouTube channel for dimension ${options.dimension}`, consentUrl, redirect.redirectUri, options);

    const code = await redirect.code;
    let tokens;
    try {
      tokens = (await client.getToken({ code, codeVerifier, redirect_uri: redirect.redirectUri })).tokens;
    } catch (error) {
      throw googleFailure("exchanging the authorization code", error);
    }
    if (!tokens.refresh_token) {
      throw new CliError(
        "Google answered without a refresh token: remove mdame's access at https://myaccount.google.com/permissions and connect again",
        EXIT.failure,
      );
    }
    client.setCredentials(tokens);

    const channel = options.channel !== null ? { handle: options.channel, id: null } : await discoverChannel(client, oauth.youtubeApiBaseUrl);
    return await api.connectAccount({
      dimension_id: options.dimension,
      platform: "youtube",
      channel_handle: channel.handle,
      channel_id: channel.id,
      refresh_token: tokens.refresh_token,
      // The client the grant was made through names the Google project whose quota the channel spends.
      oauth_client_id: oauth.clientId,
      // What the person allowed (Google lets them untick scopes): `mdame doctor` names a grant without analytics.
      ...(tokens.scope ? { granted_scopes: tokens.scope.split(/\s+/).filter(Boolean) } : {}),
    });
  } finally {
    await redirect.close();
  }
}
