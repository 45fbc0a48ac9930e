/**
 * What every LLM provider module offers: one completion of a text prompt, with the reason the
 * model stopped, normalised across providers. Validation and repair of the answer happen above
 * this interface (contract.ts, boundary.ts), the same for every provider.
 */

export interface GenerationParams {
  temperature: number;
  seed?: number;
}

export interface TokenUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
}

/**
 * Why the model stopped:
 * - `stop`: it finished its answer;
 * - `max_tokens`: the output limit cut it (Gemini `MAX_TOKENS`, OpenAI `length`);
 * - `safety`: a safety filter stopped or refused it (Gemini `SAFETY`, a blocked prompt, OpenAI
 *   `content_filter` or a refusal);
 * - `empty`: no candidate came back at all;
 * - `other`: anything else the provider reports (recitation, malformed call...).
 */
export type StopKind = "stop" | "max_tokens" | "safety" | "empty" | "other";

export interface LlmCompletion {
  /** The model's text exactly as returned ("" when there is none). */
  text: string;
  stop: StopKind;
  /** The provider's own word for it, e.g. `MAX_TOKENS`, `content_filter`, `blockReason SAFETY`. */
  reason: string;
  usage?: TokenUsage;
}

export interface CompletionOptions {
  /** JSON Schema of the expected answer, for providers that can constrain their output to one. */
  jsonSchema?: Record<string, unknown>;
}

/** A provider's model, asked for JSON (its JSON mode on). Throws ProviderError subclasses on HTTP failures. */
export interface TextModel {
  /** `gemini`, `openai-compat`. */
  readonly provider: string;
  /** The model id sent to the provider. */
  readonly model: string;
  complete(prompt: string, params: GenerationParams, options?: CompletionOptions): Promise<LlmCompletion>;
}
