/**
 * The safety classifier model: Gemini through `@google/genai`, asked for a strict JSON verdict.
 * Gemini's own safety system is part of the answer: a prompt it blocks (`promptFeedback.blockReason`)
 * or an answer it stops for safety (finishReason SAFETY, PROHIBITED_CONTENT, BLOCKLIST, SPII) is a
 * "not allowed" verdict carrying that reason. An unreachable, overloaded or slow model is
 * `ProviderUnavailableError` (retriable): the caller waits and retries, and never passes the text.
 * A verdict that is not the contract's JSON (cut off at the token limit, say) is asked again with
 * the problems named, at most MAX_REPAIRS times, as every other model answer is (boundary.ts): one
 * garbled answer must not fail a dimension's whole ingest.
 */
import { ApiError, GoogleGenAI } from "@google/genai";
import { type ModelSafetyVerdict, ModelSafetyVerdict as VerdictSchema, type SafetyCategory } from "../../../shared/contracts/safety.ts";
import { errorForStatus, ProviderUnavailableError } from "../../../shared/providers/errors.ts";
import { MAX_REPAIRS } from "../../../shared/providers/llm/boundary.ts";
import { fromZodIssues, LlmContractError, type LlmIssue } from "../../../shared/providers/llm/contract.ts";
import { repairPrompt } from "../../../shared/providers/llm/repair.ts";
import { BudgetDeferralError, paidCall } from "../../../shared/spend/metered.ts";

/** What a verdict is expected to use at most, for the budget check before the call. */
const ESTIMATED_VERDICT_TOKENS = 512;

export interface SafetyModel {
  readonly model: string;
  classify(prompt: string): Promise<ModelSafetyVerdict>;
}

/** Gemini's own harm categories, as the engine names them. */
const HARM_CATEGORIES: Record<string, SafetyCategory> = {
  HARM_CATEGORY_HATE_SPEECH: "hate",
  HARM_CATEGORY_HARASSMENT: "harassment",
  HARM_CATEGORY_SEXUALLY_EXPLICIT: "sexual",
  HARM_CATEGORY_DANGEROUS_CONTENT: "dangerous-acts",
  HARM_CATEGORY_CIVIC_INTEGRITY: "politics",
};
const SAFETY_STOPS = new Set(["SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY"]);

interface Rating {
  category?: string;
  probability?: string;
  blocked?: boolean;
}

function categoryFromRatings(ratings: readonly Rating[] | undefined, fallback: SafetyCategory): SafetyCategory {
  const flagged = (ratings ?? []).find((r) => r.blocked) ?? (ratings ?? []).find((r) => r.probability === "HIGH" || r.probability === "MEDIUM");
  return (flagged?.category && HARM_CATEGORIES[flagged.category]) || fallback;
}

export function createGeminiSafetyModel(options: { apiKey: string; baseUrl?: string; model: string; timeoutMs?: number }): SafetyModel {
  const ai = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: { baseUrl: options.baseUrl, apiVersion: "v1beta", timeout: options.timeoutMs ?? 20_000 },
  });

  /** One question to the model: its verdict, or the contract problem with its answer (returned, not thrown). */
  async function askOnce(prompt: string): Promise<ModelSafetyVerdict | LlmContractError> {
    let response;
    try {
      response = await paidCall(
        { provider: "gemini", model: options.model, estimate: { input_tokens: Math.ceil(prompt.length / 4), output_tokens: ESTIMATED_VERDICT_TOKENS } },
        async () => {
          const answer = await ai.models.generateContent({
            model: options.model,
            contents: prompt,
            config: { responseMimeType: "application/json", temperature: 0 },
          });
          const usage = answer.usageMetadata;
          return { value: answer, used: { input_tokens: usage?.promptTokenCount ?? 0, output_tokens: usage?.candidatesTokenCount ?? 0 } };
        },
      );
    } catch (error) {
      if (error instanceof BudgetDeferralError) throw error;
      if (error instanceof ApiError) throw errorForStatus("gemini", error.status, `Gemini safety classifier answered ${error.status}: ${error.message}`, error);
      const message = error instanceof Error ? error.message : String(error);
      throw new ProviderUnavailableError("gemini", `Gemini safety classifier unreachable: ${message}`, { cause: error });
    }
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason) {
      return {
        allowed: false,
        category: categoryFromRatings(response.promptFeedback?.safetyRatings as Rating[] | undefined, "other"),
        reason: `Gemini blocked the prompt: ${blockReason}${
          response.promptFeedback?.blockReasonMessage ? ` (${response.promptFeedback.blockReasonMessage})` : ""
        }`,
        confidence: 1,
      };
    }
    const candidate = response.candidates?.[0];
    const finish = candidate?.finishReason;
    if (finish && SAFETY_STOPS.has(finish)) {
      return {
        allowed: false,
        category: finish === "SPII" ? "personal-data" : categoryFromRatings(candidate?.safetyRatings as Rating[] | undefined, "other"),
        reason: `Gemini stopped the answer: ${finish}`,
        confidence: 1,
      };
    }
    const raw = response.text ?? "";
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      const cut = finish === "MAX_TOKENS" ? ": it was cut off at the token limit, answer shorter" : "";
      return new LlmContractError(
        `Gemini safety verdict is not JSON (finishReason ${finish ?? "unknown"})`,
        [{ path: "(answer)", message: `not JSON${cut}` }],
        raw,
      );
    }
    const parsed = VerdictSchema.safeParse(json);
    if (!parsed.success) {
      const summary = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
      return new LlmContractError(`Gemini safety verdict does not match the schema: ${summary}`, fromZodIssues(parsed.error.issues), raw);
    }
    return parsed.data;
  }

  return {
    model: options.model,
    async classify(prompt: string): Promise<ModelSafetyVerdict> {
      let issues: readonly LlmIssue[] = [];
      let raw = "";
      let last: LlmContractError | null = null;
      for (let attempt = 0; attempt <= MAX_REPAIRS; attempt++) {
        const asked = attempt === 0 ? prompt : repairPrompt({ prompt, issues, badOutput: raw, schema: VerdictSchema, repair: attempt });
        const answer = await askOnce(asked);
        if (!(answer instanceof LlmContractError)) return answer;
        last = answer;
        issues = answer.issues;
        raw = answer.raw ?? "";
      }
      throw new LlmContractError(`${last!.message}, still after ${MAX_REPAIRS} repairs`, last!.issues, last!.raw, MAX_REPAIRS + 1);
    },
  };
}
