import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { HookAudit, ScenePlan, ScriptDraft } from "../../shared/contracts/llm.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { createGeminiJsonModel, LlmContractError } from "../../shared/providers/llm/gemini.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let model: ReturnType<typeof createGeminiJsonModel>;

beforeAll(async () => {
  emulator = await startTestEmulator();
  model = createGeminiJsonModel({ apiKey: "test-key", baseUrl: emulator.url, model: "gemini-2.5-flash" });
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.reset());

const scriptPrompt = (language: string, topic: string, context: string, wordsHeader?: string) =>
  [
    `TASK: script`,
    `LANGUAGE: ${language}`,
    ...(wordsHeader === undefined ? [] : [`WORDS: ${wordsHeader}`]),
    `TOPIC: ${topic}`,
    `CONTEXT: ${context}`,
    "",
    "Write the voice-over. Answer with JSON only.",
  ].join("\n");

const words = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
const EN = new Set(["the", "and", "is", "of", "to", "that", "you", "what", "it", "this", "are", "from"]);
const ID = new Set(["yang", "dan", "ini", "untuk", "dengan", "kamu", "tentang", "dari", "itu", "tidak", "ada", "kita"]);
function languageHits(text: string) {
  const tokens = words(text).map((w) => w.toLowerCase().replace(/[^\p{L}]/gu, ""));
  return { en: tokens.filter((t) => EN.has(t)).length, id: tokens.filter((t) => ID.has(t)).length };
}

test("an English script parses as ScriptDraft, opens with its hook and reads as English", async () => {
  const { value, raw, usage } = await model.generateJson(
    scriptPrompt("en", "northern lights forecast", "Auroras could be visible far south of the usual range tonight"),
    ScriptDraft,
    { temperature: 0.7 },
  );
  expect(ScriptDraft.parse(JSON.parse(raw))).toEqual(value);
  expect(value.narration.startsWith(value.hook)).toBe(true);
  expect(value.narration.toLowerCase()).toContain("northern lights forecast");
  const count = words(value.narration).length;
  expect(count).toBeGreaterThanOrEqual(95);
  expect(count).toBeLessThanOrEqual(150);
  const hits = languageHits(value.narration);
  expect(hits.en).toBeGreaterThan(8);
  expect(hits.id).toBeLessThanOrEqual(1);
  expect(value.hashtags.length).toBeGreaterThanOrEqual(2);
  expect(usage?.totalTokenCount).toBeGreaterThan(0);
});

test("an Indonesian script is written in Indonesian", async () => {
  const { value } = await model.generateJson(
    scriptPrompt("id", "gerhana bulan", "Gerhana bulan total bisa disaksikan dari seluruh Indonesia malam ini"),
    ScriptDraft,
    { temperature: 0.7 },
  );
  expect(value.narration.startsWith(value.hook)).toBe(true);
  expect(value.narration.toLowerCase()).toContain("gerhana bulan");
  const hits = languageHits(value.narration);
  expect(hits.id).toBeGreaterThan(8);
  expect(hits.en).toBeLessThanOrEqual(1);
  const count = words(value.narration).length;
  expect(count).toBeGreaterThanOrEqual(95);
  expect(count).toBeLessThanOrEqual(150);
});

test("the same prompt and parameters give the same script; another temperature gives another", async () => {
  const prompt = scriptPrompt("en", "sourdough starter", "Home bakers are reviving sourdough this winter");
  const first = await model.generateJson(prompt, ScriptDraft, { temperature: 0.4, seed: 7 });
  const again = await model.generateJson(prompt, ScriptDraft, { temperature: 0.4, seed: 7 });
  const other = await model.generateJson(prompt, ScriptDraft, { temperature: 0.9, seed: 7 });
  expect(again.raw).toBe(first.raw);
  expect(other.raw).not.toBe(first.raw);
});

test("a WORDS header sets the narration's length, in both languages; the whole draft still follows the contract", async () => {
  const topics: [string, string, string][] = [
    ["en", "northern lights forecast", "Auroras could be visible far south of the usual range tonight"],
    ["en", "why cats purr", ""],
    ["id", "gerhana bulan", "Gerhana bulan total bisa disaksikan dari seluruh Indonesia malam ini"],
    ["id", "kopi susu", ""],
  ];
  for (const [language, topic, context] of topics) {
    for (const range of [[60, 75], [160, 180]] as const) {
      const prompt = scriptPrompt(language, topic, context, `${range[0]}-${range[1]}`);
      const { value } = await model.generateJson(prompt, ScriptDraft, { temperature: 0.5 });
      const count = words(value.narration).length;
      expect({ topic, range, count, inRange: count >= range[0] && count <= range[1] }).toEqual({ topic, range, count, inRange: true });
      expect(value.narration.startsWith(value.hook)).toBe(true);
    }
  }
});

test("a WORDS header that is not a range within 60-180 is answered with an error the caller's schema rejects", async () => {
  for (const bad of ["20-40", "150-155", "lots"]) {
    const prompt = scriptPrompt("en", "tea", "Tea sales rose this winter", bad);
    const error = await model.generateJson(prompt, ScriptDraft, { temperature: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmContractError);
    expect(error.raw).toContain("WORDS must be");
  }
});

test("a scene plan splits the narration into 5-8 scenes that join back to it exactly", async () => {
  const { value: script } = await model.generateJson(
    scriptPrompt("en", "james webb telescope", "Webb spots a baby galaxy"),
    ScriptDraft,
    { temperature: 0.2 },
  );
  const narration = script.narration.replace(/ /g, "  ");
  const prompt = ["TASK: scene_plan", "LANGUAGE: en", "STYLE: bold flat colours, slow drift", "NARRATION:", narration, "", "Split it."].join("\n");
  const { value: plan } = await model.generateJson(prompt, ScenePlan, { temperature: 0.4 });
  expect(plan.scenes.length).toBeGreaterThanOrEqual(5);
  expect(plan.scenes.length).toBeLessThanOrEqual(8);
  expect(plan.scenes.map((s) => s.narration).join(" ")).toBe(narration.replace(/\s+/g, " ").trim());
  for (const scene of plan.scenes) expect(scene.prompt).toContain("bold flat colours");
});

test("a short narration is still split into 5 scenes without losing a word", async () => {
  const narration = "Bees dance to share directions. The angle points to food, and the length tells the distance.";
  const { value: plan } = await model.generateJson(`TASK: scene_plan\nLANGUAGE: en\nSTYLE: macro\nNARRATION:\n${narration}`, ScenePlan, { temperature: 0 });
  expect(plan.scenes).toHaveLength(5);
  expect(plan.scenes.map((s) => s.narration).join(" ")).toBe(narration);
});

test("the hook audit scores a question to the viewer above a flat statement, deterministically", async () => {
  const audit = (hook: string) => model.generateJson(`TASK: hook_audit\nLANGUAGE: en\nHOOK: ${hook}`, HookAudit, { temperature: 0 });
  const strong = await audit("Did you know 3 planets could fit between the Earth and the Moon?");
  const flat = await audit("Planets are far apart.");
  expect(strong.value.score).toBeGreaterThanOrEqual(0.72);
  expect(flat.value.score).toBeLessThan(0.72);
  expect((await audit("Planets are far apart.")).value).toEqual(flat.value);
  expect(strong.value.reasons.length).toBeGreaterThan(0);
});

test("an unknown task is answered, and the caller's schema rejects the answer", async () => {
  const error = await model.generateJson("TASK: horoscope\nSIGN: leo", ScriptDraft, { temperature: 0 }).catch((e) => e);
  expect(error).toBeInstanceOf(LlmContractError);
  expect(error.raw).toBe('{"error":"unknown task"}');
  expect(error.issues.length).toBeGreaterThan(0);
});

test("an overloaded model (503) throws ProviderUnavailableError, then the next call succeeds", async () => {
  await emulator.armFault({ service: "gemini", kind: "unavailable", count: 1 });
  const prompt = "TASK: hook_audit\nLANGUAGE: en\nHOOK: Why do cats purr when you stroke them?";
  const error = await model.generateJson(prompt, HookAudit, { temperature: 0 }).catch((e) => e);
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  expect(error.status).toBe(503);
  expect(error.retriable).toBe(true);
  expect((await model.generateJson(prompt, HookAudit, { temperature: 0 })).value.score).toBeGreaterThan(0);
});

test("rate limiting (429) is retriable, a rejected API key (400) is not", async () => {
  const prompt = "TASK: hook_audit\nLANGUAGE: en\nHOOK: Here is one fact about tea.";
  await emulator.armFault({ service: "gemini", kind: "rate_limited" });
  const limited = await model.generateJson(prompt, HookAudit, { temperature: 0 }).catch((e) => e);
  expect(limited).toBeInstanceOf(ProviderUnavailableError);
  expect(limited.status).toBe(429);
  await emulator.armFault({ service: "gemini", kind: "invalid_api_key" });
  const rejected = await model.generateJson(prompt, HookAudit, { temperature: 0 }).catch((e) => e);
  expect(rejected).toBeInstanceOf(ProviderRejectedError);
  expect(rejected.status).toBe(400);
  expect(rejected.retriable).toBe(false);
});

test("a reply cut mid-JSON throws LlmContractError with the raw text", async () => {
  await emulator.armFault({ service: "gemini", kind: "malformed_json", count: 1 });
  const error = await model.generateJson(scriptPrompt("en", "honeybees", "Why honeybees dance"), ScriptDraft, { temperature: 0.3 }).catch((e) => e);
  expect(error).toBeInstanceOf(LlmContractError);
  expect(error.message).toContain("not valid JSON");
  expect(error.raw.startsWith('{"title":')).toBe(true);
});

test("an unreachable endpoint is a retriable outage", async () => {
  const offline = createGeminiJsonModel({ apiKey: "k", baseUrl: "http://127.0.0.1:9", model: "gemini-2.5-flash" });
  const error = await offline.generateJson("TASK: hook_audit\nHOOK: x", HookAudit, { temperature: 0 }).catch((e) => e);
  expect(error).toBeInstanceOf(ProviderUnavailableError);
});
