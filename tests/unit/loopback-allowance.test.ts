/**
 * ENV=prod refuses loopback URLs (an emulator's), except the services of the operator's own that
 * MDAME_ALLOW_LOOPBACK names, for an engine run whole on one machine (docs/guides/deploy.md).
 */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadEnv, LOOPBACK_ALLOWANCES, refusedLoopbackUrls } from "../../shared/config/env.ts";

const KEYS = ["ENV", "DB_URL", "FUNCTIONS_URL", "COMFYUI_URL", "OPENAI_COMPAT_BASE_URL", "GEMINI_BASE_URL"] as const;
const oneMachine = {
  ENV: "prod",
  DB_URL: "postgres://mdame_engine:pw@127.0.0.1:54322/postgres",
  FUNCTIONS_URL: "http://127.0.0.1:54321/functions/v1",
  COMFYUI_URL: "http://127.0.0.1:8188",
  OPENAI_COMPAT_BASE_URL: "http://localhost:11434/v1",
};

describe("MDAME_ALLOW_LOOPBACK", () => {
  test("unset, every loopback URL but DB_URL is refused in prod", () => {
    expect(() => loadEnv(KEYS, oneMachine)).toThrow("ENV=prod refuses emulator URLs: FUNCTIONS_URL, COMFYUI_URL, OPENAI_COMPAT_BASE_URL");
  });

  test("the services it names are allowed on loopback, and only those", () => {
    expect(() => loadEnv(KEYS, { ...oneMachine, MDAME_ALLOW_LOOPBACK: "functions,comfyui" })).toThrow(
      "ENV=prod refuses emulator URLs: OPENAI_COMPAT_BASE_URL",
    );
    const env = loadEnv(KEYS, { ...oneMachine, MDAME_ALLOW_LOOPBACK: "functions, comfyui,llm" });
    expect(env.COMFYUI_URL).toBe("http://127.0.0.1:8188");
  });

  test("a provider that is a third party's is never allowed: on loopback it is an emulator", () => {
    const names = Object.keys(LOOPBACK_ALLOWANCES).join(",");
    expect(() => loadEnv(KEYS, { ...oneMachine, MDAME_ALLOW_LOOPBACK: names, GEMINI_BASE_URL: "http://127.0.0.1:54330" })).toThrow(
      "ENV=prod refuses emulator URLs: GEMINI_BASE_URL",
    );
  });

  test("an unknown name is refused, naming the known ones", () => {
    expect(() => refusedLoopbackUrls({ COMFYUI_URL: "http://127.0.0.1:8188" }, "comfyui,gemini")).toThrow(ConfigError);
    expect(() => refusedLoopbackUrls({}, "gemini")).toThrow(
      "MDAME_ALLOW_LOOPBACK names unknown services (gemini): use some of functions, storage, comfyui, llm",
    );
  });

  test("in dev nothing is refused", () => {
    expect(loadEnv(KEYS, { ...oneMachine, ENV: "dev", GEMINI_BASE_URL: "http://127.0.0.1:54330" }).ENV).toBe("dev");
  });
});
