import { pipelineRoutes as routes } from "../../shared/api/routes/index.ts";
import { assertEnvironment, getRunStatus, recordTickOk, startRun, tick, triggerRun, wakeNextTick } from "../../shared/db/rpc/runs.ts";
import { limitBody, PIPELINE_MAX_BODY_BYTES } from "../../shared/http/bounded-body.ts";
import { createErrorHandler } from "../../shared/http/error-handler.ts";
import { answerUnservedMethods } from "../../shared/http/method-not-allowed.ts";
import { refuseUnstorableUrlText } from "../../shared/http/url-text.ts";
import type { PipelineDeps } from "./deps.ts";
import { operatorHandlers } from "./operator-routes.ts";
import { drainStageTasks, tickCpuBudgetMs } from "./stage-runner.ts";
import { startCpuMeter } from "./stage-pool.ts";
import { deliverDueAlerts } from "./alerts/deliver.ts";
import { drainAnalyticsFetches } from "./analytics/fetch.ts";
import { drainThumbnailSets } from "./thumbnails/set.ts";
import { runDueAdaptations } from "./adapt/weekly.ts";
import { serveOpenApiDocument } from "./openapi.ts";
import { drainStorageDeletions, STORAGE_DELETIONS_BUDGET_MS } from "./housekeeping/storage-deletions.ts";
import { type Handlers, serveRoutes } from "./routes.ts";
import { createApiApp, reply } from "../../shared/api/serve.ts";

/**
 * A tick's whole wall budget: pg_net waits 120 s for its answer (wake_stage_runner), and the Edge
 * runtime ends a request at its wall limit; two thirds of it leaves the tasks still in flight
 * after the last claim the rest.
 */
const tickBudgetMs = (env: PipelineDeps["env"]) => Math.min(100_000, Math.floor(env.EDGE_WALL_LIMIT_S * 1000 * 2 / 3));
/** Kept for the alerts' delivery and for the analytics fetches, each, out of the tick's budget. */
const SIDE_WORK_BUDGET_MS = 12_000;

/** The function's own routes: health, the manual trigger, a run's status, the tick. */
function pipelineHandlers(deps: PipelineDeps): Handlers<"getHealth" | "triggerRun" | "getRunStatus" | "tick"> {
  return {
    getHealth: (c) => reply(c, routes.getHealth, 200, { ok: true, env: deps.env.ENV }),

    triggerRun: async (c) => {
      const body = c.req.valid("json");
      // Dated as the scheduled trigger dates it: each dimension's local day (runDate null), so one
      // local day's daily limit counts manual and scheduled runs alike.
      const run = { env: deps.env.ENV, triggerKind: "manual", runDate: null, dimension: body.dimension ?? null } as const;
      // A caller's key names one run; without one, today's trigger starts the dimensions whose current
      // configuration no run of the day has started (keys from their configurations, docs/reference/run-keys.md).
      const rows = body.idempotency_key === undefined
        ? await triggerRun(deps.sql, run).then(({ others, ...first }) => [first, ...others])
        : [await startRun(deps.sql, { ...run, idempotencyKey: body.idempotency_key })];
      for (const started of rows) {
        deps.logger.info(
          { execution_id: started.run_id, created: started.created, dimension_id: body.dimension, status: started.created ? "started" : "skipped" },
          "run triggered",
        );
      }
      const row = rows[0]!;
      const statusUrl = `${deps.env.FUNCTIONS_URL}/pipeline/runs/${row.run_id}`;
      c.header("Location", statusUrl);
      return reply(c, routes.triggerRun, 202, { run_id: row.run_id, status: row.status, created: row.created, status_url: statusUrl });
    },

    getRunStatus: async (c) => {
      const { id } = c.req.valid("param");
      const status = await getRunStatus(deps.sql, id);
      if (status === null) return c.json({ error: `no run ${id}` }, 404);
      return reply(c, routes.getRunStatus, 200, status);
    },

    tick: async (c) => {
      // The CPU of the whole request counts against the runtime's limit, the fixed work included.
      const cpuUsedMs = startCpuMeter();
      // The tick recovers, dead-letters and closes runs: never against another environment's database
      // (EnvironmentMismatchError, answered 503 as on every route whose RPC checks it).
      await assertEnvironment(deps.sql, deps.env.ENV);
      // One budget for the whole tick, under pg_net's 120-s timeout (wake_stage_runner): the stage
      // tasks take what the alerts, analytics fetches and thumbnails do not keep for themselves. They stop
      // claiming at TICK_CPU_SHARE of the CPU limit too: the rest is for the tasks in flight and the
      // side work (docs/reference/supabase-wiring.md).
      const startedAt = Date.now();
      const left = () => Math.max(0, tickBudgetMs(deps.env) - (Date.now() - startedAt));
      const result = await tick(deps.sql);
      await runDueAdaptations(deps);
      const drained = await drainStageTasks(deps, {
        budgetMs: Math.max(0, left() - 3 * SIDE_WORK_BUDGET_MS - STORAGE_DELETIONS_BUDGET_MS),
        cpuBudgetMs: tickCpuBudgetMs(deps.env),
        cpuUsedMs,
      });
      await deliverDueAlerts(deps, { budgetMs: Math.min(SIDE_WORK_BUDGET_MS, left()) });
      await drainAnalyticsFetches(deps, { budgetMs: Math.min(SIDE_WORK_BUDGET_MS, left()) });
      await drainThumbnailSets(deps, { budgetMs: Math.min(SIDE_WORK_BUDGET_MS, left()) });
      await drainStorageDeletions(deps, { budgetMs: Math.min(STORAGE_DELETIONS_BUDGET_MS, left()) });
      // Work left past the budget wakes the next tick from the database, as every wake-up is: pg_net
      // ignores this answer on Supabase, so no caller may be relied on to tick again because of it.
      if (drained.more) {
        const requestId = await wakeNextTick(deps.sql);
        deps.logger.info(
          { request_id: requestId, processed: drained.processed, status: "retrying" },
          "tick out of time with stage tasks visible: next tick woken",
        );
      }
      // The watchdog's proof of life (mdame.watchdog): a tick that got this far has done its work.
      await recordTickOk(deps.sql);
      return reply(c, routes.tick, 200, { tick: result, ...drained });
    },
  };
}

/** The `pipeline` Edge Function: every route of shared/api/routes, each with its handler. */
export function createPipelineApp(deps: PipelineDeps) {
  const app = createApiApp();
  app.onError(createErrorHandler(deps.logger));
  // Every route: a body past the cap is never buffered.
  app.use("*", limitBody(PIPELINE_MAX_BODY_BYTES));
  // Every path segment and query parameter is text the routes can store exactly, whatever reads it.
  app.use("*", refuseUnstorableUrlText());
  serveRoutes(app, deps.env.SERVICE_ROLE_KEY, {
    ...pipelineHandlers(deps),
    // The OpenAPI document of both functions, from the same declarations (no auth: it holds nothing secret).
    getOpenApiDocument: serveOpenApiDocument(deps.env.FUNCTIONS_URL),
    ...operatorHandlers(deps),
  });
  answerUnservedMethods(app);
  return app;
}
