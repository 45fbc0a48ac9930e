/**
 * Secrets of the local stack, created once per clone in `.local/secrets.json` (mode 0600), and the
 * environment every local component is started with.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { generateCredentialsKey } from "../../shared/crypto/credentials.ts";
import { generateWebhookSecret } from "../../shared/webhooks/standard-webhooks.ts";
import { LOCAL_DB_URL, LOCAL_EMULATOR_URL, LOCAL_FUNCTIONS_URL, LOCAL_STACK } from "../../shared/config/local-stack.ts";
import { paths } from "./paths.ts";

/** The secrets a local stack needs; generated on first use and kept for the clone's lifetime. */
export interface LocalSecrets {
  SERVICE_ROLE_KEY: string;
  WEBHOOK_SECRET: string;
  CREDENTIALS_KEY: string;
  GEMINI_API_KEY: string;
  GOOGLE_OAUTH_CLIENT_ID: string;
  GOOGLE_OAUTH_CLIENT_SECRET: string;
}

const GENERATORS: { [K in keyof LocalSecrets]: () => string } = {
  SERVICE_ROLE_KEY: () => randomBytes(32).toString("hex"),
  WEBHOOK_SECRET: generateWebhookSecret,
  CREDENTIALS_KEY: generateCredentialsKey,
  GEMINI_API_KEY: () => "local-emulator-key",
  GOOGLE_OAUTH_CLIENT_ID: () => `local-${randomBytes(8).toString("hex")}.apps.googleusercontent.com`,
  GOOGLE_OAUTH_CLIENT_SECRET: () => randomBytes(24).toString("hex"),
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
  for (const key of Object.keys(GENERATORS) as (keyof LocalSecrets)[]) {
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
 * The full environment every local component gets (names as in shared/config/env.ts), pointing
 * every external service at the local emulator.
 */
export function localStackEnv(secrets: LocalSecrets = loadOrCreateSecrets()): Record<string, string> {
  const emulator = LOCAL_EMULATOR_URL;
  const emulatorWs = `ws://${LOCAL_STACK.host}:${LOCAL_STACK.emulatorPort}`;
  return {
    ENV: "dev",
    DB_URL: LOCAL_DB_URL,
    FUNCTIONS_URL: LOCAL_FUNCTIONS_URL,
    SERVICE_ROLE_KEY: secrets.SERVICE_ROLE_KEY,
    WEBHOOK_SECRET: secrets.WEBHOOK_SECRET,
    CREDENTIALS_KEY: secrets.CREDENTIALS_KEY,
    // Assets go through Supabase Storage (the emulator's), as in production: no process shares a directory.
    STORAGE_BACKEND: "supabase",
    SUPABASE_URL: emulator,
    SUPABASE_SERVICE_ROLE_KEY: secrets.SERVICE_ROLE_KEY,
    STORAGE_BUCKET: "mdame-dev",
    GEMINI_API_KEY: secrets.GEMINI_API_KEY,
    GEMINI_BASE_URL: emulator,
    EDGE_TTS_WSS_URL: `${emulatorWs}/consumer/speech/synthesize/readaloud/edge/v1`,
    YOUTUBE_UPLOAD_BASE_URL: emulator,
    GOOGLE_OAUTH_TOKEN_URL: `${emulator}/token`,
    GOOGLE_OAUTH_CLIENT_ID: secrets.GOOGLE_OAUTH_CLIENT_ID,
    GOOGLE_OAUTH_CLIENT_SECRET: secrets.GOOGLE_OAUTH_CLIENT_SECRET,
    TRENDS_BASE_URL: emulator,
    EMULATOR_URL: emulator,
    EMULATOR_DATA_DIR: paths.emulators,
  };
}

/** `KEY=value` lines, like `supabase status -o env`. Values are quoted only when they need it. */
export function formatEnvFile(env: Record<string, string>): string {
  const lines = Object.entries(env).map(([key, value]) => {
    const plain = /^[A-Za-z0-9_./:@+=,-]*$/.test(value);
    return `${key}=${plain ? value : JSON.stringify(value)}`;
  });
  return `${lines.join("\n")}\n`;
}
