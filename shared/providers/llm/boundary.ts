/**
 * The LLM boundary: one answer that satisfies its Zod contract, or a typed failure.
 *
 * A draft that breaks the contract (not JSON, cut off, wrong types, unknown or missing keys,
 * prose or a fence around the JSON, broken Unicode, an empty answer) goes back to the same model
 * with a repair prompt, at most `maxRepairs` times (2 by default); if the last answer still
 * breaks it, LlmContractError (not retriable) carries the last issues. A safety stop is never
 * repaired: LlmSafetyStopError. Provider failures (ProviderError) pass through untouched, so the
 * caller can retry later or try another provider.
 */
import type { z } from "zod";
import { checkAnswer, formatIssues, LlmContractError, type LlmIssue, LlmSafetyStopError } from "./contract.ts";
import { jsonSchemaOf, repairPrompt } from "./repair.ts";
import type { GenerationParams, StopKind, TextModel, TokenUsage } from "./types.ts";

export const MAX_REPAIRS = 2;

/** One call to the provider, as the boundary reports it (the caller logs and counts it). */
export interface LlmCallEvent {
  provider: string;
  model: string;
  /** `call` for the first ask, `repair` for each repair. */
  kind: "call" | "repair";
  /** 0 for the first call, then 1, 2 for the repairs. */
  attempt: number;
  outcome: "valid" | "invalid" | "safety_stop";
  stop: StopKind;
  reason: string;
  issues: readonly LlmIssue[];
  usage?: TokenUsage;
  duration_ms: number;
}

interface ValidatedGeneration<T> {
  value: T;
  raw: string;
  usage?: TokenUsage;
  /** Calls made, repairs included (1 when the first answer was valid). */
  calls: number;
}

interface BoundaryOptions {
  maxRepairs?: number;
  onCall?: (event: LlmCallEvent) => void;
}

export async function generateValidated<T>(
  model: TextModel,
  prompt: string,
  schema: z.ZodType<T>,
  params: GenerationParams,
  options: BoundaryOptions = {},
): Promise<ValidatedGeneration<T>> {
  const maxRepairs = Math.max(0, Math.min(options.maxRepairs ?? MAX_REPAIRS, MAX_REPAIRS));
  const jsonSchema = jsonSchemaOf(schema);
  let issues: readonly LlmIssue[] = [];
  let raw = "";
  for (let attempt = 0; attempt <= maxRepairs; attempt++) {
    const asked = attempt === 0 ? prompt : repairPrompt({ prompt, issues, badOutput: raw, schema, repair: attempt });
    const started = Date.now();
    const completion = await model.complete(asked, params, { jsonSchema });
    raw = completion.text;
    const report = (outcome: LlmCallEvent["outcome"], found: readonly LlmIssue[]) =>
      options.onCall?.({
        provider: model.provider,
        model: model.model,
        kind: attempt === 0 ? "call" : "repair",
        attempt,
        outcome,
        stop: completion.stop,
        reason: completion.reason,
        issues: found,
        usage: completion.usage,
        duration_ms: Date.now() - started,
      });
    if (completion.stop === "safety") {
      report("safety_stop", []);
      throw new LlmSafetyStopError(model.provider, completion.reason);
    }
    const checked = checkAnswer(completion, schema);
    if (checked.ok) {
      report("valid", []);
      return { value: checked.value, raw, usage: completion.usage, calls: attempt + 1 };
    }
    issues = checked.issues;
    report("invalid", issues);
  }
  const calls = maxRepairs + 1;
  const repairs = maxRepairs === 0 ? "" : ` after ${maxRepairs} repair${maxRepairs === 1 ? "" : "s"}`;
  throw new LlmContractError(
    `${model.provider}/${model.model} answer broke its contract${repairs} (${calls} call${calls === 1 ? "" : "s"}): ${formatIssues(issues).join("; ")}`,
    issues,
    raw,
    calls,
  );
}
