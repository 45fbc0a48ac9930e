/**
 * The local stack's environment: every provider at its emulator by default, the real service for a
 * provider the environment configures or MDAME_EMULATE leaves out, and the stack's own database.
 */
import { describe, expect, test } from "bun:test";
import { LOCAL_DB_URL, LOCAL_EMULATOR_URL, LOCAL_STACK } from "../../shared/config/local-stack.ts";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulatedGroups, loadOrCreateSecrets, type LocalSecrets, localStackEnv, workerEnv } from "../../stack/stack-env.ts";

const SECRETS: LocalSecrets = {
  SERVICE_ROLE_KEY: "s".repeat(64),
  WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 1).toString("base64")}`,
  CREDENTIALS_KEY: Buffer.alloc(32, 2).toString("base64"),
  GEMINI_API_KEY: "local-emulator-key",
  GOOGLE_OAUTH_CLIENT_ID: "local-client.apps.googleusercontent.com",
  GOOGLE_OAUTH_CLIENT_SECRET: "local-client-secret",
  ENGINE_DB_PASSWORD: "e".repeat(48),
  GPU_WORKER_DB_PASSWORD: "a".repeat(48),
  RENDER_RUNNER_DB_PASSWORD: "b".repeat(48),
};

const ENGINE_URL = `postgres://mdame_engine:${"e".repeat(48)}@127.0.0.1:${LOCAL_STACK.dbPort}/postgres`;

describe("localStackEnv", () => {
  test("with nothing configured, every provider is its emulator", () => {
    const env = localStackEnv(SECRETS, {});
    expect(env).toMatchObject({
      ENV: "dev",
      DB_URL: ENGINE_URL,
      GEMINI_API_KEY: "local-emulator-key",
      GEMINI_BASE_URL: LOCAL_EMULATOR_URL,
      GOOGLE_OAUTH_AUTH_URL: `${LOCAL_EMULATOR_URL}/o/oauth2/v2/auth`,
      GOOGLE_OAUTH_TOKEN_URL: `${LOCAL_EMULATOR_URL}/token`,
      YOUTUBE_UPLOAD_BASE_URL: LOCAL_EMULATOR_URL,
      YOUTUBE_API_BASE_URL: LOCAL_EMULATOR_URL,
      TRENDS_BASE_URL: LOCAL_EMULATOR_URL,
      STORAGE_BACKEND: "supabase",
      SUPABASE_URL: LOCAL_EMULATOR_URL,
      SUPABASE_SERVICE_ROLE_KEY: SECRETS.SERVICE_ROLE_KEY,
      STORAGE_BUCKET: "mdame-dev",
      MDAME_EMULATE: "gemini,openai-compat,edge-tts,youtube,tiktok,meta,trends,storage,pexels,telegram",
      OPENAI_COMPAT_BASE_URL: `${LOCAL_EMULATOR_URL}/v1`,
      OPENAI_COMPAT_API_KEY: "sk-local-emulator-key",
      PEXELS_API_KEY: "local-emulator-pexels-key",
      PEXELS_BASE_URL: LOCAL_EMULATOR_URL,
      TELEGRAM_API_BASE_URL: LOCAL_EMULATOR_URL,
      TELEGRAM_CHAT_ID: "-1001000000001",
      TIKTOK_API_BASE_URL: LOCAL_EMULATOR_URL,
      TIKTOK_AUTH_BASE_URL: LOCAL_EMULATOR_URL,
      META_GRAPH_BASE_URL: LOCAL_EMULATOR_URL,
      META_UPLOAD_BASE_URL: LOCAL_EMULATOR_URL,
      META_AUTH_BASE_URL: LOCAL_EMULATOR_URL,
    });
    expect(env.TIKTOK_CLIENT_KEY).toBeTruthy();
    expect(env.EDGE_TTS_WSS_URL).toStartWith("ws://127.0.0.1:");
  });

  test("a provider configured in the environment is the real one: its values pass on, no emulator URL", () => {
    const env = localStackEnv(SECRETS, { GEMINI_API_KEY: "AIza-real-key", GEMINI_MODEL: "gemini-2.5-pro" });
    expect(env.GEMINI_API_KEY).toBe("AIza-real-key");
    expect(env.GEMINI_MODEL).toBe("gemini-2.5-pro");
    expect(env).not.toHaveProperty("GEMINI_BASE_URL");
    // The others stay emulated.
    expect(env.TRENDS_BASE_URL).toBe(LOCAL_EMULATOR_URL);
    expect(env.MDAME_EMULATE).toBe("openai-compat,edge-tts,youtube,tiktok,meta,trends,storage,pexels,telegram");
  });

  test("MDAME_EMULATE=storage: real Gemini, Edge TTS, YouTube and Trends, assets in the Storage emulator", () => {
    const env = localStackEnv(SECRETS, {
      MDAME_EMULATE: "storage",
      GEMINI_API_KEY: "AIza-real-key",
      GOOGLE_OAUTH_CLIENT_ID: "123-abc.apps.googleusercontent.com",
      GOOGLE_OAUTH_CLIENT_SECRET: "GOCSPX-real",
    });
    for (
      const name of [
        "GEMINI_BASE_URL",
        "EDGE_TTS_WSS_URL",
        "GOOGLE_OAUTH_AUTH_URL",
        "GOOGLE_OAUTH_TOKEN_URL",
        "YOUTUBE_UPLOAD_BASE_URL",
        "YOUTUBE_API_BASE_URL",
        "TRENDS_BASE_URL",
      ]
    ) {
      expect(env).not.toHaveProperty(name);
    }
    expect(env.GOOGLE_OAUTH_CLIENT_ID).toBe("123-abc.apps.googleusercontent.com");
    expect(env.SUPABASE_URL).toBe(LOCAL_EMULATOR_URL);
    expect(env.DB_URL).toBe(ENGINE_URL);
  });

  test("components connect as the engine role, never as the superuser the resets use", () => {
    const env = localStackEnv(SECRETS, {});
    expect(new URL(env.DB_URL!).username).toBe("mdame_engine");
    expect(new URL(LOCAL_DB_URL).username).toBe("postgres");
    expect(Object.values(env).some((value) => value.includes("postgres:postgres@"))).toBe(false);
  });

  test("secrets set in the environment replace the generated ones", () => {
    const webhook = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    const env = localStackEnv(SECRETS, { WEBHOOK_SECRET: webhook });
    expect(env.WEBHOOK_SECRET).toBe(webhook);
    expect(env.CREDENTIALS_KEY).toBe(SECRETS.CREDENTIALS_KEY);
  });

  test("a rotation's previous keys and secrets reach the components only while they are kept, the environment first", () => {
    expect(localStackEnv(SECRETS, {})).not.toHaveProperty("CREDENTIALS_KEYS_PREVIOUS");
    expect(localStackEnv(SECRETS, {})).not.toHaveProperty("WEBHOOK_SECRETS_PREVIOUS");
    const kept = {
      ...SECRETS,
      CREDENTIALS_KEYS_PREVIOUS: Buffer.alloc(32, 3).toString("base64"),
      WEBHOOK_SECRETS_PREVIOUS: `whsec_${Buffer.alloc(32, 4).toString("base64")}`,
    };
    expect(localStackEnv(kept, {})).toMatchObject({
      CREDENTIALS_KEYS_PREVIOUS: kept.CREDENTIALS_KEYS_PREVIOUS,
      WEBHOOK_SECRETS_PREVIOUS: kept.WEBHOOK_SECRETS_PREVIOUS,
    });
    const fromEnvironment = Buffer.alloc(32, 5).toString("base64");
    expect(localStackEnv(kept, { CREDENTIALS_KEYS_PREVIOUS: fromEnvironment }).CREDENTIALS_KEYS_PREVIOUS).toBe(fromEnvironment);
  });

  test("the secrets file keeps the previous keys the operator put there, and never generates any", () => {
    const dir = mkdtempSync(join(tmpdir(), "mdame-secrets-"));
    try {
      const file = join(dir, "secrets.json");
      const first = loadOrCreateSecrets(file);
      expect(first.CREDENTIALS_KEYS_PREVIOUS).toBeUndefined();
      expect(JSON.parse(readFileSync(file, "utf8"))).not.toHaveProperty("CREDENTIALS_KEYS_PREVIOUS");
      const previous = first.CREDENTIALS_KEY;
      writeFileSync(file, JSON.stringify({ ...first, CREDENTIALS_KEY: Buffer.alloc(32, 6).toString("base64"), CREDENTIALS_KEYS_PREVIOUS: previous }));
      const rotated = loadOrCreateSecrets(file);
      expect(rotated.CREDENTIALS_KEYS_PREVIOUS).toBe(previous);
      expect(rotated.CREDENTIALS_KEY).toBe(Buffer.alloc(32, 6).toString("base64"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("tests and the demo force every emulator, whatever the environment configures", () => {
    const env = localStackEnv(SECRETS, { MDAME_EMULATE: "all", GEMINI_API_KEY: "AIza-real-key" });
    expect(env.GEMINI_API_KEY).toBe("local-emulator-key");
    expect(env.GEMINI_BASE_URL).toBe(LOCAL_EMULATOR_URL);
  });
});

describe("localStackEnv --prod", () => {
  test("production on this machine: ENV=prod and every provider as the environment configures it, no emulator", () => {
    const real = {
      MDAME_EMULATE: "none",
      GEMINI_API_KEY: "AIza-real-key",
      STORAGE_BACKEND: "local",
      STORAGE_LOCAL_DIR: "/srv/mdame/assets",
      COMFYUI_URL: "http://127.0.0.1:8188",
    };
    const env = localStackEnv(SECRETS, real, { prod: true });
    expect(env).toMatchObject({ ENV: "prod", MDAME_EMULATE: "none", GEMINI_API_KEY: "AIza-real-key", STORAGE_BACKEND: "local", DB_URL: ENGINE_URL });
    expect(env.EMULATOR_URL).toBeUndefined();
    expect(Object.values(env).some((v) => v.includes(`:${LOCAL_STACK.emulatorPort}`))).toBe(false);
  });

  test("a provider left to its emulator is refused, naming it", () => {
    expect(() => localStackEnv(SECRETS, { MDAME_EMULATE: "storage" }, { prod: true })).toThrow(
      "ENV=prod runs every provider for real, but storage would be emulated: set MDAME_EMULATE=none",
    );
  });
});

describe("workerEnv", () => {
  test("each worker connects as its own role and holds none of the publisher's secrets", () => {
    const env = localStackEnv(SECRETS, { CREDENTIALS_KEYS_PREVIOUS: Buffer.alloc(32, 3).toString("base64") });
    expect(env.CREDENTIALS_KEY).toBe(SECRETS.CREDENTIALS_KEY);
    for (const [component, role, password] of [["gpu-worker", "mdame_gpu_worker", "a"], ["render-runner", "mdame_render_runner", "b"]] as const) {
      const own = workerEnv(env, component, SECRETS);
      expect(own.DB_URL).toBe(`postgres://${role}:${password.repeat(48)}@127.0.0.1:${LOCAL_STACK.dbPort}/postgres`);
      for (const name of ["CREDENTIALS_KEY", "CREDENTIALS_KEYS_PREVIOUS", "GOOGLE_OAUTH_CLIENT_SECRET", "TIKTOK_CLIENT_SECRET"]) {
        expect(own[name]).toBeUndefined();
      }
      // What a worker needs stays: the callbacks' secret, the storage and the providers.
      expect(own).toMatchObject({
        WEBHOOK_SECRET: SECRETS.WEBHOOK_SECRET,
        SUPABASE_SERVICE_ROLE_KEY: SECRETS.SERVICE_ROLE_KEY,
        GEMINI_API_KEY: "local-emulator-key",
      });
    }
    expect(env.DB_URL).toBe(ENGINE_URL);
  });
});

describe("emulatedGroups", () => {
  test("none, a list, and an unknown name", () => {
    expect([...emulatedGroups({ MDAME_EMULATE: "none" })]).toEqual([]);
    expect([...emulatedGroups({ MDAME_EMULATE: " trends , storage " })].sort()).toEqual(["storage", "trends"]);
    expect(() => emulatedGroups({ MDAME_EMULATE: "storage,youtub" })).toThrow("MDAME_EMULATE names unknown providers (youtub)");
  });
});
