import type { Env, Hono, Schema } from "hono";
import { z } from "zod";
import { RunAnalyticsList } from "../../../shared/contracts/analytics.ts";
import { getRunAnalytics } from "../../../shared/db/rpc/analytics.ts";
import { answer } from "../../../shared/http/answer.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import type { OperatorDeps } from "./deps.ts";
import { routeParam } from "./request.ts";

const RunId = z.string().uuid();

/**
 * - `GET /runs/:id/analytics`   the YouTube Analytics fetched for the run's published videos
 *                               (mdame.get_run_analytics); an empty list before any fetch
 */
export function registerAnalyticsRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  app.get("/runs/:id/analytics", requireServiceRole(deps.env.SERVICE_ROLE_KEY), async (c) => {
    const id = routeParam("id", c.req.param("id"), RunId);
    const analytics = (await getRunAnalytics(deps.sql, id)).map((row) => ({ ...row, fetched_at: row.fetched_at.toISOString() }));
    return c.json(answer(RunAnalyticsList, { analytics }, "GET /runs/:id/analytics"));
  });
}
