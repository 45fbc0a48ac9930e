import { Hono } from "hono";
import { z } from "zod";
import { rpc } from "../../shared/db/errors.ts";
import { limitBody, PIPELINE_MAX_BODY_BYTES, readJsonBody } from "../../shared/http/bounded-body.ts";
import { createErrorHandler } from "../../shared/http/error-handler.ts";
import { requireServiceRole } from "../../shared/http/service-auth.ts";
import type { PipelineDeps } from "./deps.ts";
import { registerOperatorRoutes } from "./operator-routes.ts";
import { drainStageTasks } from "./stage-runner.ts";

/** Body of POST /pipeline/runs. */
export const TriggerRunBody = z.object({
  dimension: z.string().min(1).max(100).optional(),
  idempotency_key: z.string().min(8).max(200).optional(),
}).strict();

const RunId = z.string().uuid();

/** The `pipeline` Edge Function: manual trigger, run status, and the tick that drains stage tasks. */
export function createPipelineApp(deps: PipelineDeps) {
  const app = new Hono().basePath("/pipeline");
  app.onError(createErrorHandler(deps.logger));
  // Every route, including those other modules register: a body past the cap is never buffered.
  app.use("*", limitBody(PIPELINE_MAX_BODY_BYTES));

  app.get("/health", (c) => c.json({ ok: true, env: deps.env.ENV }));
  app.use("/runs/*", requireServiceRole(deps.env.SERVICE_ROLE_KEY));
  app.use("/runs", requireServiceRole(deps.env.SERVICE_ROLE_KEY));
  app.use("/tick", requireServiceRole(deps.env.SERVICE_ROLE_KEY));

  app.post("/runs", async (c) => {
    const body = TriggerRunBody.parse(await readJsonBody(c.req.raw, PIPELINE_MAX_BODY_BYTES));
    const runDate = new Date().toISOString().slice(0, 10);
    // A caller's key names one run; without one, today's trigger starts the dimensions whose current
    // configuration no run of the day has started (keys from their configurations, docs/run-keys.md).
    const [row] = await rpc(() =>
      body.idempotency_key === undefined
        ? deps.sql`select * from mdame.trigger_run(${deps.env.ENV}, 'manual', ${runDate}::date, ${body.dimension ?? null})`
        : deps.sql`select * from mdame.start_run(${body.idempotency_key}, ${deps.env.ENV}, 'manual', ${runDate}::date, ${body.dimension ?? null})`
    );
    deps.logger.info({ execution_id: row.run_id, created: row.created, dimension: body.dimension }, "run triggered");
    const statusUrl = `${deps.env.FUNCTIONS_URL}/pipeline/runs/${row.run_id}`;
    c.header("Location", statusUrl);
    return c.json({ run_id: row.run_id, status: row.status, created: row.created, status_url: statusUrl }, 202);
  });

  app.get("/runs/:id", async (c) => {
    const id = RunId.parse(c.req.param("id"));
    const [row] = await rpc(() => deps.sql`select mdame.get_run_status(${id}) as status`);
    if (!row?.status) return c.json({ error: `no run ${id}` }, 404);
    return c.json(row.status);
  });

  app.post("/tick", async (c) => {
    const [tick] = await deps.sql`select mdame.tick() as result`;
    const drained = await drainStageTasks(deps, { budgetMs: 100_000 });
    return c.json({ tick: tick.result, ...drained });
  });

  registerOperatorRoutes(app, deps);
  return app;
}
