/**
 * Gemini as a JSON model, through `@google/genai`. Runs in Deno (Edge Functions) and Bun.
 *
 * The model's answer is data: it must be JSON (the call sets `responseMimeType:
 * application/json`) and must satisfy the caller's Zod schema, or `LlmContractError` is thrown
 * with the Zod issues and the raw text. HTTP 429/5xx and network failures throw
 * `ProviderUnavailableError` (retriable); other 4xx throw `ProviderRejectedError`.
 * The client's own retries are off: retry policy belongs to the caller.
 */
import { ApiError, GoogleGenAI } from "@google/genai";
import type { z } from "zod";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";

const PROVIDER = "gemini";

/** The model answered, but not with what the contract asks for. */
export class LlmContractError extends Error {
  /** Zod issues when the JSON parsed but did not match; empty when it was not JSON at all. */
  readonly issues: readonly unknown[];
  /** The model's text, kept for the log. */
  readonly raw?: string;

  constructor(message: string, issues: readonly unknown[], raw?: string) {
    super(message);
    this.name = "LlmContractError";
    this.issues = issues;
    this.raw = raw;
  }
}

export interface GeminiJsonModelOptions {
  apiKey: string;
  /** Another endpoint for the Gemini API (the local emulator); defaults to Google's. */
  baseUrl?: string;
  /** e.g. `gemini-2.5-flash`. */
  model: string;
  /** Per-request limit; default 60 s. */
  timeoutMs?: number;
}

export interface GenerationParams {
  temperature: number;
  seed?: number;
}

export interface TokenUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
}

export interface JsonGeneration<T> {
  value: T;
  /** The model's text exactly as returned. */
  raw: string;
  usage?: TokenUsage;
}

export interface GeminiJsonModel {
  readonly model: string;
  generateJson<T>(prompt: string, schema: z.ZodType<T>, params: GenerationParams): Promise<JsonGeneration<T>>;
}

export function createGeminiJsonModel(options: GeminiJsonModelOptions): GeminiJsonModel {
  const ai = new GoogleGenAI({
    apiKey: options.apiKey,
    // v1beta is the version Google's REST reference documents for generateContent.
    httpOptions: { baseUrl: options.baseUrl, apiVersion: "v1beta", timeout: options.timeoutMs ?? 60_000 },
  });

  return {
    model: options.model,
    async generateJson<T>(prompt: string, schema: z.ZodType<T>, params: GenerationParams): Promise<JsonGeneration<T>> {
      let response;
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

      const raw = response.text ?? "";
      if (raw.trim() === "") {
        const reason = response.promptFeedback?.blockReason ?? response.candidates?.[0]?.finishReason ?? "no candidates";
        throw new LlmContractError(`Gemini returned no text (${reason})`, [], raw);
      }
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        throw new LlmContractError(`Gemini output is not valid JSON (finishReason ${response.candidates?.[0]?.finishReason ?? "unknown"})`, [], raw);
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const summary = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
        throw new LlmContractError(`Gemini output does not match the schema: ${summary}`, parsed.error.issues, raw);
      }
      const usage = response.usageMetadata;
      return {
        value: parsed.data,
        raw,
        usage: usage
          ? { promptTokenCount: usage.promptTokenCount, candidatesTokenCount: usage.candidatesTokenCount, totalTokenCount: usage.totalTokenCount }
          : undefined,
      };
    },
  };
}
