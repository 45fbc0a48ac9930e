/** Spend: this month's cost by dimension and provider against each budget, and the price table (docs/reference/spend.md). */
import { html } from "hono/html";
import { type DimensionSpend, formatUsd, type ProviderPrice, unitsText } from "../../../shared/contracts/spend.ts";
import type { DashboardApi } from "../ops-client.ts";
import { type Html, section, table } from "../layout.ts";

/** The caps, and how much of the month's is spent: "$2.00 a day, $40.00 a month (30 %)". */
function budgetCell(dimension: DimensionSpend): string {
  const budget = dimension.budget;
  if (!budget || (budget.daily_usd === undefined && budget.monthly_usd === undefined)) return "no budget";
  const parts: string[] = [];
  if (budget.daily_usd !== undefined) parts.push(`${formatUsd(budget.daily_usd)} a day`);
  if (budget.monthly_usd !== undefined) {
    const share = budget.monthly_usd > 0 ? ` (${Math.round((100 * dimension.usd) / budget.monthly_usd)} %)` : "";
    parts.push(`${formatUsd(budget.monthly_usd)} a month${share}`);
  }
  return parts.join(", ");
}

function dimensionRows(dimension: DimensionSpend): Html[] {
  return dimension.providers.map((p, i) =>
    html`
      <tr data-dimension="${dimension.dimension_id ?? ""}">
        <td>${i === 0 ? dimension.dimension_id ?? "(no dimension)" : ""}</td>
        <td>${i === 0 ? formatUsd(dimension.usd) : ""}</td>
        <td>${i === 0 ? budgetCell(dimension) : ""}</td>
        <td>${p.provider}</td>
        <td class="num">${p.calls}</td>
        <td class="num">${p.cached_calls}</td>
        <td class="num">${formatUsd(p.usd)}</td>
        <td>${unitsText(p.lines)}</td>
      </tr>
    `
  );
}

function priceRow(p: ProviderPrice): Html {
  return html`
    <tr>
      <td>${p.provider}</td>
      <td>${p.model}</td>
      <td>${p.kind}</td>
      <td class="num">${String(p.usd_per_unit)}</td>
      <td>${p.source === "operator" ? `operator (default ${p.default_usd_per_unit ?? "none"})` : "default"}</td>
    </tr>
  `;
}

export async function spendPage({ api }: DashboardApi): Promise<Html> {
  const spend = await section("this month's spend", () => api.spend({ dimension: null, month: null }), (report) =>
    html`
      <h2>${report.month}: ${formatUsd(report.usd)}</h2>
      ${table(
        ["dimension", "spent", "budget", "provider", "calls", "from cache", "cost", "units"],
        report.dimensions.flatMap(dimensionRows),
        "Nothing spent this month.",
      )}
    `);
  const prices = await section("the prices", () => api.listPrices(), ({ prices }) =>
    html`
      <h2>Prices (USD per unit)</h2>
      ${table(["provider", "model", "kind", "usd/unit", "source"], prices.map(priceRow), "No prices.")}
      <p>Change one with <code>mdame prices set</code>; a call is costed at the price in force when it is recorded.</p>
    `);
  return html`${spend}${prices}`;
}
