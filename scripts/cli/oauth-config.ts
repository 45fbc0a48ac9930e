/**
 * The OAuth client `mdame account connect` signs in with, and the Google endpoints it talks to.
 * Read from the same place as the API address: the environment when FUNCTIONS_URL and
 * SERVICE_ROLE_KEY come from it, else the local stack's `.local/stack.env`, whose emulator stands
 * in for every Google endpoint. Unset endpoints are Google's own.
 */
import { readFileSync } from "node:fs";
import type { ApiConfig } from "./config.ts";
import { parseEnvFile } from "./config.ts";
import { CliError, EXIT } from "./errors.ts";

export const GOOGLE_ENDPOINTS = {
  GOOGLE_OAUTH_AUTH_URL: "https://accounts.google.com/o/oauth2/v2/auth",
  GOOGLE_OAUTH_TOKEN_URL: "https://oauth2.googleapis.com/token",
  YOUTUBE_API_BASE_URL: "https://youtube.googleapis.com",
} as const;

export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  /** Root of the YouTube Data API (`<root>/youtube/v3/...`), without a trailing slash. */
  youtubeApiBaseUrl: string;
}

function url(name: string, value: string, from: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new CliError(`${name}${from} is not an http(s) URL: ${JSON.stringify(value)}`, EXIT.usage);
  }
  return value.replace(/\/+$/, "");
}

/**
 * The OAuth settings next to `api`. From the environment: GOOGLE_OAUTH_CLIENT_ID and
 * GOOGLE_OAUTH_CLIENT_SECRET are required, the endpoints default to Google's. From the stack file:
 * the same names, with endpoints missing there derived from its EMULATOR_URL.
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
    const file = parseEnvFile(readFile(api.source));
    const emulator = file.EMULATOR_URL?.replace(/\/+$/, "");
    values = {
      ...(emulator ? { GOOGLE_OAUTH_AUTH_URL: `${emulator}/o/oauth2/v2/auth`, YOUTUBE_API_BASE_URL: emulator } : {}),
      ...file,
    };
    from = ` in ${api.source}`;
  }
  const get = (name: string) => values[name]?.trim() || undefined;
  const missing = ["GOOGLE_OAUTH_CLIENT_ID", "GOOGLE_OAUTH_CLIENT_SECRET"].filter((n) => !get(n));
  if (missing.length > 0) {
    throw new CliError(`${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set${from}: the OAuth client (a Desktop app client of your Google Cloud project) is needed to connect an account`, EXIT.usage);
  }
  const endpoint = (name: keyof typeof GOOGLE_ENDPOINTS) => url(name, get(name) ?? GOOGLE_ENDPOINTS[name], from);
  return {
    clientId: get("GOOGLE_OAUTH_CLIENT_ID")!,
    clientSecret: get("GOOGLE_OAUTH_CLIENT_SECRET")!,
    authUrl: endpoint("GOOGLE_OAUTH_AUTH_URL"),
    tokenUrl: endpoint("GOOGLE_OAUTH_TOKEN_URL"),
    youtubeApiBaseUrl: endpoint("YOUTUBE_API_BASE_URL"),
  };
}
