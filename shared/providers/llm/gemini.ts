/**
 * Gemini as a JSON model, through `@google/genai`. Runs in Deno (Edge Functions) and Bun.
 *
 * `complete` asks with `responseMimeType: application/json` and reports the text with why the
 * model stopped; the LLM boundary (boundary.ts) validates and repairs it. HTTP 429/5xx and
 * network failures throw `ProviderUnavailableError` (retriable); other 4xx throw
 * `ProviderRejectedError`. The client's own retries are off: retry policy belongs to the caller.
 *
 * `generateJson` is one call checked against a schema, without repair (LlmContractError on a bad
 * answer); the pipeline goes through the boundary instead.
 */
import { ApiError, type GenerateContentResponse, GoogleGenAI } from "@google/genai";
import type { z } from "zod";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";
import { checkAnswer, formatIssues, LlmContractError, LlmSafetyStopError } from "./contract.ts";
import type { GenerationParams, LlmCompletion, StopKind, TextModel, TokenUsage } from "./types.ts";

export { LlmContractError, LlmSafetyStopError } from "./contract.ts";
export type { GenerationParams, TokenUsage } from "./types.ts";

const PROVIDER = "gemini";

interface GeminiJsonModelOptions {
  apiKey: string;
  /** Another endpoint for the Gemini API (the local emulator); defaults to Google's. */
  baseUrl?: string;
  /** e.g. `gemini-2.5-flash`. */
  model: string;
  /** Per-request limit; default 60 s. */
  timeoutMs?: number;
}

interface JsonGeneration<T> {
  value: T;
  /** The model's text exactly as returned. */
  raw: string;
  usage?: TokenUsage;
}

interface GeminiJsonModel extends TextModel {
  generateJson<T>(prompt: string, schema: z.ZodType<T>, params: GenerationParams): Promise<JsonGeneration<T>>;
}

// Finish reasons of Google's FinishReason enum that mean a filter stopped the answer.
const SAFETY_REASONS = new Set(["SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

function stopOf(response: GenerateContentResponse): { stop: StopKind; reason: string } {
  const blocked = response.promptFeedback?.blockReason;
  if (blocked) return { stop: "safety", reason: `prompt blocked: ${blocked}` };
  const candidate = response.candidates?.[0];
  if (!candidate) return { stop: "empty", reason: "no candidates" };
  const reason = String(candidate.finishReason ?? "FINISH_REASON_UNSPECIFIED");
  if (SAFETY_REASONS.has(reason)) return { stop: "safety", reason };
  if (reason === "MAX_TOKENS") return { stop: "max_tokens", reason };
  if (reason === "STOP") return { stop: "stop", reason };
  return { stop: "other", reason };
}

function usageOf(response: GenerateContentResponse): TokenUsage | undefined {
  const usage = response.usageMetadata;
  return usage
    ? { promptTokenCount: usage.promptTokenCount, candidatesTokenCount: usage.candidatesTokenCount, totalTokenCount: usage.totalTokenCount }
    : undefined;
}

export function createGeminiJsonModel(options: GeminiJsonModelOptions): GeminiJsonModel {
  const ai = new GoogleGenAI({
    apiKey: options.apiKey,
    // v1beta is the version Google's REST reference documents for generateContent.
    httpOptions: { baseUrl: options.baseUrl, apiVersion: "v1beta", timeout: options.timeoutMs ?? 60_000 },
  });

  async function complete(prompt: string, params: GenerationParams): Promise<LlmCompletion> {
    let response: GenerateContentResponse;
    try {
      response = await ai.models.generateContent({
        model: options.model,
        contents: prompt,
        config: { responseMimeType: "application/json", temperature: params.temperature, seed: params.seed },
      });
    } catch (error) {
      if (error instanceof ApiError) {
        throw errorForStatus(PROVIDER, error.status, `Gemini answered ${error.status}: ${error.message}`, error);
      }
      const message = error instanceof Error ? error.message : String(error);
      throw new ProviderUnavailableError(PROVIDER, `Gemini request failed: ${message}`, { cause: error });
    }
    // The text parts of the first candidate (thought summaries left out), without the SDK's
    // `text` getter, which warns on mixed parts.
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    const text = parts.filter((part) => typeof part.text === "string" && !part.thought).map((part) => part.text).join("");
    return { text, ...stopOf(response), usage: usageOf(response) };
  }

  return {
    provider: PROVIDER,
    model: options.model,
    complete,
    async generateJson<T>(prompt: string, schema: z.ZodType<T>, params: GenerationParams): Promise<JsonGeneration<T>> {
      const completion = await complete(prompt, params);
      if (completion.stop === "safety") throw new LlmSafetyStopError(PROVIDER, completion.reason);
      const checked = checkAnswer(completion, schema);
      if (!checked.ok) {
        throw new LlmContractError(`Gemini output ${formatIssues(checked.issues).slice(0, 3).join("; ")}`, checked.issues, completion.text);
      }
      return { value: checked.value, raw: completion.text, usage: completion.usage };
    },
  };
}
