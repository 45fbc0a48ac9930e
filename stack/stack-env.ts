/**
 * The local stack's environment and its one owner: the secrets created once per clone in
 * `.local/secrets.json` (mode 0600), the environment every local component is started with, and
 * `.local/stack.env`, which the supervisor writes (writeStackEnv) and the CLI, doctor and tests
 * read (readStackEnv, parseEnvFile).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { generateCredentialsKey } from "../shared/crypto/credentials.ts";
import { generateWebhookSecret } from "../shared/webhooks/standard-webhooks.ts";
import { META_ENV_KEYS, STORAGE_ENV_KEYS, TELEGRAM_ENV_KEYS, TREND_SOURCE_ENV_KEYS } from "../shared/config/env.ts";
import type { DbComponent } from "../shared/config/db-roles.ts";
import { LOCAL_EMULATOR_URL, LOCAL_FUNCTIONS_URL, LOCAL_STACK, localComponentDbUrl, localEngineDbUrl } from "../shared/config/local-stack.ts";
import { PUBLISHER_ONLY_ENV_KEYS } from "../shared/config/env.ts";
import { paths } from "./paths.ts";

/** The secrets a local stack needs; generated on first use and kept for the clone's lifetime. */
export interface LocalSecrets {
  SERVICE_ROLE_KEY: string;
  WEBHOOK_SECRET: string;
  CREDENTIALS_KEY: string;
  GEMINI_API_KEY: string;
  GOOGLE_OAUTH_CLIENT_ID: string;
  GOOGLE_OAUTH_CLIENT_SECRET: string;
  /** Passwords of the components' roles (COMPONENT_DB_ROLES), set by every db reset. */
  ENGINE_DB_PASSWORD: string;
  GPU_WORKER_DB_PASSWORD: string;
  RENDER_RUNNER_DB_PASSWORD: string;
  /**
   * Keys and secrets rotated out of CREDENTIALS_KEY and WEBHOOK_SECRET, still accepted
   * (docs/guides/rotation.md): never generated, present only while the operator keeps them in the file.
   */
  CREDENTIALS_KEYS_PREVIOUS?: string;
  WEBHOOK_SECRETS_PREVIOUS?: string;
}

/** The rotation lists a secrets file may hold besides the generated secrets. */
const ROTATED_NAMES = ["CREDENTIALS_KEYS_PREVIOUS", "WEBHOOK_SECRETS_PREVIOUS"] as const;

const GENERATORS: { [K in Exclude<keyof LocalSecrets, (typeof ROTATED_NAMES)[number]>]: () => string } = {
  SERVICE_ROLE_KEY: () => randomBytes(32).toString("hex"),
  WEBHOOK_SECRET: generateWebhookSecret,
  CREDENTIALS_KEY: generateCredentialsKey,
  GEMINI_API_KEY: () => "local-emulator-key",
  GOOGLE_OAUTH_CLIENT_ID: () => `local-${randomBytes(8).toString("hex")}.apps.googleusercontent.com`,
  GOOGLE_OAUTH_CLIENT_SECRET: () => randomBytes(24).toString("hex"),
  ENGINE_DB_PASSWORD: () => randomBytes(24).toString("hex"),
  GPU_WORKER_DB_PASSWORD: () => randomBytes(24).toString("hex"),
  RENDER_RUNNER_DB_PASSWORD: () => randomBytes(24).toString("hex"),
};

/** The secret holding each component role's password. */
export const DB_ROLE_PASSWORDS: Record<DbComponent, keyof LocalSecrets & `${string}_DB_PASSWORD`> = {
  edge: "ENGINE_DB_PASSWORD",
  "gpu-worker": "GPU_WORKER_DB_PASSWORD",
  "render-runner": "RENDER_RUNNER_DB_PASSWORD",
};

/**
 * Reads `.local/secrets.json`, creating it (or filling in keys it lacks) with fresh values.
 * The file is written atomically with mode 0600.
 */
export function loadOrCreateSecrets(file: string = paths.secrets): LocalSecrets {
  let stored: Partial<Record<keyof LocalSecrets, unknown>> = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix or delete it to regenerate`);
    }
  }
  const secrets = {} as LocalSecrets;
  let changed = false;
  for (const key of ROTATED_NAMES) {
    const value = stored[key];
    if (typeof value === "string" && value.trim() !== "") secrets[key] = value;
  }
  for (const key of Object.keys(GENERATORS) as (keyof typeof GENERATORS)[]) {
    const value = stored[key];
    if (typeof value === "string" && value.length > 0) {
      secrets[key] = value;
    } else {
      secrets[key] = GENERATORS[key]();
      changed = true;
    }
  }
  if (changed) {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ ...stored, ...secrets }, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  }
  chmodSync(file, 0o600);
  return secrets;
}

/**
 * The external services the local stack can emulate, each with the variables that configure its
 * real counterpart. A group set in the environment (any of its variables), or left out of
 * `MDAME_EMULATE`, runs against the real service: the stack then passes the environment's values
 * on and sets none of that group's emulator values (an unset base URL means the real endpoint).
 */
const PROVIDER_GROUPS = {
  gemini: ["GEMINI_API_KEY", "GEMINI_BASE_URL", "GEMINI_MODEL", "GEMINI_TTS_MODEL", "GEMINI_IMAGE_MODEL"],
  "openai-compat": ["OPENAI_COMPAT_BASE_URL", "OPENAI_COMPAT_API_KEY", "OPENAI_COMPAT_MODEL", "OPENAI_COMPAT_RESPONSE_FORMAT"],
  "edge-tts": ["EDGE_TTS_WSS_URL"],
  youtube: [
    "GOOGLE_OAUTH_CLIENT_ID",
    "GOOGLE_OAUTH_CLIENT_SECRET",
    "GOOGLE_OAUTH_AUTH_URL",
    "GOOGLE_OAUTH_TOKEN_URL",
    "YOUTUBE_UPLOAD_BASE_URL",
    "YOUTUBE_API_BASE_URL",
    "YOUTUBE_ANALYTICS_BASE_URL",
  ],
  tiktok: ["TIKTOK_CLIENT_KEY", "TIKTOK_CLIENT_SECRET", "TIKTOK_API_BASE_URL", "TIKTOK_AUTH_BASE_URL"],
  meta: META_ENV_KEYS,
  // Every trend source.
  trends: TREND_SOURCE_ENV_KEYS,
  storage: STORAGE_ENV_KEYS,
  pexels: ["PEXELS_API_KEY", "PEXELS_BASE_URL"],
  telegram: TELEGRAM_ENV_KEYS,
} as const;
type ProviderGroup = keyof typeof PROVIDER_GROUPS;
const GROUPS = Object.keys(PROVIDER_GROUPS) as ProviderGroup[];

/** The Pexels key the local stack and its emulator agree on: not a secret, nothing real accepts it. */
const LOCAL_PEXELS_API_KEY = "local-emulator-pexels-key";

/** The Meta app the local stack and its emulator agree on: nothing real accepts it. */
export const LOCAL_META_APP_ID = "100000000000001";
export const LOCAL_META_APP_SECRET = "local-meta-app-secret";

/** The bot token and alert chat the local stack and its Telegram emulator agree on: nothing real accepts them. */
export const LOCAL_TELEGRAM_BOT_TOKEN = "1000000001:local-emulator-telegram-bot-token";
export const LOCAL_TELEGRAM_CHAT_ID = "-1001000000001";

/** The stack's own secrets, which a real deployment's values in the environment replace. */
const SECRET_NAMES = ["SERVICE_ROLE_KEY", "WEBHOOK_SECRET", "CREDENTIALS_KEY"] as const;

const isSet = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/**
 * Which provider groups the stack points at its emulator. `MDAME_EMULATE` lists them (`all`, `none`,
 * or names from PROVIDER_GROUPS, comma-separated); unset, every group whose variables the
 * environment leaves unset is emulated. Throws on an unknown name.
 */
export function emulatedGroups(environment: Record<string, string | undefined>): Set<ProviderGroup> {
  const listed = environment.MDAME_EMULATE?.trim();
  if (listed === undefined || listed === "") {
    return new Set(GROUPS.filter((group) => !PROVIDER_GROUPS[group].some((name) => isSet(environment[name]))));
  }
  if (listed === "all") return new Set(GROUPS);
  if (listed === "none") return new Set();
  const names = listed.split(",").map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(GROUPS as string[]).includes(name));
  if (unknown.length > 0) throw new Error(`MDAME_EMULATE names unknown providers (${unknown.join(", ")}): use all, none, or some of ${GROUPS.join(", ")}`);
  return new Set(names as ProviderGroup[]);
}

/**
 * The full environment every local component gets (names as in shared/config/env.ts): the local
 * database as the engine role and the functions, the stack's secrets, and each external service either at the local
 * emulator or, for the groups `emulatedGroups` leaves out, as the environment configures it.
 */
export function localStackEnv(
  secrets: LocalSecrets = loadOrCreateSecrets(),
  environment: Record<string, string | undefined> = process.env,
  options: { prod?: boolean } = {},
): Record<string, string> {
  const emulator = LOCAL_EMULATOR_URL;
  const emulatorWs = `ws://${LOCAL_STACK.host}:${LOCAL_STACK.emulatorPort}`;
  const emulated = emulatedGroups(environment);
  const emulatorValues: Record<ProviderGroup, Record<string, string>> = {
    gemini: { GEMINI_API_KEY: secrets.GEMINI_API_KEY, GEMINI_BASE_URL: emulator },
    // The key the OpenAI emulator accepts (emulators/openai/routes.ts); any other is refused with 401.
    "openai-compat": { OPENAI_COMPAT_BASE_URL: `${emulator}/v1`, OPENAI_COMPAT_API_KEY: "sk-local-emulator-key", OPENAI_COMPAT_MODEL: "emulated-chat" },
    "edge-tts": { EDGE_TTS_WSS_URL: `${emulatorWs}/consumer/speech/synthesize/readaloud/edge/v1` },
    youtube: {
      GOOGLE_OAUTH_CLIENT_ID: secrets.GOOGLE_OAUTH_CLIENT_ID,
      GOOGLE_OAUTH_CLIENT_SECRET: secrets.GOOGLE_OAUTH_CLIENT_SECRET,
      GOOGLE_OAUTH_AUTH_URL: `${emulator}/o/oauth2/v2/auth`,
      GOOGLE_OAUTH_TOKEN_URL: `${emulator}/token`,
      YOUTUBE_UPLOAD_BASE_URL: emulator,
      YOUTUBE_API_BASE_URL: emulator,
      YOUTUBE_ANALYTICS_BASE_URL: emulator,
    },
    // The TikTok emulator takes any client key and secret (emulators/tiktok); these are the stack's own.
    tiktok: {
      TIKTOK_CLIENT_KEY: "local-tiktok-client",
      TIKTOK_CLIENT_SECRET: "local-tiktok-secret",
      TIKTOK_API_BASE_URL: emulator,
      TIKTOK_AUTH_BASE_URL: emulator,
    },
    // The emulator registers this app when it starts (emulators/meta/auth.ts); Meta's app ids are digits.
    meta: {
      META_APP_ID: LOCAL_META_APP_ID,
      META_APP_SECRET: LOCAL_META_APP_SECRET,
      META_GRAPH_BASE_URL: emulator,
      META_UPLOAD_BASE_URL: emulator,
      META_AUTH_BASE_URL: emulator,
    },
    trends: {
      TRENDS_BASE_URL: emulator,
      HACKER_NEWS_BASE_URL: emulator,
      WIKIMEDIA_BASE_URL: emulator,
      REDDIT_AUTH_BASE_URL: emulator,
      REDDIT_API_BASE_URL: emulator,
      // The emulator issues a token to any client id with a secret.
      REDDIT_CLIENT_ID: "local-reddit-client",
      REDDIT_CLIENT_SECRET: "local-reddit-secret",
    },
    // Assets go through Supabase Storage (the emulator's), as in production: no process shares a directory.
    storage: { STORAGE_BACKEND: "supabase", SUPABASE_URL: emulator, SUPABASE_SERVICE_ROLE_KEY: secrets.SERVICE_ROLE_KEY, STORAGE_BUCKET: "mdame-dev" },
    // The emulator accepts this key only (the Pexels API refuses a request without its key).
    pexels: { PEXELS_API_KEY: LOCAL_PEXELS_API_KEY, PEXELS_BASE_URL: emulator },
    // Alerts go to the emulator's chat (GET /_emulator/telegram/messages shows them).
    telegram: { TELEGRAM_BOT_TOKEN: LOCAL_TELEGRAM_BOT_TOKEN, TELEGRAM_API_BASE_URL: emulator, TELEGRAM_CHAT_ID: LOCAL_TELEGRAM_CHAT_ID },
  };
  // `npm run stack -- --prod` runs the stack as production on this machine (docs/guides/deploy.md,
  // "One machine"): every provider real, the engine clock fixed, the prod guards on.
  const prod = options.prod === true;
  if (prod && emulated.size > 0) {
    throw new Error(
      `ENV=prod runs every provider for real, but ${
        [...emulated].join(", ")
      } would be emulated: set MDAME_EMULATE=none and each provider's variables (.env.example)`,
    );
  }
  const env: Record<string, string> = {
    ENV: prod ? "prod" : "dev",
    // The engine role, not the superuser: components may only call the RPCs (docs/reference/roles.md).
    DB_URL: localEngineDbUrl(secrets.ENGINE_DB_PASSWORD),
    FUNCTIONS_URL: LOCAL_FUNCTIONS_URL,
  };
  for (const name of SECRET_NAMES) env[name] = isSet(environment[name]) ? environment[name] : secrets[name];
  // Set only during a rotation's overlap; the environment first, as for the secrets themselves.
  for (const name of ROTATED_NAMES) {
    const value = isSet(environment[name]) ? environment[name] : secrets[name];
    if (isSet(value)) env[name] = value;
  }
  for (const group of GROUPS) {
    if (emulated.has(group)) {
      Object.assign(env, emulatorValues[group]);
    } else {
      for (const name of PROVIDER_GROUPS[group]) if (isSet(environment[name])) env[name] = environment[name];
    }
  }
  if (!prod) {
    env.EMULATOR_URL = emulator;
    env.EMULATOR_DATA_DIR = paths.emulators;
  }
  // The outside monitor's ping URL, stored in Vault for the watchdog (docs/reference/alerts.md).
  if (isSet(environment.MDAME_HEARTBEAT_URL)) env.MDAME_HEARTBEAT_URL = environment.MDAME_HEARTBEAT_URL;
  env.MDAME_EMULATE = GROUPS.filter((group) => emulated.has(group)).join(",") || "none";
  return env;
}

/**
 * What a worker (gpu-worker, render-runner) is started with: the stack's environment with the
 * database as its own role, and without what only the publishing edge holds (the key that opens
 * the accounts' credentials, the OAuth clients' secrets).
 */
export function workerEnv(
  env: Record<string, string>,
  component: Exclude<DbComponent, "edge">,
  secrets: LocalSecrets = loadOrCreateSecrets(),
): Record<string, string> {
  const own: Record<string, string> = { ...env, DB_URL: localComponentDbUrl(component, secrets[DB_ROLE_PASSWORDS[component]]) };
  for (const name of PUBLISHER_ONLY_ENV_KEYS) delete own[name];
  return own;
}

/** Writes `.local/stack.env` (mode 0600), the file the CLI and doctor read to reach the stack. */
export function writeStackEnv(env: Record<string, string>, file: string = paths.stackEnv): void {
  writeFileSync(file, formatEnvFile(env), { mode: 0o600 });
}

/** `.local/stack.env` as the supervisor wrote it; throws when there is none. */
export function readStackEnv(file: string = paths.stackEnv): Record<string, string> {
  return parseEnvFile(readFileSync(file, "utf8"));
}

/** `KEY=value` lines, like `supabase status -o env`. Values are quoted only when they need it. */
function formatEnvFile(env: Record<string, string>): string {
  const lines = Object.entries(env).map(([key, value]) => {
    const plain = /^[A-Za-z0-9_./:@+=,-]*$/.test(value);
    return `${key}=${plain ? value : JSON.stringify(value)}`;
  });
  return `${lines.join("\n")}\n`;
}

/**
 * `KEY=value` lines as formatEnvFile writes them (values that need it are
 * JSON-quoted); blank lines and `#` comments are skipped, an optional `export ` prefix is allowed.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2]!;
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      try {
        value = JSON.parse(value);
      } catch {
        value = value.slice(1, -1);
      }
    } else if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) {
      value = value.slice(1, -1);
    }
    values[match[1]!] = value;
  }
  return values;
}
