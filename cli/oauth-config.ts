/**
 * The OAuth client `mdame account connect` signs in with, and the Google endpoints it talks to.
 * Read from the same place as the API address: the environment when FUNCTIONS_URL and
 * SERVICE_ROLE_KEY come from it, else the local stack's `.local/stack.env`, whose emulator stands
 * in for every Google endpoint. Unset endpoints are Google's own.
 */
import { readFileSync } from "node:fs";
import { ConfigError, loadEnv } from "../shared/config/env.ts";
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
  const fromEnvironment = api.source === "environment";
  let values: Record<string, string | undefined> = env;
  let from = "";
  if (!fromEnvironment) {
    // The stack writes the emulator's endpoints when it emulates YouTube; absent ones are Google's.
    values = parseEnvFile(readFile(api.source));
    from = ` in ${api.source}`;
  }
  let settings;
  try {
    // Defaults and checks from the one list of the engine's variables (shared/config/env.ts).
    settings = loadEnv(OAUTH_KEYS, values);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(`the OAuth client for connecting an account (a Desktop app client of your Google Cloud project) is not configured${from}:\n${error.message.replace(/^invalid environment:\n/, "")}`, EXIT.usage);
  }
  for (const key of ["GOOGLE_OAUTH_AUTH_URL", "GOOGLE_OAUTH_TOKEN_URL", "YOUTUBE_API_BASE_URL"] as const) {
    if (!/^https?:\/\//.test(settings[key])) throw new CliError(`${key}${from} must be an http(s) URL, not ${JSON.stringify(settings[key])}`, EXIT.usage);
  }
  const trim = (value: string) => value.replace(/\/+$/, "");
  return {
    clientId: settings.GOOGLE_OAUTH_CLIENT_ID,
    clientSecret: settings.GOOGLE_OAUTH_CLIENT_SECRET,
    authUrl: trim(settings.GOOGLE_OAUTH_AUTH_URL),
    tokenUrl: trim(settings.GOOGLE_OAUTH_TOKEN_URL),
    youtubeApiBaseUrl: trim(settings.YOUTUBE_API_BASE_URL),
  };
}
