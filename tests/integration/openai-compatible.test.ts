/**
 * The OpenAI-compatible provider (the official `openai` client) against the emulator of the Chat
 * Completions protocol: JSON mode, the engine's task answers, usage, stop reasons, error mapping
 * and auth.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { HookAudit, ScenePlan } from "../../shared/contracts/llm.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { generateValidated } from "../../shared/providers/llm/boundary.ts";
import { createOpenAiCompatibleModel } from "../../shared/providers/llm/openai-compatible.ts";
import { OPENAI_EMULATOR_API_KEY } from "../../emulators/openai/routes.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
const HOOK = "TASK: hook_audit\nLANGUAGE: en\nHOOK: Did you know 3 planets could fit between the Earth and the Moon?";
const model = (overrides: Record<string, unknown> = {}) =>
  createOpenAiCompatibleModel({ baseUrl: `${emulator.url}/v1`, apiKey: OPENAI_EMULATOR_API_KEY, model: "llama3.1:8b", ...overrides });

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.stop();
}, 60_000);

test("JSON mode answers the engine's tasks deterministically, with usage", async () => {
  const first = await model().complete(HOOK, { temperature: 0 });
  expect(first.stop).toBe("stop");
  expect(HookAudit.parse(JSON.parse(first.text)).score).toBe(1);
  expect(first.usage?.promptTokenCount).toBeGreaterThan(0);
  expect(first.usage?.totalTokenCount).toBe(first.usage!.promptTokenCount! + first.usage!.candidatesTokenCount!);
  expect((await model().complete(HOOK, { temperature: 0 })).text).toBe(first.text);
});

test("the request the emulator saw was a bearer-authenticated chat completion in JSON mode", async () => {
  const seen: { auth: string | null; body: Record<string, unknown> }[] = [];
  const original = globalThis.fetch;
  // Installed before the client is made: it keeps the fetch it found.
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? new Request(input, init) : new Request(String(input), init);
    seen.push({ auth: request.headers.get("authorization"), body: await request.clone().json() as Record<string, unknown> });
    return original(request);
  }) as typeof fetch;
  try {
    const recording = createOpenAiCompatibleModel({
      baseUrl: `${emulator.url}/v1`,
      apiKey: OPENAI_EMULATOR_API_KEY,
      model: "gpt-4o-mini",
      responseFormat: "json_schema",
    });
    const plan = await generateValidated(
      recording,
      "TASK: scene_plan\nLANGUAGE: en\nSTYLE: calm\nNARRATION:\nBees dance to share directions. The angle points to food, and the length tells the distance.",
      ScenePlan,
      { temperature: 0.4, seed: 7 },
    );
    expect(plan.value.scenes).toHaveLength(5);
  } finally {
    globalThis.fetch = original;
  }
  expect(seen[0]!.auth).toBe(`Bearer ${OPENAI_EMULATOR_API_KEY}`);
  expect(seen[0]!.body).toMatchObject({ model: "gpt-4o-mini", temperature: 0.4, seed: 7, messages: [{ role: "user" }] });
  const format = seen[0]!.body.response_format as { type: string; json_schema: { schema: { required: string[] } } };
  expect(format.type).toBe("json_schema");
  expect(format.json_schema.schema.required).toEqual(["scenes"]);
});

test("a wrong key is a rejection (401), not an outage", async () => {
  const error = await model({ apiKey: "sk-someone-else" }).complete(HOOK, { temperature: 0 }).catch((e) => e);
  expect(error).toBeInstanceOf(ProviderRejectedError);
  expect(error.status).toBe(401);
  expect(error.retriable).toBe(false);
  expect(error.message).toContain("Incorrect API key");
  const keyless = await model({ apiKey: undefined }).complete(HOOK, { temperature: 0 }).catch((e) => e);
  expect(keyless).toBeInstanceOf(ProviderRejectedError);
});

test("429 and 503 are retriable outages; an unreachable server too", async () => {
  await emulator.armFault({ service: "openai", kind: "rate_limited" });
  const limited = await model().complete(HOOK, { temperature: 0 }).catch((e) => e);
  expect(limited).toBeInstanceOf(ProviderUnavailableError);
  expect(limited.status).toBe(429);
  await emulator.armFault({ service: "openai", kind: "unavailable" });
  const down = await model().complete(HOOK, { temperature: 0 }).catch((e) => e);
  expect(down).toBeInstanceOf(ProviderUnavailableError);
  expect(down.status).toBe(503);
  const offline = await createOpenAiCompatibleModel({ baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", model: "m" }).complete(HOOK, { temperature: 0 }).catch((
    e,
  ) => e);
  expect(offline).toBeInstanceOf(ProviderUnavailableError);
  // The fault is used up: the next call is answered.
  expect((await model().complete(HOOK, { temperature: 0 })).stop).toBe("stop");
});

test("finish reasons map to the boundary's stops: length, content_filter, a refusal, no choices", async () => {
  const served = async (answer: Record<string, unknown>) => {
    await emulator.armFault({ service: "openai", kind: "serve", answer });
    return model().complete(HOOK, { temperature: 0 });
  };
  expect(await served({ text: '{"score": 0.', finishReason: "length" })).toMatchObject({ stop: "max_tokens", text: '{"score": 0.' });
  expect(await served({ finishReason: "content_filter" })).toMatchObject({ stop: "safety", reason: "content_filter" });
  expect(await served({ refusal: "I can't help with that." })).toMatchObject({ stop: "safety", text: "" });
  expect(await served({ empty: true })).toMatchObject({ stop: "empty" });
});

test("a cut answer is repaired on the same provider", async () => {
  await emulator.armFault({ service: "openai", kind: "serve", answer: { text: '{"score": 0.', finishReason: "length" } });
  const result = await generateValidated(model(), HOOK, HookAudit, { temperature: 0 });
  expect(result.calls).toBe(2);
  expect(result.value.score).toBe(1);
});

test("the models list needs the key too", async () => {
  expect((await fetch(`${emulator.url}/v1/models`)).status).toBe(401);
  const list = await (await fetch(`${emulator.url}/v1/models`, { headers: { authorization: `Bearer ${OPENAI_EMULATOR_API_KEY}` } })).json() as {
    data: { id: string }[];
  };
  expect(list.data.map((m) => m.id)).toContain("emulated-chat");
});

test("a serve fault with a malformed answer is refused when armed, and arms nothing", async () => {
  const arm = (body: unknown) => fetch(`${emulator.url}/_emulator/faults`, { method: "POST", body: JSON.stringify(body) });
  const cases: [unknown, string][] = [
    [{ service: "openai", kind: "serve" }, "serve needs answer"],
    [{ service: "gemini", kind: "serve", answer: { text: 5 } }, "answer.text must be a string"],
    [{ service: "gemini", kind: "serve", answer: { finishReason: "STOP; drop" } }, "answer.finishReason"],
    [{ service: "openai", kind: "serve", answer: { text: "{}", mood: "grumpy" } }, "unknown keys: mood"],
  ];
  for (const [body, message] of cases) {
    const response = await arm(body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(message);
  }
  const listed = await (await fetch(`${emulator.url}/_emulator/faults`)).json() as { faults: unknown[] };
  expect(listed.faults).toEqual([]);
});
