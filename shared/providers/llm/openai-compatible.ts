/**
 * Any OpenAI-compatible Chat Completions endpoint as a JSON model (OpenAI, Ollama, vLLM,
 * OpenRouter, LM Studio...), through the official `openai` client, which runs in Deno and Bun:
 * `POST {baseUrl}/chat/completions` with a bearer key and
 * `response_format: {type: "json_object"}`, or `{type: "json_schema", ...}` with the answer's
 * JSON Schema where the server supports structured outputs (`responseFormat: "json_schema"`).
 *
 * Errors are mapped as for Gemini: no connection, a timeout, 429 and 5xx are
 * ProviderUnavailableError (retriable; the router tries the next provider); 401/403/400/404 are
 * ProviderRejectedError. `finish_reason: "length"` is a cut answer, `content_filter` or a
 * refusal a safety stop. The client's own retries are off.
 */
import OpenAI, { APIConnectionError, APIError } from "openai";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";
import type { CompletionOptions, GenerationParams, LlmCompletion, StopKind, TextModel } from "./types.ts";

type OpenAiResponseFormat = "json_object" | "json_schema";

interface OpenAiCompatibleOptions {
  /** The API root, ending before `/chat/completions`: `https://api.openai.com/v1`, `http://ollama.internal:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; servers without keys (a local Ollama) accept any. */
  apiKey?: string;
  model: string;
  /** Which JSON mode to ask for; default `json_object`, which every compatible server offers. */
  responseFormat?: OpenAiResponseFormat;
  /** Name in logs, errors and cache keys; default `openai-compat`. */
  provider?: string;
  /** Per-request limit; default 60 s. */
  timeoutMs?: number;
}

function stopOf(finish: string | null | undefined, refusal: string | null | undefined): { stop: StopKind; reason: string } {
  if (refusal) return { stop: "safety", reason: `refusal: ${refusal.slice(0, 200)}` };
  switch (finish) {
    case "stop":
      return { stop: "stop", reason: finish };
    case "length":
      return { stop: "max_tokens", reason: finish };
    case "content_filter":
      return { stop: "safety", reason: finish };
    default:
      return { stop: "other", reason: String(finish ?? "none") };
  }
}

export function createOpenAiCompatibleModel(options: OpenAiCompatibleOptions): TextModel {
  const provider = options.provider ?? "openai-compat";
  const client = new OpenAI({
    // The client refuses to start without a key; keyless servers ignore whatever is sent.
    apiKey: options.apiKey && options.apiKey.trim() !== "" ? options.apiKey : "unused",
    baseURL: options.baseUrl,
    maxRetries: 0,
    timeout: options.timeoutMs ?? 60_000,
  });

  return {
    provider,
    model: options.model,
    async complete(prompt: string, params: GenerationParams, completionOptions: CompletionOptions = {}): Promise<LlmCompletion> {
      const schema = completionOptions.jsonSchema;
      const responseFormat = options.responseFormat === "json_schema" && schema
        // strict: false, since strict structured outputs refuse length and pattern keywords.
        ? { type: "json_schema" as const, json_schema: { name: "answer", schema, strict: false } }
        : { type: "json_object" as const };
      let response: OpenAI.Chat.Completions.ChatCompletion;
      try {
        response = await client.chat.completions.create({
          model: options.model,
          messages: [{ role: "user", content: prompt }],
          temperature: params.temperature,
          ...(params.seed === undefined ? {} : { seed: params.seed }),
          response_format: responseFormat,
        });
      } catch (error) {
        if (error instanceof APIError && !(error instanceof APIConnectionError) && typeof error.status === "number") {
          throw errorForStatus(provider, error.status, `${provider} answered ${error.status}: ${error.message}`, error);
        }
        const message = error instanceof Error ? error.message : String(error);
        throw new ProviderUnavailableError(provider, `${provider} request failed: ${message}`, { cause: error });
      }
      const choice = response.choices?.[0];
      if (!choice) return { text: "", stop: "empty", reason: "no choices" };
      const usage = response.usage
        ? {
          promptTokenCount: response.usage.prompt_tokens,
          candidatesTokenCount: response.usage.completion_tokens,
          totalTokenCount: response.usage.total_tokens,
        }
        : undefined;
      return { text: choice.message?.content ?? "", ...stopOf(choice.finish_reason, choice.message?.refusal), usage };
    },
  };
}
