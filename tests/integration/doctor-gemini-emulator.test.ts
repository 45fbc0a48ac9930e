/**
 * What doctor relies on in the Gemini emulator, through @google/genai: `models.get` describes a
 * model, and an emulator given the stack's key refuses any other key as Google does (400
 * INVALID_ARGUMENT, reason API_KEY_INVALID) on every route, while one given no key accepts any.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { ApiError, GoogleGenAI } from "@google/genai";
import { ScriptDraft } from "../../shared/contracts/llm.ts";
import { ProviderRejectedError } from "../../shared/providers/errors.ts";
import { createGeminiJsonModel } from "../../shared/providers/llm/gemini.ts";
import { type RunningEmulator, startEmulator } from "../../emulators/main.ts";
import { tempDir } from "./fixtures/emulator-harness.ts";

const ISSUED = "issued-key-for-this-stack";
let keyed: RunningEmulator;
let open: RunningEmulator;
const dirs: string[] = [];

beforeAll(async () => {
  for (const _ of [0, 1]) dirs.push(await tempDir("gemini-key"));
  keyed = await startEmulator({ port: 0, dataDir: dirs[0]!, geminiApiKey: ISSUED, log: () => {} });
  open = await startEmulator({ port: 0, dataDir: dirs[1]!, log: () => {} });
});

afterAll(async () => {
  await keyed?.stop();
  await open?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 60_000);

const client = (apiKey: string, baseUrl: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl, apiVersion: "v1beta" } });
const scriptPrompt = ["TASK: script", "LANGUAGE: en", "TOPIC: tide pools", "CONTEXT: Tide pools drew crowds this week", "", "Answer with JSON only."].join(
  "\n",
);

test("models.get describes a Gemini model, with generateContent among its methods", async () => {
  const model = await client(ISSUED, keyed.url).models.get({ model: "gemini-2.5-flash" });
  expect(model.name).toBe("models/gemini-2.5-flash");
  expect(model.displayName).toBe("Gemini 2.5 Flash");
  expect(model.supportedActions).toContain("generateContent");
  expect(model.inputTokenLimit).toBeGreaterThan(0);
});

test("models.get of an unknown model is Google's 404", async () => {
  const error = await client(ISSUED, keyed.url).models.get({ model: "imagen-3" }).catch((e) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(404);
  expect((error as ApiError).message).toContain("NOT_FOUND");
});

test("a key other than the issued one is refused on models.get and generateContent alike", async () => {
  const error = await client("some-other-key", keyed.url).models.get({ model: "gemini-2.5-flash" }).catch((e) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(400);
  expect((error as ApiError).message).toContain("API_KEY_INVALID");
  expect((error as ApiError).message).toContain("API key not valid. Please pass a valid API key.");

  const wrong = createGeminiJsonModel({ apiKey: "some-other-key", baseUrl: keyed.url, model: "gemini-2.5-flash" });
  const refused = await wrong.generateJson(scriptPrompt, ScriptDraft, { temperature: 0.5 }).catch((e) => e);
  expect(refused).toBeInstanceOf(ProviderRejectedError);
  expect((refused as ProviderRejectedError).status).toBe(400);

  const right = createGeminiJsonModel({ apiKey: ISSUED, baseUrl: keyed.url, model: "gemini-2.5-flash" });
  const { value } = await right.generateJson(scriptPrompt, ScriptDraft, { temperature: 0.5 });
  expect(value.narration.length).toBeGreaterThan(0);
});

test("an emulator given no key accepts any non-empty key, and refuses a missing one", async () => {
  const model = await client("any-key-at-all", open.url).models.get({ model: "gemini-2.5-pro" });
  expect(model.displayName).toBe("Gemini 2.5 Pro");
  const response = await fetch(`${open.url}/v1beta/models/gemini-2.5-pro`);
  expect(response.status).toBe(403);
  expect(((await response.json()) as { error: { status: string } }).error.status).toBe("PERMISSION_DENIED");
});
