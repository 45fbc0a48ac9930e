/**
 * `mdame spend [--dimension <id>] [--month YYYY-MM]`: a month's spend by dimension and provider, with
 * each budget; `mdame prices list|set|reset`: the price table every call is costed with
 * (docs/reference/spend.md).
 */
import {
  type DimensionSpend,
  type PriceReset,
  type PriceSet,
  PriceSet as PriceSetSchema,
  type ProviderPrice,
  type SpendReport,
} from "../../shared/contracts/spend.ts";
import { DimensionId } from "../../shared/contracts/dimension-id.ts";
import { formatUsd, SpendMonth, unitsText } from "../../shared/contracts/spend.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, type FlagSpec, JSON_FLAG } from "../command-spec.ts";
import { EXIT, UsageError } from "../errors.ts";
import { type CommandContext, formatTable, printJson, printLines } from "../output.ts";

export type SpendCommand =
  | { name: "spend"; dimension: string | null; month: string | null; json: boolean }
  | { name: "prices list"; json: boolean }
  | { name: "prices set"; price: PriceSet; json: boolean }
  | { name: "prices reset"; price: PriceReset; json: boolean };

const MODEL_FLAG: FlagSpec = {
  name: "model",
  kind: "string",
  value: "<model>",
  description: "the model the price is for (default *: any model of the provider)",
};
const PROVIDER = { name: "provider", required: true, description: "gemini, openai-compat, gemini-tts, edge-tts, gemini-image, pexels, comfyui, ..." };
const KIND = { name: "kind", required: true, description: "input_tokens, output_tokens, images, characters, audio_seconds, requests or gpu_seconds" };

export const SPEND_SPECS: CommandSpec[] = [
  {
    words: ["spend"],
    positionals: [],
    flags: [
      { name: "dimension", kind: "string", value: "<id>", description: "one dimension only" },
      { name: "month", kind: "string", value: "<YYYY-MM>", description: "the calendar month (UTC; default this month)" },
      JSON_FLAG,
    ],
    summary: "show a month's spend by dimension and provider: calls, cached calls and USD, with each dimension's budget",
    details: "Every provider call is recorded with its units and priced by `mdame prices`; cached answers count at 0 USD (docs/reference/spend.md).",
  },
  { words: ["prices", "list"], positionals: [], flags: [JSON_FLAG], summary: "show the price table: USD per unit for each provider, model and unit kind" },
  {
    words: ["prices", "set"],
    positionals: [PROVIDER, KIND, { name: "usd", required: true, description: "USD per unit, e.g. 0.039 an image or 0.0000025 a token" }],
    flags: [MODEL_FLAG, JSON_FLAG],
    summary: "set the operator's price for one unit kind of a provider's model, from now on",
  },
  {
    words: ["prices", "reset"],
    positionals: [PROVIDER, KIND],
    flags: [MODEL_FLAG, JSON_FLAG],
    summary: "put a price back on its default (a price the operator added is removed)",
  },
];

export function parseSpend(command: string, positionals: string[], flags: Map<string, string | number | boolean>): SpendCommand {
  const json = flags.get("json") === true;
  if (command === "spend") {
    const dimension = flags.get("dimension");
    const month = flags.get("month");
    if (typeof dimension === "string" && !DimensionId.safeParse(dimension).success) {
      throw new UsageError(`--dimension: ${JSON.stringify(dimension)} is no dimension id`, command);
    }
    if (typeof month === "string" && !SpendMonth.safeParse(month).success) {
      throw new UsageError(`--month must be a month like 2026-12, not ${JSON.stringify(month)}`, command);
    }
    return { name: "spend", dimension: typeof dimension === "string" ? dimension : null, month: typeof month === "string" ? month : null, json };
  }
  if (command === "prices list") return { name: "prices list", json };
  const [provider, kind, usd] = positionals;
  const model = typeof flags.get("model") === "string" ? flags.get("model") as string : "*";
  const usdPerUnit = command === "prices set" ? Number(usd) : 0;
  if (command === "prices set" && (usd === undefined || usd.trim() === "" || !Number.isFinite(usdPerUnit))) {
    throw new UsageError(`the price must be a number of USD per unit, not ${JSON.stringify(usd)}`, command);
  }
  const parsed = PriceSetSchema.safeParse({ provider, model, kind, usd_per_unit: usdPerUnit });
  if (!parsed.success) {
    throw new UsageError(parsed.error.issues.map((i) => `${i.path.join(".") === "usd_per_unit" ? "usd" : i.path.join(".")}: ${i.message}`).join("; "), command);
  }
  if (command === "prices set") return { name: "prices set", price: parsed.data, json };
  const { usd_per_unit: _usd, ...row } = parsed.data;
  return { name: "prices reset", price: row, json };
}

function budgetText(dimension: DimensionSpend): string {
  const caps = [
    dimension.budget?.daily_usd === undefined ? null : `${formatUsd(dimension.budget.daily_usd)}/day`,
    dimension.budget?.monthly_usd === undefined ? null : `${formatUsd(dimension.budget.monthly_usd)}/month`,
  ]
    .filter((c) => c !== null);
  return caps.length === 0 ? "no budget" : `budget ${caps.join(", ")}`;
}

/** The spend report as lines: a table per dimension of its providers. Pure, for tests. */
export function formatSpend(report: SpendReport): string[] {
  if (report.dimensions.length === 0) return [`${report.month}: nothing spent`];
  const lines = [`${report.month}: ${formatUsd(report.usd)} in all`];
  for (const dimension of report.dimensions) {
    lines.push("", `${dimension.dimension_id ?? "(no dimension)"}: ${formatUsd(dimension.usd)} (${budgetText(dimension)})`);
    lines.push(...formatTable(
      ["provider", "calls", "cached", "usd", "units"],
      dimension.providers.map((p) => [
        p.provider,
        String(p.calls),
        String(p.cached_calls),
        formatUsd(p.usd),
        unitsText(p.lines),
      ]),
    ));
  }
  return lines;
}

function formatPrices(prices: ProviderPrice[]): string[] {
  return formatTable(
    ["provider", "model", "kind", "usd/unit", "source", "default"],
    prices.map((p) => [p.provider, p.model, p.kind, String(p.usd_per_unit), p.source, p.default_usd_per_unit === null ? "-" : String(p.default_usd_per_unit)]),
  );
}

export async function spendCommand(command: SpendCommand, api: ApiClient, ctx: CommandContext): Promise<number> {
  switch (command.name) {
    case "spend": {
      const report = await api.spend({ dimension: command.dimension, month: command.month });
      if (command.json) printJson(ctx.out, report);
      else printLines(ctx.out, formatSpend(report));
      return EXIT.ok;
    }
    case "prices list": {
      const { prices } = await api.listPrices();
      if (command.json) printJson(ctx.out, { prices });
      else printLines(ctx.out, formatPrices(prices));
      return EXIT.ok;
    }
    case "prices set": {
      const row = await api.setPrice(command.price);
      if (command.json) printJson(ctx.out, row);
      else printLines(ctx.out, formatPrices([row]));
      return EXIT.ok;
    }
    case "prices reset": {
      const { price } = await api.resetPrice(command.price);
      if (command.json) printJson(ctx.out, { price });
      else {printLines(
          ctx.out,
          price === null ? [`removed the price of ${command.price.provider} ${command.price.model} ${command.price.kind}`] : formatPrices([price]),
        );}
      return EXIT.ok;
    }
  }
}
