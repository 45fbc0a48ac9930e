import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { reply } from "../../../shared/api/serve.ts";
import { spendReport } from "../../../shared/contracts/spend.ts";
import { getDimensions } from "../../../shared/db/rpc/dimensions.ts";
import { engineNow } from "../../../shared/db/rpc/housekeeping.ts";
import { getSpend, listProviderPrices, resetProviderPrice, setProviderPrice } from "../../../shared/db/rpc/spend.ts";
import { type Handlers } from "../routes.ts";
import type { OperatorDeps } from "./deps.ts";

/**
 * - `GET /spend?dimension=&month=`   a month's spend by dimension and provider, with each budget
 * - `GET /prices`                    the price table
 * - `PUT /prices`                    the operator's price for one unit kind of a provider's model
 * - `POST /prices/reset`             a price back to its default (an added one removed)
 */
export function spendHandlers(deps: OperatorDeps): Handlers<"getSpend" | "listPrices" | "setPrice" | "resetPrice"> {
  return {
    getSpend: async (c) => {
      const { dimension, month } = c.req.valid("query");
      // This month on the engine's clock (UTC), as get_spend counts it.
      const shown = month ?? (await engineNow(deps.sql)).toISOString().slice(0, 7);
      const [rows, dimensions] = await Promise.all([
        getSpend(deps.sql, { dimensionId: dimension, month: `${shown}-01` }),
        getDimensions(deps.sql, dimension ?? null),
      ]);
      const budgets = new Map(dimensions.map((d) => [d.id, d.budget]));
      return reply(c, routes.getSpend, 200, spendReport(shown, rows, budgets));
    },

    listPrices: async (c) => reply(c, routes.listPrices, 200, { prices: await listProviderPrices(deps.sql) }),

    setPrice: async (c) => {
      const price = c.req.valid("json");
      const row = await setProviderPrice(deps.sql, price);
      deps.logger.info(
        { provider: row.provider, model: row.model, kind: row.kind, usd_per_unit: row.usd_per_unit, status: "succeeded" },
        "price set by the operator",
      );
      return reply(c, routes.setPrice, 200, row);
    },

    resetPrice: async (c) => {
      const price = c.req.valid("json");
      const row = await resetProviderPrice(deps.sql, price);
      deps.logger.info({ provider: price.provider, model: price.model, kind: price.kind, status: "succeeded" }, "price reset by the operator");
      return reply(c, routes.resetPrice, 200, { price: row });
    },
  };
}
