/**
 * Gemini API `models.generateContent` as `@google/genai` calls it:
 * `POST /{v1beta|v1|v1alpha}/models/{model}:generateContent`, API key in `x-goog-api-key`
 * (or `?key=`), body `{contents:[{role,parts:[{text}]}], generationConfig:{temperature, seed,
 * responseMimeType}}`.
 *
 * The emulated model is deterministic: the answer depends only on a SHA-256 of the model name,
 * the prompt text and the generation parameters. Tasks are in tasks/; an unknown task is
 * still answered (200) with `{"error":"unknown task"}`, which the caller's schema must reject.
 * When `responseMimeType` is not `application/json` the JSON comes wrapped in a Markdown fence,
 * as models do in free-text mode.
 *
 * Fault `serve` (faults/fault-book.ts) answers with a recorded answer instead: the malformed-output corpus
 * replays through it, and once its count is used up the model answers normally (the repair).
 *
 * `GET /{version}/models/{model}` answers `models.get` with the model's description. When the
 * emulator is given the key it issued (`geminiApiKey`, the stack's GEMINI_API_KEY), any other key
 * is refused as Google refuses an invalid one: 400 INVALID_ARGUMENT with reason API_KEY_INVALID.
 *
 * A model id ending in `-fooled` is the fully fooled model of tasks/fooled.ts, which obeys the
 * attacks `PUT /_emulator/fooled` describes (the OpenAI-compatible routes share it).
 */
import { createHash } from "node:crypto";
import type { EmulatorContext } from "../context.ts";
import { googleError, jsonResponse } from "../context.ts";
import { readJsonValue } from "../admin-json.ts";
import { type ServedAnswer, slowDown } from "../faults/fault-book.ts";
import { FooledBook, isFooledModel, obey, parseFooledAttacks } from "./tasks/fooled.ts";
import { auditHook } from "./tasks/hook-audit.ts";
import { parsePrompt, Variant } from "./tasks/prompt.ts";
import { planScenes } from "./tasks/scene-plan.ts";
import { classifySafety } from "./tasks/safety.ts";
import { writeScript } from "./tasks/script.ts";
import { handleGeminiTts, isTtsModel } from "./tts.ts";
import { answerImage, type ImageGenerationConfig, wantsImage } from "./image.ts";

const ROUTE = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const MODEL_ROUTE = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+)$/;

const TASKS: Record<string, (headers: Record<string, string>, variant: Variant) => unknown> = {
  script: writeScript,
  scene_plan: planScenes,
  hook_audit: (headers) => auditHook(headers),
  safety_classification: (headers) => classifySafety(headers),
};

interface GenerateContentRequest {
  contents?: Array<{ role?: string; parts?: Array<{ text?: string }> }>;
  generationConfig?: { temperature?: number; seed?: number; responseMimeType?: string } & ImageGenerationConfig;
}

/** Rough token count (about 4 characters per token), as usageMetadata reports it. */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The emulated model: prompt and generation parameters in, answer text out (no I/O). */
export function answerPrompt(
  model: string,
  prompt: string,
  config: GenerateContentRequest["generationConfig"] = {},
  options: { lowHookScore?: boolean; fooled?: FooledBook } = {},
): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([model, prompt, config.temperature ?? null, config.seed ?? null]))
    .digest();
  const { task, headers } = parsePrompt(prompt);
  const run = TASKS[task];
  const value = task === "hook_audit" && options.lowHookScore
    ? { score: 0.2, reasons: ["the opening does not give a viewer a reason to stay"] }
    : run
    ? run(headers, new Variant(new Uint8Array(digest)))
    : { error: "unknown task" };
  const attack = isFooledModel(model) ? options.fooled?.recognise(prompt) : null;
  const json = JSON.stringify(attack ? obey(task, value, attack.payloads, new Variant(new Uint8Array(digest).reverse())) : value);
  return config.responseMimeType === "application/json" ? json : "```json\n" + json + "\n```";
}

const invalidApiKey = () =>
  googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", {
    details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }],
  });

/** The refusal Google answers for a missing or wrong key, or undefined when the key is accepted. */
function refuseKey(req: Request, url: URL, ctx: EmulatorContext): Response | undefined {
  const apiKey = req.headers.get("x-goog-api-key") ?? url.searchParams.get("key") ?? "";
  if (apiKey.trim() === "") {
    return googleError(
      403,
      "PERMISSION_DENIED",
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (ctx.geminiApiKey !== undefined && apiKey !== ctx.geminiApiKey) return invalidApiKey();
  return undefined;
}

/** "gemini-2.5-flash" -> "Gemini 2.5 Flash". */
function displayName(model: string): string {
  return model.split("-").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(" ");
}

/** `models.get`: the model's description, as the Gemini API lists it. */
function describeModel(req: Request, url: URL, ctx: EmulatorContext, version: string, model: string): Response {
  if (req.method !== "GET") return googleError(405, "INVALID_ARGUMENT", `Method ${req.method} is not allowed.`);
  const refused = refuseKey(req, url, ctx);
  if (refused) return refused;
  if (!model.startsWith("gemini-")) return googleError(404, "NOT_FOUND", `models/${model} is not found for API version ${version}.`);
  return jsonResponse({
    name: `models/${model}`,
    version: "001",
    displayName: displayName(model),
    description: `${displayName(model)} (emulated: deterministic answers for the engine's prompts)`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ["generateContent", "countTokens"],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    thinking: true,
  });
}

/**
 * A recorded answer (fault `serve`) in generateContent's shape: a blocked prompt has
 * `promptFeedback` and no candidates, an empty answer no candidates, a safety stop a candidate
 * without content.
 */
function servedResponse(model: string, prompt: string, answer: ServedAnswer): Response {
  const promptTokenCount = tokens(prompt);
  const candidatesTokenCount = answer.text ? tokens(answer.text) : 0;
  const usageMetadata = { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount };
  if (answer.blockReason) return jsonResponse({ promptFeedback: { blockReason: answer.blockReason }, usageMetadata, modelVersion: model });
  if (answer.empty) return jsonResponse({ candidates: [], usageMetadata, modelVersion: model });
  const candidate: Record<string, unknown> = { finishReason: answer.finishReason ?? "STOP", index: 0 };
  if (answer.text !== undefined) candidate.content = { role: "model", parts: [{ text: answer.text }] };
  if (candidate.finishReason === "SAFETY") {
    candidate.safetyRatings = [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }];
  }
  return jsonResponse({ candidates: [candidate], usageMetadata, modelVersion: model });
}

const fooledBooks = new WeakMap<EmulatorContext, FooledBook>();

/** The attacks this emulator's fooled models obey. */
export function fooledBookOf(ctx: EmulatorContext): FooledBook {
  let book = fooledBooks.get(ctx);
  if (!book) fooledBooks.set(ctx, book = new FooledBook());
  return book;
}

const MAX_FOOLED_BODY = 4 * 1024 * 1024;

/** `PUT /_emulator/fooled {"attacks": [{"text", "payloads"}]}` replaces the attacks; GET counts them. */
async function fooledAdmin(req: Request, ctx: EmulatorContext): Promise<Response> {
  if (req.method === "GET") return jsonResponse({ attacks: fooledBookOf(ctx).size });
  if (req.method !== "PUT") return jsonResponse({ error: "use PUT or GET" }, 405);
  const body = await readJsonValue(req, MAX_FOOLED_BODY);
  if (body instanceof Response) return body;
  const attacks = parseFooledAttacks(body.value);
  if (typeof attacks === "string") return jsonResponse({ error: attacks }, 400);
  fooledBookOf(ctx).replace(attacks);
  return jsonResponse({ attacks: attacks.length });
}

export async function handleGemini(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === "/_emulator/fooled") return await fooledAdmin(req, ctx);
  const described = MODEL_ROUTE.exec(url.pathname);
  if (described) return describeModel(req, url, ctx, described[1]!, described[2]!);
  const route = ROUTE.exec(url.pathname);
  if (!route) return undefined;
  const [, version, model, method] = route;
  if (req.method !== "POST") return googleError(405, "INVALID_ARGUMENT", `Method ${req.method} is not allowed.`);

  const refused = refuseKey(req, url, ctx);
  if (refused) return refused;
  if (method === "streamGenerateContent") {
    return googleError(400, "INVALID_ARGUMENT", "streamGenerateContent is not emulated; use generateContent.");
  }
  if (!model.startsWith("gemini-")) {
    return googleError(404, "NOT_FOUND", `models/${model} is not found for API version ${version}, or is not supported for generateContent.`);
  }

  if (isTtsModel(model)) return handleGeminiTts(req, model, ctx);

  await slowDown(ctx.faults, "gemini");
  const fault = ctx.faults.take("gemini", (kind) => kind !== "low_hook_scores");
  if (fault?.kind === "unavailable") {
    return googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
  }
  if (fault?.kind === "rate_limited") {
    return googleError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details.");
  }
  if (fault?.kind === "invalid_api_key") return invalidApiKey();

  let body: GenerateContentRequest;
  try {
    body = await req.json() as GenerateContentRequest;
  } catch {
    return googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
  }
  const prompt = (body.contents ?? [])
    .filter((content) => (content.role ?? "user") === "user")
    .flatMap((content) => content.parts ?? [])
    .map((part) => part.text ?? "")
    .join("\n");
  if (prompt.trim() === "") return googleError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified");

  if (fault?.kind === "serve" && fault.answer) return servedResponse(model, prompt, fault.answer);
  const blockedPromptTokens = tokens(prompt);
  // Gemini's own safety system: the prompt refused outright, or the answer stopped for SAFETY.
  if (fault?.kind === "prompt_blocked") {
    return jsonResponse({
      promptFeedback: { blockReason: "SAFETY", safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }] },
      usageMetadata: { promptTokenCount: blockedPromptTokens, totalTokenCount: blockedPromptTokens },
      modelVersion: model,
    });
  }
  if (fault?.kind === "finish_safety") {
    return jsonResponse({
      candidates: [{ finishReason: "SAFETY", index: 0, safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "HIGH", blocked: true }] }],
      usageMetadata: { promptTokenCount: blockedPromptTokens, totalTokenCount: blockedPromptTokens },
      modelVersion: model,
    });
  }

  if (wantsImage(body.generationConfig)) return await answerImage(ctx, model, prompt, body.generationConfig!);
  const lowHookScore = parsePrompt(prompt).task === "hook_audit" && ctx.faults.take("gemini", (kind) => kind === "low_hook_scores") !== undefined;
  let text = answerPrompt(model, prompt, body.generationConfig, { lowHookScore, fooled: fooledBookOf(ctx) });
  let finishReason = "STOP";
  if (fault?.kind === "malformed_json") {
    text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    finishReason = "MAX_TOKENS";
  }
  const promptTokenCount = tokens(prompt);
  const candidatesTokenCount = tokens(text);
  return jsonResponse({
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason, index: 0 }],
    usageMetadata: { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount },
    modelVersion: model,
    responseId: createHash("sha256").update(text).digest("base64url").slice(0, 22),
  });
}
