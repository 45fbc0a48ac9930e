/**
 * Which model answers which task. A dimension names, per task (script writer, hook critic,
 * safety classifier, scene planner), providers in order of preference (`mdame.dimensions.llm`,
 * contract LlmRouting); a task it leaves out runs on Gemini's default model.
 *
 * A call goes to the first configured provider of the task's list, through the cache and the
 * LLM boundary (validation, then at most two repairs on that same provider). When a provider is
 * unavailable (unreachable, 429/5xx, refusing the key: a ProviderError), the next one is asked;
 * a contract failure or a safety stop is final and is not handed to another provider. When every
 * provider failed, the last provider error is thrown (retriable when it was an outage).
 */
import type { z } from "zod";
import { DEFAULT_LLM_ROUTE, type LlmProviderName, type LlmRoute, LlmRouting, type LlmTask } from "../../shared/contracts/llm.ts";
import type { Sql } from "../../shared/db/client.ts";
import { getDimension } from "../../shared/db/rpc/dimensions.ts";
import { NonRetriableError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logging/logger.ts";
import { ProviderError } from "../../shared/providers/errors.ts";
import type { GenerationParams, TextModel } from "../../shared/providers/llm/types.ts";
import { generateJsonCached, type LlmCounters, newLlmCounters } from "./llm-cache.ts";

/** A configured provider: its default model, and a model by id. */
export interface LlmProvider {
  defaultModel: string;
  model(id: string): TextModel;
}

export type LlmProviders = Partial<Record<LlmProviderName, LlmProvider>>;

interface LlmRequest<T> {
  task: LlmTask;
  /** Whose routing applies. */
  dimensionId: string;
  /**
   * The routing of the configuration the unit's run started with (DimensionRow.llm, from
   * run_dimensions.config), so a change during the day applies from the next run. Without it, the
   * dimension's live routing is read.
   */
  routing?: unknown;
  prompt: string;
  schema: z.ZodType<T>;
  params: GenerationParams;
  /** The stage's logger (execution id, stage, step token). */
  log: Logger;
}

export interface LlmRouter {
  readonly providers: LlmProviders;
  readonly counters: LlmCounters;
  /** The task's routes for a dimension, defaults filled in (no I/O beyond reading the dimension). */
  /** `snapshot`: the run's routing (LlmRequest.routing); without it the live one. */
  routesFor(task: LlmTask, dimensionId: string, snapshot?: unknown): Promise<LlmRoute[]>;
  generate<T>(request: LlmRequest<T>): Promise<T>;
}

/** Models built once per id: clients keep their connections. */
export function memoizedProvider(defaultModel: string, build: (id: string) => TextModel): LlmProvider {
  const models = new Map<string, TextModel>();
  return {
    defaultModel,
    model(id) {
      let model = models.get(id);
      if (!model) models.set(id, model = build(id));
      return model;
    },
  };
}

export function createLlmRouter(options: { sql: Sql; providers: LlmProviders }): LlmRouter {
  const counters = newLlmCounters();
  const { sql, providers } = options;

  async function routesFor(task: LlmTask, dimensionId: string, snapshot?: unknown): Promise<LlmRoute[]> {
    const llm = snapshot !== undefined ? snapshot : (await getDimension(sql, dimensionId))?.llm;
    const routing = LlmRouting.safeParse(llm ?? {});
    if (!routing.success) {
      throw new NonRetriableError(
        `dimension ${dimensionId} has an invalid llm routing: ${routing.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    }
    return routing.data[task] ?? [DEFAULT_LLM_ROUTE];
  }

  async function generate<T>(request: LlmRequest<T>): Promise<T> {
    const routes = await routesFor(request.task, request.dimensionId, request.routing);
    const ctx = { sql, log: request.log, task: request.task, counters, dimensionId: request.dimensionId };
    let lastError: ProviderError | undefined;
    for (const [index, route] of routes.entries()) {
      const provider = providers[route.provider];
      if (!provider) {
        request.log.warn({ llm_task: request.task, provider: route.provider, status: "skipped" }, "llm provider not configured: skipped");
        continue;
      }
      const model = provider.model(route.model ?? provider.defaultModel);
      try {
        return await generateJsonCached(ctx, model, request.prompt, request.schema, request.params);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        lastError = error;
        if (index < routes.length - 1) {
          counters.fallbacks += 1;
          request.log.warn(
            { llm_task: request.task, provider: model.provider, model: model.model, err: error, status: "retrying" },
            "llm provider unavailable: trying the next",
          );
        }
      }
    }
    if (lastError) throw lastError;
    throw new NonRetriableError(
      `no configured provider for the ${request.task} task of ${request.dimensionId} (routes: ${routes.map((r) => r.provider).join(", ")})`,
    );
  }

  return { providers, counters, routesFor, generate };
}
