/**
 * A production configuration: real-looking, non-loopback URLs (hostnames under the reserved
 * `.invalid` TLD, which never resolve) and Supabase's injected names. The components' configuration
 * loads and a worker gets past its configuration step; emulator URLs are refused, each named.
 * Nothing here sends a request to a non-loopback address.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { ConfigError, EngineEnv, loadEnv } from "../../shared/config/env.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { generateCredentialsKey } from "../../shared/crypto/credentials.ts";
import { generateWebhookSecret } from "../../shared/webhooks/standard-webhooks.ts";
import { createPipelineDeps } from "../../functions/pipeline/deps.ts";
import { main } from "../../cli/main.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { freePort } from "./fixtures/emulator-harness.ts";

const ALL_KEYS = Object.keys(EngineEnv.shape) as (keyof EngineEnv)[];
let storageDir: string;

/** What a production deployment sets: Supabase's names, keys, and no base URL (the real services' defaults). */
function prodEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ENV: "prod",
    SUPABASE_URL: "https://abcdefghijklmnop.supabase.mdame-test.invalid",
    SUPABASE_DB_URL: "postgres://postgres.abcdefghijklmnop:db-password-0123456789@pooler.mdame-test.invalid:5432/postgres",
    SUPABASE_SERVICE_ROLE_KEY: "sb_secret_0123456789abcdefghijklmnop",
    WEBHOOK_SECRET: generateWebhookSecret(),
    CREDENTIALS_KEY: generateCredentialsKey(),
    STORAGE_BACKEND: "supabase",
    STORAGE_BUCKET: "mdame-prod",
    STORAGE_LOCAL_DIR: storageDir,
    GEMINI_API_KEY: "AIzaSy-production-looking-key",
    GOOGLE_OAUTH_CLIENT_ID: "1234567890-abc.apps.googleusercontent.com",
    GOOGLE_OAUTH_CLIENT_SECRET: "GOCSPX-production-looking-secret",
    LOG_LEVEL: "warn",
    ...extra,
  };
}

/** Every base URL pointed at a non-loopback host, as a self-hosted or proxied deployment would. */
const INVALID_HOSTS = {
  GEMINI_BASE_URL: "https://generativelanguage.mdame-test.invalid",
  EDGE_TTS_WSS_URL: "wss://speech.mdame-test.invalid/consumer/speech/synthesize/readaloud/edge/v1",
  YOUTUBE_UPLOAD_BASE_URL: "https://www.mdame-test.invalid",
  GOOGLE_OAUTH_TOKEN_URL: "https://oauth2.mdame-test.invalid/token",
  TRENDS_BASE_URL: "https://trends.mdame-test.invalid",
};

/** The same variables pointed at emulators (on a closed loopback port: doctor below may knock). */
let EMULATOR_URLS: Record<string, string>;

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "mdame-prod-config-"));
  const port = await freePort();
  EMULATOR_URLS = {
    FUNCTIONS_URL: `http://127.0.0.1:${port}/functions/v1`,
    SUPABASE_URL: `http://127.0.0.1:${port}`,
    GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    EDGE_TTS_WSS_URL: `ws://127.0.0.1:${port}/consumer/speech/synthesize/readaloud/edge/v1`,
    YOUTUBE_UPLOAD_BASE_URL: `http://localhost:${port}`,
    GOOGLE_OAUTH_TOKEN_URL: `http://127.0.0.1:${port}/token`,
    TRENDS_BASE_URL: `http://[::1]:${port}`,
  };
});

afterAll(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

describe("a production configuration", () => {
  test("loads for every component, with the real services' defaults and Supabase's names", () => {
    const env = loadEnv(ALL_KEYS, prodEnv());
    expect(env.ENV).toBe("prod");
    expect(env.DB_URL).toBe(prodEnv().SUPABASE_DB_URL);
    expect(env.FUNCTIONS_URL).toBe("https://abcdefghijklmnop.supabase.mdame-test.invalid/functions/v1");
    expect(env.SERVICE_ROLE_KEY).toBe("sb_secret_0123456789abcdefghijklmnop");
    expect(env.GEMINI_BASE_URL).toBeUndefined();
    expect(env.EDGE_TTS_WSS_URL).toBeUndefined();
    expect(env.YOUTUBE_UPLOAD_BASE_URL).toBe("https://www.googleapis.com");
    expect(env.GOOGLE_OAUTH_TOKEN_URL).toBe("https://oauth2.googleapis.com/token");
    expect(env.TRENDS_BASE_URL).toBe("https://trends.google.com");
    expect(env.GEMINI_MODEL).toBe("gemini-2.5-flash");
  });

  test("loads with every base URL on a non-loopback host", () => {
    const env = loadEnv(ALL_KEYS, prodEnv(INVALID_HOSTS));
    for (const [name, url] of Object.entries(INVALID_HOSTS)) expect(env[name as keyof typeof env]).toBe(url);
  });

  test("builds the pipeline's dependencies (the edge functions' configuration step)", async () => {
    const deps = createPipelineDeps(prodEnv(INVALID_HOSTS));
    try {
      expect(deps.env.ENV).toBe("prod");
      expect(deps.env.GEMINI_BASE_URL).toBe(INVALID_HOSTS.GEMINI_BASE_URL);
      expect(deps.llm.providers.gemini?.defaultModel).toBe("gemini-2.5-flash");
      expect(deps.voices.map((v) => v.provider)).toEqual(["edge-tts", "gemini-tts"]);
    } finally {
      await deps.sql.end({ timeout: 1 });
    }
  });

  test("a worker gets past its configuration and stops only at the database's environment check", async () => {
    await db.ensureRunning(() => {});
    // The local database (a loopback DB_URL is allowed: the engine may run whole on one machine)
    // records ENV=dev, so the worker must stop there, after its configuration was accepted.
    const env = { ...prodEnv(INVALID_HOSTS), DB_URL: LOCAL_DB_URL, PATH: process.env.PATH ?? "" };
    const result = spawnSync(process.execPath, ["render-runner/main.ts"], { cwd: paths.root, env, encoding: "utf8", timeout: 60_000 });
    const output = `${result.stderr}\n${result.stdout}`;
    expect(result.status).not.toBe(0);
    expect(output).toContain("render-runner: cannot start: database environment check failed for ENV=prod");
    expect(output).toContain("ENV=prod but this database is dev");
    expect(output).not.toContain("invalid environment");
    expect(output).not.toContain("refuses emulator URLs");
  }, 90_000);

  test("refuses emulator URLs, naming each variable", () => {
    let error: unknown;
    try {
      loadEnv(ALL_KEYS, prodEnv(EMULATOR_URLS));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toStartWith("ENV=prod refuses emulator URLs: ");
    const named = message.slice("ENV=prod refuses emulator URLs: ".length).split(", ").sort();
    expect(named).toEqual(Object.keys(EMULATOR_URLS).sort());
    expect(() => createPipelineDeps(prodEnv(EMULATOR_URLS))).toThrow(
      "ENV=prod refuses emulator URLs: FUNCTIONS_URL, SUPABASE_URL, GEMINI_BASE_URL, EDGE_TTS_WSS_URL, YOUTUBE_UPLOAD_BASE_URL, GOOGLE_OAUTH_TOKEN_URL, TRENDS_BASE_URL",
    );
  });

  test("a single emulator URL is enough to be refused, and it is the one named", () => {
    expect(() => loadEnv(ALL_KEYS, prodEnv({ GEMINI_BASE_URL: EMULATOR_URLS.GEMINI_BASE_URL! }))).toThrow("ENV=prod refuses emulator URLs: GEMINI_BASE_URL");
    expect(() => loadEnv(ALL_KEYS, prodEnv({ EDGE_TTS_WSS_URL: EMULATOR_URLS.EDGE_TTS_WSS_URL! }))).toThrow("ENV=prod refuses emulator URLs: EDGE_TTS_WSS_URL");
  });

  test("doctor names each emulator URL of a prod configuration, and the fix", async () => {
    let out = "";
    // Every URL is loopback here, so the checks that follow reach only this machine.
    const code = await main(["doctor", "--timeout", "2"], {
      out: { write: (text: string) => (out += text) },
      err: { write: () => {} },
      env: { ...prodEnv(EMULATOR_URLS), SUPABASE_DB_URL: `postgres://postgres:postgres@${new URL(EMULATOR_URLS.GEMINI_BASE_URL!).host}/postgres` },
      stackEnvFile: join(storageDir, "no-stack.env"),
    });
    expect(code).toBe(1);
    const guard = out.split("\n").find((l) => l.startsWith("FAIL environment/guard"));
    expect(guard).toBe(
      "FAIL environment/guard: ENV=prod refuses emulator URLs: FUNCTIONS_URL, SUPABASE_URL, GEMINI_BASE_URL, EDGE_TTS_WSS_URL, YOUTUBE_UPLOAD_BASE_URL, GOOGLE_OAUTH_TOKEN_URL, TRENDS_BASE_URL",
    );
    expect(out).toContain("     fix: point FUNCTIONS_URL, SUPABASE_URL, GEMINI_BASE_URL,");
    expect(out).toContain(`then ${join(storageDir, "no-stack.env")}, which does not exist):`);
    // The project's names filled in from Supabase's, and said so.
    const source = (name: string) => out.split("\n").find((l) => l.startsWith(`  ${name} `))?.trim().split(/\s{2,}/);
    expect(source("DB_URL")).toEqual(["DB_URL", `postgres://postgres:*****@${new URL(EMULATOR_URLS.GEMINI_BASE_URL!).host}/postgres`, "from SUPABASE_DB_URL"]);
    expect(source("SERVICE_ROLE_KEY")).toEqual(["SERVICE_ROLE_KEY", "set (36 characters)", "from SUPABASE_SERVICE_ROLE_KEY"]);
    expect(source("YOUTUBE_UPLOAD_BASE_URL")).toEqual(["YOUTUBE_UPLOAD_BASE_URL", EMULATOR_URLS.YOUTUBE_UPLOAD_BASE_URL!, "environment"]);
    expect(source("GEMINI_MODEL")).toEqual(["GEMINI_MODEL", "gemini-2.5-flash", "default"]);
    for (const secret of [prodEnv().SUPABASE_SERVICE_ROLE_KEY, prodEnv().GEMINI_API_KEY, prodEnv().GOOGLE_OAUTH_CLIENT_SECRET]) {
      expect(out).not.toContain(secret);
    }
  }, 60_000);
});
