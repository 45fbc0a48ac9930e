/**
 * Connecting a TikTok account to a dimension: Login Kit's OAuth 2.0 v2 flow for desktop apps, with
 * PKCE (TikTok's hex SHA-256 challenge) and a loopback redirect (loopback-redirect.ts), spoken by
 * shared/providers/tiktok/oauth.ts; then the refresh token handed once to the operator API, which
 * seals it. Nothing here prints or logs a token.
 *
 * The creator's handle is not read from TikTok: its user info (`GET /v2/user/info/`) gives the
 * username only with the `user.info.profile` scope, and the emulator does not serve that endpoint.
 * The operator names the handle with `--channel @handle`; the account is recorded with the grant's
 * `open_id` as its channel id.
 */
import { randomBytes } from "node:crypto";
import type { ConnectedAccount } from "../shared/contracts/account.ts";
import { ProviderError } from "../shared/providers/errors.ts";
import { buildAuthorizeUrl, createCodeVerifier, exchangeCode, type TikTokTokenSet } from "../shared/providers/tiktok/oauth.ts";
import type { ApiClient } from "./api-client.ts";
import { CliError, EXIT } from "./errors.ts";
import { listenForRedirect, showConsent } from "./loopback-redirect.ts";
import type { TikTokOAuthConfig } from "./oauth-config.ts";
import type { Screen } from "./output.ts";

/**
 * Reading the creator's basic profile, posting videos (Direct Post) and uploading them, and reading
 * the counters of their posts (Display API video/query, shared/providers/tiktok/video-query.ts).
 */
export const TIKTOK_SCOPES = ["user.info.basic", "video.publish", "video.upload", "video.list"];

/** The scope publishing cannot do without (Content Posting API, Direct Post). */
const REQUIRED_SCOPE = "video.publish";

interface ConnectTikTokOptions {
  dimension: string;
  /** The creator's handle as the operator gives it (`@name`); see tiktokHandle. */
  channel: string;
  /** Passed on as `login_hint`: TikTok ignores it, the emulator signs in as that user. */
  loginHint: string | null;
  timeoutMs: number;
  openBrowser: boolean;
}

/**
 * A TikTok handle as accounts record it, `@name`, from what the operator typed (`name` or
 * `@name`); null when it is not one word of at most 100 characters without spaces, quotes or angle
 * brackets. Pure, for tests.
 */
export function tiktokHandle(input: string): string | null {
  const name = input.trim().replace(/^@/, "");
  if (!/^[^\s<>"@]{1,99}$/.test(name)) return null;
  return `@${name}`;
}

/** The consent page's address; `login_hint` only when given (TikTok has no such parameter; the emulator uses it). */
export async function tiktokConsentUrl(
  config: TikTokOAuthConfig,
  redirectUri: string,
  state: string,
  codeVerifier: string,
  loginHint: string | null,
): Promise<string> {
  const url = new URL(
    await buildAuthorizeUrl({ clientKey: config.clientKey, scopes: TIKTOK_SCOPES, redirectUri, state, codeVerifier, authBaseUrl: config.authBaseUrl }),
  );
  if (loginHint) url.searchParams.set("login_hint", loginHint);
  return url.toString();
}

/** What a failed TikTok call says (its messages never carry a token or a secret). */
function tiktokFailure(what: string, error: unknown): CliError {
  if (error instanceof ProviderError) {
    return new CliError(`${what} failed: ${error.message}`, error.status ? EXIT.failure : EXIT.unreachable);
  }
  return new CliError(`${what} failed: ${(error as Error)?.message ?? String(error)}`, EXIT.unreachable);
}

/**
 * Runs the whole connect: consent URL on `err` (and the browser), the redirect, the code exchange,
 * then POST /pipeline/accounts. Nothing is stored unless every step succeeded.
 */
export async function connectTikTok(options: ConnectTikTokOptions, config: TikTokOAuthConfig, api: ApiClient, err: Screen): Promise<ConnectedAccount> {
  // Fails before the consent when the dimension does not exist (404).
  await api.showDimension(options.dimension);

  const state = randomBytes(32).toString("base64url");
  const redirect = await listenForRedirect(state, options.timeoutMs);
  try {
    const codeVerifier = createCodeVerifier();
    const consentUrl = await tiktokConsentUrl(config, redirect.redirectUri, state, codeVerifier, options.loginHint);
    showConsent(
      err,
      `To let mdame publish to the TikTok account ${options.channel} for dimension ${options.dimension}`,
      consentUrl,
      redirect.redirectUri,
      options,
    );

    const code = await redirect.code;
    let tokens: TikTokTokenSet;
    try {
      tokens = await exchangeCode({
        clientKey: config.clientKey,
        clientSecret: config.clientSecret,
        apiBaseUrl: config.apiBaseUrl,
        code,
        redirectUri: redirect.redirectUri,
        codeVerifier,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw tiktokFailure("exchanging the authorization code with TikTok", error);
    }
    if (!tokens.scopes.includes(REQUIRED_SCOPE)) {
      throw new CliError(
        `the TikTok account granted ${
          tokens.scopes.join(", ") || "no scope"
        } but not ${REQUIRED_SCOPE}, which posting needs: connect again and allow it; nothing connected`,
        EXIT.failure,
      );
    }

    return await api.connectAccount({
      dimension_id: options.dimension,
      platform: "tiktok",
      channel_handle: options.channel,
      // The creator's id for this app: stable across consents, what TikTok's APIs name the user by.
      channel_id: tokens.openId,
      refresh_token: tokens.refreshToken,
      // The app the grant was made to: refreshing the token needs the same client key.
      oauth_client_id: config.clientKey,
    });
  } finally {
    await redirect.close();
  }
}
