import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { getRunAnalytics } from "../../../shared/db/rpc/analytics.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

/**
 * - `GET /runs/:id/analytics`   the YouTube Analytics fetched for the run's published videos
 *                               (mdame.get_run_analytics); an empty list before any fetch
 */
export function analyticsHandlers(deps: OperatorDeps): Handlers<"getRunAnalytics"> {
  return {
    getRunAnalytics: async (c) => {
      const { id } = c.req.valid("param");
      const analytics = (await getRunAnalytics(deps.sql, id)).map((row) => ({ ...row, fetched_at: row.fetched_at.toISOString() }));
      return reply(c, routes.getRunAnalytics, 200, { analytics });
    },
  };
}
