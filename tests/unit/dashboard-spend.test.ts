/**
 * The dashboard's spend page with a fake API: each dimension's month by provider against its
 * budget, the price table, every value escaped, and the page still drawn when a read fails.
 */
import { expect, test } from "bun:test";
import { createDashboardApp } from "../../cli/dashboard/app.ts";
import type { DashboardApi } from "../../cli/dashboard/ops-client.ts";
import { createSessions } from "../../cli/dashboard/sessions.ts";
import { CliError, EXIT } from "../../cli/errors.ts";
import { spendReport } from "../../shared/contracts/spend.ts";

const PORT = 8791;
const HOST = `127.0.0.1:${PORT}`;
const HOSTILE = `<script>alert("x")</script>`;

function app(prices: () => Promise<unknown>) {
  const report = spendReport("2026-12", [
    {
      dimension_id: "tech-explained",
      provider: "gemini",
      model: "gemini-2.5-flash",
      kind: "output_tokens",
      calls: 12,
      cached_calls: 3,
      quantity: 4000,
      usd: 0.01,
    },
    { dimension_id: "tech-explained", provider: HOSTILE, model: "m", kind: "images", calls: 2, cached_calls: 0, quantity: 2, usd: 0.078 },
  ], new Map([["tech-explained", { daily_usd: 2, monthly_usd: 0.5 }]]));
  const api = {
    baseUrl: "http://api.test/functions/v1",
    api: { spend: async () => report, listPrices: prices },
    ops: {},
  } as unknown as DashboardApi;
  const sessions = createSessions(() => 0, "token");
  return { app: createDashboardApp({ api, sessions, port: () => PORT, now: () => 0 }), sessions };
}

async function spendPage(prices: () => Promise<unknown>) {
  const { app: dashboard, sessions } = app(prices);
  const session = sessions.signIn("token")!;
  const response = await dashboard.request(`http://${HOST}/spend`, { headers: { host: HOST, accept: "text/html", cookie: `mdame_session=${session.id}` } });
  expect(response.status).toBe(200);
  return await response.text();
}

test("the month by dimension and provider, against the budget, with the prices; values escaped", async () => {
  const page = await spendPage(async () => ({
    prices: [{
      provider: "gemini-image",
      model: "*",
      kind: "images",
      usd_per_unit: 0.02,
      default_usd_per_unit: 0.039,
      source: "operator",
      updated_at: "2026-12-01T00:00:00Z",
    }],
  }));
  expect(page).toContain("2026-12: $0.0880");
  expect(page).toContain("$2.00 a day, $0.5000 a month (18 %)");
  expect(page).toMatch(/<td>gemini<\/td>\s*<td class="num">12<\/td>\s*<td class="num">3<\/td>\s*<td class="num">\$0\.0100<\/td>/);
  expect(page).toContain("operator (default 0.039)");
  expect(page).not.toContain(HOSTILE);
  expect(page).toContain("&lt;script&gt;");
  expect(page).toContain(`href="/spend"`);
});

test("a read that fails is an error box, and the rest of the page is drawn", async () => {
  const page = await spendPage(async () => {
    throw new CliError("cannot reach http://api.test/functions/v1: connection refused", EXIT.unreachable);
  });
  expect(page).toContain("Could not load the prices.");
  expect(page).toContain("2026-12: $0.0880");
});
