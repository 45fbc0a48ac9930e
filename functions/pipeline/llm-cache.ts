import type { z } from "zod";
import type { LlmTask } from "../../shared/contracts/llm.ts";
import type { Sql } from "../../shared/db/client.ts";
import { getLlmCache, storeLlmCache } from "../../shared/db/rpc/llm-cache.ts";
import { recordCacheLookup } from "../../shared/db/rpc/weekly-reports.ts";
import { llmCallKey } from "../../shared/hashing.ts";
import type { Logger } from "../../shared/logging/logger.ts";
import { generateValidated, type LlmCallEvent } from "../../shared/providers/llm/boundary.ts";
import { formatIssues, LlmContractError } from "../../shared/providers/llm/contract.ts";
import type { GenerationParams, TextModel } from "../../shared/providers/llm/types.ts";
import { cachedCall, paidCall } from "../../shared/spend/metered.ts";

/** What a router counts over its life: every call and repair, cache hits, fallbacks and stops. */
export interface LlmCounters {
  calls: number;
  repairs: number;
  cache_hits: number;
  fallbacks: number;
  contract_failures: number;
  safety_stops: number;
}

export function newLlmCounters(): LlmCounters {
  return { calls: 0, repairs: 0, cache_hits: 0, fallbacks: 0, contract_failures: 0, safety_stops: 0 };
}

/**
 * The model's name in cache keys. Gemini keeps its bare id (the keys cached before other
 * providers existed stay valid); any other provider is prefixed, so two providers serving a
 * model of the same name never share answers.
 */
function cacheModelId(model: Pick<TextModel, "provider" | "model">): string {
  return model.provider === "gemini" ? model.model : `${model.provider}/${model.model}`;
}

/** What a JSON answer is expected to use at most, for the budget check before the call. */
const ESTIMATED_OUTPUT_TOKENS = 2048;

/** The model with each call (first ask and repairs alike) checked against the budget and recorded (shared/spend/metered.ts). */
function meteredModel(model: TextModel): TextModel {
  return {
    provider: model.provider,
    model: model.model,
    complete: (prompt, params, options) =>
      paidCall(
        { provider: model.provider, model: model.model, estimate: { input_tokens: Math.ceil(prompt.length / 4), output_tokens: ESTIMATED_OUTPUT_TOKENS } },
        async () => {
          const completion = await model.complete(prompt, params, options);
          const used = { input_tokens: completion.usage?.promptTokenCount ?? 0, output_tokens: completion.usage?.candidatesTokenCount ?? 0 };
          return { value: completion, used };
        },
      ),
  };
}

interface CachedCallContext {
  sql: Sql;
  /** The stage's logger: it carries the execution id, stage and step token. */
  log: Logger;
  task: LlmTask;
  counters: LlmCounters;
  /** Whose call it is: the lookup is recorded for the dimension's weekly report. */
  dimensionId?: string;
}

/**
 * An LLM call through the cache: the key is sha256(model + prompt + generation params), so a rerun
 * of a step reuses the answer it already paid for. Only answers the boundary validated are stored,
 * a repaired one under the original call's key; cached answers are validated again on the way out.
 */
export async function generateJsonCached<T>(
  ctx: CachedCallContext,
  model: TextModel,
  prompt: string,
  schema: z.ZodType<T>,
  params: GenerationParams,
): Promise<T> {
  const modelId = cacheModelId(model);
  const key = await llmCallKey(modelId, prompt, params);
  const cached = await getLlmCache(ctx.sql, key);
  const parsed = cached === null ? null : schema.safeParse(cached);
  if (ctx.dimensionId !== undefined) {
    // A hit is an answer that still passes the caller's schema: only that one saves the call.
    await recordCacheLookup(ctx.sql, { cache: "llm", dimensionId: ctx.dimensionId, hit: parsed?.success === true }).catch((error) =>
      ctx.log.warn({ llm_task: ctx.task, err: error }, "llm cache lookup not recorded")
    );
  }
  if (parsed !== null) {
    if (parsed.success) {
      ctx.counters.cache_hits += 1;
      await cachedCall({ provider: model.provider, model: model.model }, { input_tokens: 0, output_tokens: 0 });
      ctx.log.debug({ llm_task: ctx.task, provider: model.provider, model: model.model }, "llm answer from cache");
      return parsed.data;
    }
  }
  const onCall = (event: LlmCallEvent) => {
    ctx.counters.calls += 1;
    if (event.kind === "repair") ctx.counters.repairs += 1;
    if (event.outcome === "safety_stop") ctx.counters.safety_stops += 1;
    const fields = {
      llm_task: ctx.task,
      provider: event.provider,
      model: event.model,
      kind: event.kind,
      attempt: event.attempt,
      outcome: event.outcome,
      stop: event.stop,
      finish_reason: event.reason,
      issues: formatIssues(event.issues),
      usage: event.usage,
      duration_ms: event.duration_ms,
    };
    if (event.outcome === "valid") ctx.log.info({ ...fields, status: "succeeded" }, event.kind === "repair" ? "llm repair accepted" : "llm call");
    else {ctx.log.warn(
        { ...fields, status: event.outcome === "safety_stop" ? "refused" : "failed" },
        event.outcome === "safety_stop" ? "llm safety stop" : "llm answer broke its contract",
      );}
  };
  let value: T;
  try {
    ({ value } = await generateValidated(meteredModel(model), prompt, schema, params, { onCall }));
  } catch (error) {
    if (error instanceof LlmContractError) ctx.counters.contract_failures += 1;
    throw error;
  }
  await storeLlmCache(ctx.sql, key, modelId, value);
  return value;
}
