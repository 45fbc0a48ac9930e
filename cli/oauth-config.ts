/**
 * The OAuth clients `mdame account connect` signs in with (a Google Desktop app client for YouTube:
 * the environment's, the project default, or a registered project's, which the API hands over;
 * a TikTok Login Kit app for TikTok; a Meta app with Facebook Login for Business for Instagram and
 * Facebook), and the endpoints it talks to.
 * Read from the same place as the API address: the environment when FUNCTIONS_URL and
 * SERVICE_ROLE_KEY come from it, else the local stack's `.local/stack.env`, whose emulator stands
 * in for every Google endpoint. Unset endpoints are Google's own.
 */
import { readFileSync } from "node:fs";
import { ConfigError, loadEnv, META_ENV_KEYS } from "../shared/config/env.ts";
import type { ApiConfig } from "./config.ts";
import { parseEnvFile } from "../stack/stack-env.ts";
import { CliError, EXIT } from "./errors.ts";

export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  /** Root of the YouTube Data API (`<root>/youtube/v3/...`), without a trailing slash. */
  youtubeApiBaseUrl: string;
}

const OAUTH_KEYS = ["GOOGLE_OAUTH_CLIENT_ID", "GOOGLE_OAUTH_CLIENT_SECRET", "GOOGLE_OAUTH_AUTH_URL", "GOOGLE_OAUTH_TOKEN_URL", "YOUTUBE_API_BASE_URL"] as const;
const ENDPOINT_KEYS = ["GOOGLE_OAUTH_AUTH_URL", "GOOGLE_OAUTH_TOKEN_URL", "YOUTUBE_API_BASE_URL"] as const;

/** Where Google's sign-in is, whichever client signs in. */
type GoogleEndpoints = Pick<OAuthConfig, "authUrl" | "tokenUrl" | "youtubeApiBaseUrl">;

/**
 * The OAuth settings next to `api`. From the environment: GOOGLE_OAUTH_CLIENT_ID and
 * GOOGLE_OAUTH_CLIENT_SECRET are required, the endpoints default to Google's (shared/config/env.ts).
 * From the stack file: the same names (the local stack writes the emulator's endpoints there).
 */
export function resolveOAuthConfig(
  env: Record<string, string | undefined>,
  api: ApiConfig,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): OAuthConfig {
  const { settings } = oauthSettings(OAUTH_KEYS, env, api, readFile);
  return {
    clientId: settings.GOOGLE_OAUTH_CLIENT_ID,
    clientSecret: settings.GOOGLE_OAUTH_CLIENT_SECRET,
    ...endpointsOf(settings, api),
  };
}

/**
 * Only the endpoints, for a connect through a registered Google project, whose client comes from
 * the API (`mdame account connect youtube --project <name>`): the environment's client may be unset.
 */
export function resolveGoogleEndpoints(
  env: Record<string, string | undefined>,
  api: ApiConfig,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): GoogleEndpoints {
  return endpointsOf(oauthSettings(ENDPOINT_KEYS, env, api, readFile).settings, api);
}

function oauthSettings<K extends (typeof OAUTH_KEYS)[number]>(
  keys: readonly K[],
  env: Record<string, string | undefined>,
  api: ApiConfig,
  readFile: (path: string) => string,
) {
  // The stack writes the emulator's endpoints when it emulates YouTube; absent ones are Google's.
  const values: Record<string, string | undefined> = api.source === "environment" ? env : parseEnvFile(readFile(api.source));
  const from = api.source === "environment" ? "" : ` in ${api.source}`;
  try {
    // Defaults and checks from the one list of the engine's variables (shared/config/env.ts).
    return { settings: loadEnv(keys, values), from };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(
      `the OAuth client for connecting an account (a Desktop app client of your Google Cloud project) is not configured${from}:\n${
        error.message.replace(/^invalid environment:\n/, "")
      }`,
      EXIT.usage,
    );
  }
}

function endpointsOf(settings: Record<(typeof ENDPOINT_KEYS)[number], string>, api: ApiConfig): GoogleEndpoints {
  const from = api.source === "environment" ? "" : ` in ${api.source}`;
  for (const key of ENDPOINT_KEYS) {
    if (!/^https?:\/\//.test(settings[key])) throw new CliError(`${key}${from} must be an http(s) URL, not ${JSON.stringify(settings[key])}`, EXIT.usage);
  }
  const trim = (value: string) => value.replace(/\/+$/, "");
  return {
    authUrl: trim(settings.GOOGLE_OAUTH_AUTH_URL),
    tokenUrl: trim(settings.GOOGLE_OAUTH_TOKEN_URL),
    youtubeApiBaseUrl: trim(settings.YOUTUBE_API_BASE_URL),
  };
}

/** The TikTok app (Login Kit, Desktop) `mdame account connect tiktok` signs in with, and TikTok's hosts. */
export interface TikTokOAuthConfig {
  clientKey: string;
  clientSecret: string;
  /** Where the consent page is (`<host>/v2/auth/authorize/`), without a trailing slash. */
  authBaseUrl: string;
  /** TikTok's API host (`<host>/v2/oauth/token/`), without a trailing slash. */
  apiBaseUrl: string;
}

const TIKTOK_KEYS = ["TIKTOK_CLIENT_KEY", "TIKTOK_CLIENT_SECRET", "TIKTOK_API_BASE_URL", "TIKTOK_AUTH_BASE_URL"] as const;

/**
 * The TikTok settings next to `api`, from the same place as resolveOAuthConfig's: TIKTOK_CLIENT_KEY
 * and TIKTOK_CLIENT_SECRET are required (optional for the engine, which publishes to TikTok only
 * when they are set), the hosts default to TikTok's (shared/config/env.ts).
 */
export function resolveTikTokOAuthConfig(
  env: Record<string, string | undefined>,
  api: ApiConfig,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): TikTokOAuthConfig {
  const fromEnvironment = api.source === "environment";
  const values: Record<string, string | undefined> = fromEnvironment ? env : parseEnvFile(readFile(api.source));
  const from = fromEnvironment ? "" : ` in ${api.source}`;
  const problems: string[] = [];
  for (const key of ["TIKTOK_CLIENT_KEY", "TIKTOK_CLIENT_SECRET"] as const) if (!values[key]?.trim()) problems.push(`  ${key}: not set`);
  let settings;
  try {
    settings = loadEnv(TIKTOK_KEYS, values);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.message.replace(/^invalid environment:\n/, "").split("\n").filter((line) => line.trim() !== ""));
  }
  if (problems.length > 0 || !settings) {
    throw new CliError(
      `the TikTok app for connecting an account (the client key and secret of a Login Kit app with Desktop enabled) is not configured${from}:\n${
        [...new Set(problems)].join("\n")
      }`,
      EXIT.usage,
    );
  }
  for (const key of ["TIKTOK_API_BASE_URL", "TIKTOK_AUTH_BASE_URL"] as const) {
    if (!/^https?:\/\//.test(settings[key])) throw new CliError(`${key}${from} must be an http(s) URL, not ${JSON.stringify(settings[key])}`, EXIT.usage);
  }
  const trim = (value: string) => value.replace(/\/+$/, "");
  return {
    clientKey: settings.TIKTOK_CLIENT_KEY!.trim(),
    clientSecret: settings.TIKTOK_CLIENT_SECRET!.trim(),
    authBaseUrl: trim(settings.TIKTOK_AUTH_BASE_URL),
    apiBaseUrl: trim(settings.TIKTOK_API_BASE_URL),
  };
}

/** The Meta app (Facebook Login for Business) `mdame account connect instagram|facebook` signs in with, and Meta's hosts. */
export interface MetaOAuthConfig {
  appId: string;
  appSecret: string;
  /** Where the login dialog is (`<host>/<version>/dialog/oauth`), without a trailing slash. */
  authBaseUrl: string;
  /** Graph's host, without a trailing slash. */
  graphBaseUrl: string;
  version: string;
}

/**
 * The Meta settings next to `api`, from the same place as resolveOAuthConfig's: META_APP_ID and
 * META_APP_SECRET are required (optional for the engine, which publishes to Instagram and Facebook
 * only when they are set), the hosts default to Meta's (shared/config/env.ts).
 */
export function resolveMetaOAuthConfig(
  env: Record<string, string | undefined>,
  api: ApiConfig,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): MetaOAuthConfig {
  const fromEnvironment = api.source === "environment";
  const values: Record<string, string | undefined> = fromEnvironment ? env : parseEnvFile(readFile(api.source));
  const from = fromEnvironment ? "" : ` in ${api.source}`;
  const problems: string[] = [];
  for (const key of ["META_APP_ID", "META_APP_SECRET"] as const) if (!values[key]?.trim()) problems.push(`  ${key}: not set`);
  let settings;
  try {
    settings = loadEnv(META_ENV_KEYS, values);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.message.replace(/^invalid environment:\n/, "").split("\n").filter((line) => line.trim() !== ""));
  }
  if (problems.length > 0 || !settings) {
    throw new CliError(
      `the Meta app for connecting an account (the id and secret of an app with Facebook Login for Business) is not configured${from}:\n${
        [...new Set(problems)].join("\n")
      }`,
      EXIT.usage,
    );
  }
  for (const key of ["META_AUTH_BASE_URL", "META_GRAPH_BASE_URL"] as const) {
    if (!/^https?:\/\//.test(settings[key])) throw new CliError(`${key}${from} must be an http(s) URL, not ${JSON.stringify(settings[key])}`, EXIT.usage);
  }
  const trim = (value: string) => value.replace(/\/+$/, "");
  return {
    appId: settings.META_APP_ID!.trim(),
    appSecret: settings.META_APP_SECRET!.trim(),
    authBaseUrl: trim(settings.META_AUTH_BASE_URL),
    graphBaseUrl: trim(settings.META_GRAPH_BASE_URL),
    version: settings.META_GRAPH_VERSION,
  };
}
