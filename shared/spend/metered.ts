/**
 * Every paid provider call goes through `paidCall`: before the call, the dimension's budget is
 * asked whether the call's estimate fits (check_spend_budget); a call that would pass it is never
 * made, and BudgetDeferralError carries when to look again. After the call, its usage is recorded
 * (record_provider_usage) under the spend scope of the work that made it: the dimension, run, unit
 * and stage the stage runner (functions/pipeline/stage-runner.ts) or a worker set with
 * `withSpendScope`. A result answered from a cache is recorded with `cachedCall`, at cost 0.
 * A call made outside any scope (the doctor, an eval) is neither checked nor recorded.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Backoff } from "../backoff.ts";
import type { UsageQuantities } from "../contracts/spend.ts";
import type { Queryable } from "../db/client.ts";
import { checkSpendBudget, recordProviderUsage } from "../db/rpc/spend.ts";
import type { Logger } from "../logging/logger.ts";

/** Whose calls these are. */
export interface SpendScope {
  sql: Queryable;
  log: Logger;
  dimensionId: string | null;
  runId?: string | null;
  unitId?: string | null;
  stage?: string | null;
}

const scopes = new AsyncLocalStorage<SpendScope>();

/** Runs `work` with its provider calls checked against and recorded for `scope`. */
export function withSpendScope<T>(scope: SpendScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work);
}

/** A call not made because it would pass its dimension's budget; the work waits `delayS` and tries again. */
export class BudgetDeferralError extends Error {
  constructor(readonly dimensionId: string, readonly period: "day" | "month", readonly delayS: number, message: string) {
    super(message);
    this.name = "BudgetDeferralError";
  }
}

/** What a paid call is, and what it is expected to use. */
export interface PaidCall {
  provider: string;
  model: string;
  /** The units the call is expected to use, priced to ask the budget before the call. */
  estimate: UsageQuantities;
}

/** Asks the budget, then makes the call; `run` answers the value and the units the call used. */
export async function paidCall<T>(call: PaidCall, run: () => Promise<{ value: T; used: UsageQuantities }>): Promise<T> {
  const scope = scopes.getStore();
  if (scope?.dimensionId) {
    const check = await checkSpendBudget(scope.sql, { dimensionId: scope.dimensionId, provider: call.provider, model: call.model, estimate: call.estimate });
    if (!check.fits) {
      throw new BudgetDeferralError(
        scope.dimensionId,
        check.period!,
        check.recheck_in_s!,
        `${scope.dimensionId}'s ${check.period === "day" ? "daily" : "monthly"} budget of ${check.budget_usd} USD would be passed ` +
          `(spent ${check.spent_usd.toFixed(4)}, this ${call.provider} call about ${check.estimate_usd.toFixed(4)}): deferred`,
      );
    }
  }
  const { value, used } = await run();
  if (scope) await record(scope, { ...call, quantities: used, cached: false });
  return value;
}

/** Records a result answered from a cache: its provider and model, at cost 0, marked cached. */
export async function cachedCall(call: Omit<PaidCall, "estimate">, quantities: UsageQuantities): Promise<void> {
  const scope = scopes.getStore();
  if (scope) await record(scope, { ...call, quantities, cached: true });
}

const RECORD_ATTEMPTS = 3;

/**
 * Records one call under a key of its own, so a recording sent again after a lost answer counts
 * once. The call is already made and paid: a recording that still fails after a few tries is
 * logged, and the work goes on with the answer it paid for.
 */
async function record(scope: SpendScope, call: { provider: string; model: string; quantities: UsageQuantities; cached: boolean }): Promise<void> {
  const callKey = crypto.randomUUID();
  const backoff = new Backoff({ initialMs: 100, maxMs: 1000 });
  for (let attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
    try {
      await recordProviderUsage(scope.sql, {
        callKey,
        provider: call.provider,
        model: call.model,
        quantities: call.quantities,
        cached: call.cached,
        dimensionId: scope.dimensionId,
        runId: scope.runId,
        unitId: scope.unitId,
        stage: scope.stage,
      });
      return;
    } catch (error) {
      if (attempt === RECORD_ATTEMPTS) {
        scope.log.error({ err: error, provider: call.provider, model: call.model, call_key: callKey, status: "failed" }, "provider usage not recorded");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, backoff.next()));
    }
  }
}
