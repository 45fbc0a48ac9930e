/** Spend: the price table, every provider call's usage, the budget check and the deferral it leads to (docs/reference/spend.md). */
import { z } from "zod";
import { ProviderPrice, SpendRow, type UsageQuantities } from "../../contracts/spend.ts";
import type { Queryable } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

/** One provider call as record_provider_usage takes it. */
export interface ProviderCall {
  /** The call's own key: a recording sent twice counts once. */
  callKey: string;
  provider: string;
  model: string;
  quantities: UsageQuantities;
  /** Answered from a cache: recorded at cost 0. */
  cached: boolean;
  dimensionId: string | null;
  runId?: string | null;
  unitId?: string | null;
  stage?: string | null;
}

/** Records a call's usage, priced by the price in force; returns its cost in USD. */
export async function recordProviderUsage(sql: Queryable, call: ProviderCall): Promise<number> {
  const row = await oneRow(
    "record_provider_usage",
    z.object({ usd: z.coerce.number() }).strict(),
    sql`select mdame.record_provider_usage(${call.callKey}, ${call.provider}, ${call.model}, ${sql.json(call.quantities as never)}::jsonb, ${call.cached},
        ${call.dimensionId}, ${call.runId ?? null}::uuid, ${call.unitId ?? null}::uuid, ${call.stage ?? null}) as usd`,
  );
  return row.usd;
}

const BudgetCheck = z.object({
  fits: z.boolean(),
  period: z.enum(["day", "month"]).nullable(),
  spent_usd: z.coerce.number(),
  budget_usd: z.coerce.number().nullable(),
  estimate_usd: z.coerce.number(),
  recheck_in_s: z.number().int().positive().nullable(),
}).strict();
export type BudgetCheck = z.infer<typeof BudgetCheck>;

/** Whether a dimension's next call, estimated in units, fits its budget (check_spend_budget). */
export function checkSpendBudget(
  sql: Queryable,
  check: { dimensionId: string; provider: string; model: string; estimate: UsageQuantities },
): Promise<BudgetCheck> {
  return oneRow(
    "check_spend_budget",
    BudgetCheck,
    sql`select * from mdame.check_spend_budget(${check.dimensionId}, ${check.provider}, ${check.model}, ${sql.json(check.estimate as never)}::jsonb)`,
  );
}

/** Puts a claimed stage task back for p_delay_s without spending an attempt: deferred, stale or gone. */
export async function deferStageTaskForBudget(
  sql: Queryable,
  deferral: { msgId: number; holder: string; delayS: number; reason: string },
): Promise<"deferred" | "stale" | "gone"> {
  const row = await oneRow(
    "defer_stage_task_for_budget",
    z.object({ outcome: z.enum(["deferred", "stale", "gone"]) }).strict(),
    sql`select mdame.defer_stage_task_for_budget(${deferral.msgId}::bigint, ${deferral.holder}, ${deferral.delayS}::integer, ${deferral.reason}) as outcome`,
  );
  return row.outcome;
}

/** A month's spend per dimension, provider, model and unit kind; `month` is its first day (YYYY-MM-01), null for this month. */
export function getSpend(sql: Queryable, filter: { dimensionId?: string; month?: string }): Promise<SpendRow[]> {
  return manyRows("get_spend", SpendRow, sql`select * from mdame.get_spend(${filter.dimensionId ?? null}, ${filter.month ?? null}::date)`);
}

export function listProviderPrices(sql: Queryable): Promise<ProviderPrice[]> {
  return manyRows("list_provider_prices", ProviderPrice, sql`select * from mdame.list_provider_prices()`);
}

export function setProviderPrice(sql: Queryable, price: { provider: string; model: string; kind: string; usd_per_unit: number }): Promise<ProviderPrice> {
  return oneRow(
    "set_provider_price",
    ProviderPrice,
    sql`select * from mdame.set_provider_price(${price.provider}, ${price.model}, ${price.kind}, ${price.usd_per_unit}::numeric)`,
  );
}

/** The row back at its default, or null when the operator had added it (removed). */
export function resetProviderPrice(sql: Queryable, price: { provider: string; model: string; kind: string }): Promise<ProviderPrice | null> {
  return maybeRow("reset_provider_price", ProviderPrice, sql`select * from mdame.reset_provider_price(${price.provider}, ${price.model}, ${price.kind})`);
}
