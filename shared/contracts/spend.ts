/**
 * Spend and budgets (docs/reference/spend.md): the unit kinds a provider call is counted in, the
 * price table's rows, what `mdame spend` and GET /pipeline/spend answer, and a dimension's budget.
 */
import { z } from "zod";
import { DimensionId } from "./dimension-id.ts";

/** What a call is counted in; mdame.provider_prices and mdame.provider_usage check the same list. */
export const UsageKind = z.enum(["input_tokens", "output_tokens", "images", "characters", "audio_seconds", "requests", "gpu_seconds"]);
export type UsageKind = z.infer<typeof UsageKind>;

/** A call's units: `{ input_tokens: 812, output_tokens: 240 }`. */
export const UsageQuantities = z.partialRecord(UsageKind, z.number().nonnegative());
export type UsageQuantities = z.infer<typeof UsageQuantities>;

/** A provider's name in the price table and in recorded usage (gemini, openai-compat, edge-tts, ...). */
export const ProviderName = z.string().regex(/^[a-z][a-z0-9-]{1,40}$/, "must be 2-41 lower-case letters, digits or '-', starting with a letter");

/** A model's name in the price table; `*` prices every model of the provider without a row of its own. */
export const PriceModel = z.string().min(1, "must not be empty").max(120, "must be at most 120 characters");

/** USD as Postgres numeric reaches TypeScript (a string) or as JSON carries it (a number). */
const usd = z.coerce.number().nonnegative();

/** A dimension's spend caps in USD; either may be left out (no cap for that period). */
export const DimensionBudget = z.object({
  daily_usd: z.number({ message: "must be a number" }).nonnegative("must be at least 0").optional().describe("Most USD a day (UTC) of paid calls."),
  monthly_usd: z.number({ message: "must be a number" }).nonnegative("must be at least 0").optional().describe(
    "Most USD a calendar month (UTC) of paid calls.",
  ),
}).strict();
export type DimensionBudget = z.infer<typeof DimensionBudget>;

/** A row of mdame.provider_prices. */
export const ProviderPrice = z.object({
  provider: ProviderName,
  model: PriceModel,
  kind: UsageKind,
  usd_per_unit: usd,
  /** The seeded default this row returns to on reset; null for a row the operator added. */
  default_usd_per_unit: usd.nullable(),
  source: z.enum(["default", "operator"]),
  updated_at: z.union([z.date(), z.string()]).transform((v) => (v instanceof Date ? v.toISOString() : v)),
}).strict();
export type ProviderPrice = z.infer<typeof ProviderPrice>;

/** GET /pipeline/prices. */
export const PriceList = z.object({ prices: z.array(ProviderPrice) }).strict();
export type PriceList = z.infer<typeof PriceList>;

/** PUT /pipeline/prices: the operator's price for one unit kind of a provider's model. */
export const PriceSet = z.object({
  provider: ProviderName,
  model: PriceModel.default("*"),
  kind: UsageKind,
  usd_per_unit: z.number({ message: "must be a number" }).min(0, "must be 0 to 1000").max(1000, "must be 0 to 1000"),
}).strict();
export type PriceSet = z.infer<typeof PriceSet>;

/** POST /pipeline/prices/reset: which row goes back to its default. */
export const PriceReset = PriceSet.omit({ usd_per_unit: true });
export type PriceReset = z.infer<typeof PriceReset>;

/** POST /pipeline/prices/reset's answer: the row as it now stands, null when an added row was removed. */
export const PriceResetResult = z.object({ price: ProviderPrice.nullable() }).strict();

/** A month as `mdame spend --month` takes it. */
export const SpendMonth = z.string().regex(/^[0-9]{4}-(0[1-9]|1[0-2])$/, "must be a month like 2026-12");

/** GET /pipeline/spend's query. */
export const SpendQuery = z.object({ dimension: DimensionId.optional(), month: SpendMonth.optional() }).strict();
export type SpendQuery = z.infer<typeof SpendQuery>;

/** A row of mdame.get_spend: one dimension, provider, model and unit kind over the month. */
export const SpendRow = z.object({
  dimension_id: z.string().nullable(),
  provider: z.string(),
  model: z.string(),
  kind: UsageKind,
  calls: z.coerce.number().int().nonnegative(),
  cached_calls: z.coerce.number().int().nonnegative(),
  quantity: z.coerce.number().nonnegative(),
  usd: usd,
}).strict();
export type SpendRow = z.infer<typeof SpendRow>;

/** One provider's share of a dimension's month. */
export const ProviderSpend = z.object({
  provider: z.string(),
  /** Distinct calls, cached ones included. */
  calls: z.number().int().nonnegative(),
  /** Calls answered from a cache, at cost 0. */
  cached_calls: z.number().int().nonnegative(),
  usd: z.number().nonnegative(),
  /** Per model and unit kind. */
  lines: z.array(SpendRow.omit({ dimension_id: true, provider: true })),
}).strict();

/** One dimension's month (dimension null: calls made for no dimension). */
export const DimensionSpend = z.object({
  dimension_id: z.string().nullable(),
  usd: z.number().nonnegative(),
  budget: DimensionBudget.nullable(),
  providers: z.array(ProviderSpend),
}).strict();
export type DimensionSpend = z.infer<typeof DimensionSpend>;

/** GET /pipeline/spend: a month's spend by dimension and provider. */
export const SpendReport = z.object({
  month: SpendMonth,
  usd: z.number().nonnegative(),
  dimensions: z.array(DimensionSpend),
}).strict();
export type SpendReport = z.infer<typeof SpendReport>;

/** USD for people: four decimals under a dollar, two above. */
export const formatUsd = (usd: number) => `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;

/** A provider's units as the CLI and the dashboard show them: "1200 input_tokens, 4 images". */
export const unitsText = (lines: readonly { quantity: number; kind: string }[]) =>
  lines.map((l) => `${Math.round(l.quantity * 100) / 100} ${l.kind}`).join(", ");

/** The rows of get_spend grouped by dimension and provider; `budgets` by dimension id. */
export function spendReport(month: string, rows: readonly SpendRow[], budgets: ReadonlyMap<string, DimensionBudget | null>): SpendReport {
  const dimensions = new Map<string | null, DimensionSpend>();
  for (const row of rows) {
    let dimension = dimensions.get(row.dimension_id);
    if (!dimension) {
      dimension = { dimension_id: row.dimension_id, usd: 0, budget: row.dimension_id === null ? null : budgets.get(row.dimension_id) ?? null, providers: [] };
      dimensions.set(row.dimension_id, dimension);
    }
    let provider = dimension.providers.find((p) => p.provider === row.provider);
    if (!provider) dimension.providers.push(provider = { provider: row.provider, calls: 0, cached_calls: 0, usd: 0, lines: [] });
    provider.usd += row.usd;
    dimension.usd += row.usd;
    provider.lines.push({ model: row.model, kind: row.kind, calls: row.calls, cached_calls: row.cached_calls, quantity: row.quantity, usd: row.usd });
  }
  const list = [...dimensions.values()];
  for (const provider of list.flatMap((d) => d.providers)) {
    // A call counted in several kinds (tokens in and out) is one call: each model counts its most-counted kind.
    const byModel = Map.groupBy(provider.lines, (line) => line.model);
    for (const lines of byModel.values()) {
      provider.calls += Math.max(...lines.map((l) => l.calls));
      provider.cached_calls += Math.max(...lines.map((l) => l.cached_calls));
    }
  }
  return { month, usd: list.reduce((sum, d) => sum + d.usd, 0), dimensions: list };
}
