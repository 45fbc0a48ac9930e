import type { Env, Hono, Schema } from "hono";
import { z } from "zod";
import { AbortedRun, AbortRunBody, DeadLetterList, DeadLetterRetry, ListQuery, RunList } from "../../shared/contracts/operator.ts";
import { listDeadLetters, retryDeadLetter } from "../../shared/db/rpc/dead-letters.ts";
import { abortRun, listRuns } from "../../shared/db/rpc/runs.ts";
import { requireServiceRole } from "../../shared/http/service-auth.ts";
import { registerAccountRoutes } from "./operator/account-routes.ts";
import { registerAlertRoutes } from "./operator/alert-routes.ts";
import { registerAnalyticsRoutes } from "./operator/analytics-routes.ts";
import { registerCredentialRoutes } from "./operator/credential-routes.ts";
import type { OperatorDeps } from "./operator/deps.ts";
import { registerDimensionRoutes } from "./operator/dimension-routes.ts";
import { registerOpsRoutes } from "./operator/ops-routes.ts";
import { registerReportRoutes } from "./operator/report-routes.ts";
import { registerHousekeepingRoutes } from "./operator/housekeeping-routes.ts";
import { registerYouTubeProjectRoutes } from "./operator/youtube-project-routes.ts";
import { registerAdaptRoutes } from "./adapt/routes.ts";
import { answer } from "../../shared/http/answer.ts";
import { jsonBody, routeParam } from "./operator/request.ts";

export const RunId = z.string().uuid();
/** Dead-letter ids are bigints: kept as decimal text on the way to SQL. */
export const DeadLetterId = z.string().regex(/^[1-9][0-9]{0,17}$/, "a dead-letter id is a positive integer");
export const RunsQuery = ListQuery(20);
export const DeadLettersQuery = ListQuery(50);

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/**
 * The operator's routes on the `pipeline` app (what the `mdame` CLI calls), each behind the
 * service-role bearer; rule errors raised by the RPCs reach the app's onError (MDN01 -> 404,
 * MDS01/MDL01 -> 409):
 *
 * - `GET  /runs?limit=20`                recent runs, newest first
 * - `GET  /dead-letters?limit=50`        dead letters, newest first
 * - `POST /dead-letters/:id/retry`       queues the dead letter's payload again (mdame.retry_dead_letter)
 * - `POST /runs/:id/abort {reason?}`     rolls the run back (mdame.abort_run) and deletes the assets it released
 * - `/dimensions...`, `/accounts...`     see operator/dimension-routes.ts and operator/account-routes.ts
 * - `/youtube-projects...`              Google projects (OAuth clients), see operator/youtube-project-routes.ts
 * - `GET  /alerts?limit=30`              recent alerts and their delivery (operator/alert-routes.ts)
 * - `GET  /runs/:id/analytics`           see operator/analytics-routes.ts
 * - `GET  /reports/weekly?week=...`      see operator/report-routes.ts
 * - `/adapt...`, `/adaptations...`       the adaptive engine, see adapt/routes.ts
 * - `/storage/usage`, `/housekeeping...`  retention, see operator/housekeeping-routes.ts
 */
export function registerOperatorRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): Hono<E, S, B> {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.get("/runs", auth, async (c) => {
    const { limit } = RunsQuery.parse(c.req.query());
    const runs = (await listRuns(deps.sql, limit)).map((r) => ({
      id: r.id,
      status: r.status,
      trigger_kind: r.trigger_kind,
      run_date: r.run_date,
      created_at: r.created_at.toISOString(),
      finished_at: iso(r.finished_at),
      error: r.error,
    }));
    return c.json(answer(RunList, { runs }, "GET /runs"));
  });

  app.get("/dead-letters", auth, async (c) => {
    const { limit } = DeadLettersQuery.parse(c.req.query());
    const deadLetters = (await listDeadLetters(deps.sql, limit)).map((r) => ({
      ...r,
      created_at: r.created_at.toISOString(),
      retried_at: iso(r.retried_at),
    }));
    return c.json(answer(DeadLetterList, { dead_letters: deadLetters }, "GET /dead-letters"));
  });

  app.post("/dead-letters/:id/retry", auth, async (c) => {
    const id = routeParam("id", c.req.param("id"), DeadLetterId);
    const result = answer(DeadLetterRetry, await retryDeadLetter(deps.sql, id), "POST /dead-letters/:id/retry");
    deps.logger.info({
      execution_id: result.run_id,
      dead_letter_id: result.dead_letter_id,
      queue: result.queue_name,
      msg_id: result.msg_id,
      unit_id: result.unit_id,
      status: "retrying",
    }, "dead letter retried by the operator");
    return c.json(result);
  });

  app.post("/runs/:id/abort", auth, async (c) => {
    const id = routeParam("id", c.req.param("id"), RunId);
    const body = AbortRunBody.parse(await jsonBody(c.req.raw));
    const result = await abortRun(deps.sql, id, body.reason ?? null);
    // The run is rolled back in the database whatever happens here; a key storage refuses to delete
    // is reported rather than failing the call, since the abort cannot be undone or repeated.
    let removed = 0;
    const unremoved: { key: string; error: string }[] = [];
    for (const key of result.released_assets) {
      try {
        await deps.store.remove(key);
        removed += 1;
      } catch (error) {
        unremoved.push({ key, error: error instanceof Error ? error.message : String(error) });
      }
    }
    const log = {
      execution_id: result.run.id,
      cancelled_units: result.cancelled_units,
      released_assets: result.released_assets.length,
      removed_assets: removed,
    };
    if (unremoved.length > 0) deps.logger.warn({ ...log, unremoved, status: "failed" }, "run aborted; some released assets could not be deleted");
    else deps.logger.info({ ...log, reason: body.reason, status: "cancelled" }, "run aborted by the operator");
    return c.json(answer(AbortedRun, { ...result, removed_assets: removed, unremoved_assets: unremoved }, "POST /runs/:id/abort"));
  });

  registerDimensionRoutes(app, deps);
  registerAccountRoutes(app, deps);
  registerYouTubeProjectRoutes(app, deps);
  registerCredentialRoutes(app, deps);
  registerAlertRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  registerReportRoutes(app, deps);
  registerAdaptRoutes(app, deps);
  registerOpsRoutes(app, deps);
  registerHousekeepingRoutes(app, deps);
  return app;
}
