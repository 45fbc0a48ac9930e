import type { Env, Hono, Schema } from "hono";
import { z } from "zod";
import {
  type AbortedRun,
  AbortRunBody,
  AbortRunResult,
  DeadLetter,
  DeadLetterRetry,
  ListQuery,
  RunSummary,
} from "../../shared/contracts/operator.ts";
import { rpc } from "../../shared/db/errors.ts";
import { requireServiceRole } from "../../shared/http/service-auth.ts";
import type { PipelineDeps } from "./deps.ts";
import { registerAccountRoutes } from "./operator/account-routes.ts";
import { registerDimensionRoutes } from "./operator/dimension-routes.ts";
import { fromDb, int, iso, jsonBody } from "./operator/request.ts";

const RunId = z.string().uuid();
/** Dead-letter ids are bigints: kept as decimal text on the way to SQL. */
const DeadLetterId = z.string().regex(/^[1-9][0-9]{0,17}$/, "a dead-letter id is a positive integer");
const RunsQuery = ListQuery(20);
const DeadLettersQuery = ListQuery(50);

export type OperatorDeps = Pick<PipelineDeps, "env" | "sql" | "store" | "logger">;

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
 */
export function registerOperatorRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): Hono<E, S, B> {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.get("/runs", auth, async (c) => {
    const { limit } = RunsQuery.parse(c.req.query());
    const rows = await rpc(() =>
      deps.sql`select id, status, trigger_kind, run_date::text as run_date, created_at, finished_at, error
                 from mdame.list_runs(${limit}::integer)`
    );
    const runs = rows.map((r) => fromDb(RunSummary, { ...r, created_at: iso(r.created_at), finished_at: iso(r.finished_at) }, "mdame.pipeline_runs"));
    return c.json({ runs });
  });

  app.get("/dead-letters", auth, async (c) => {
    const { limit } = DeadLettersQuery.parse(c.req.query());
    const rows = await rpc(() => deps.sql`select * from mdame.list_dead_letters(${limit}::integer)`);
    const deadLetters = rows.map((r) =>
      fromDb(DeadLetter, {
        id: int(r.id),
        queue_name: r.queue_name,
        msg_id: int(r.msg_id),
        read_ct: int(r.read_ct),
        payload: r.payload,
        last_error: r.last_error,
        unit_id: r.unit_id ?? null,
        created_at: iso(r.created_at),
        retried_at: iso(r.retried_at),
        retried_msg_id: int(r.retried_msg_id),
      }, "mdame.list_dead_letters")
    );
    return c.json({ dead_letters: deadLetters });
  });

  app.post("/dead-letters/:id/retry", auth, async (c) => {
    const id = DeadLetterId.parse(c.req.param("id"));
    const [row] = await rpc(() => deps.sql`select mdame.retry_dead_letter(${id}::bigint) as result`);
    const result = fromDb(DeadLetterRetry, row.result, "mdame.retry_dead_letter");
    deps.logger.info({ execution_id: result.run_id, dead_letter_id: result.dead_letter_id, queue: result.queue_name, msg_id: result.msg_id, unit_id: result.unit_id }, "dead letter retried by the operator");
    return c.json(result);
  });

  app.post("/runs/:id/abort", auth, async (c) => {
    const id = RunId.parse(c.req.param("id"));
    const body = AbortRunBody.parse(await jsonBody(c.req.raw));
    const [row] = await rpc(() => deps.sql`select mdame.abort_run(${id}::uuid, ${body.reason ?? null}::text) as result`);
    const result = fromDb(AbortRunResult, row.result, "mdame.abort_run");
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
    const log = { execution_id: result.run.id, cancelled_units: result.cancelled_units, released_assets: result.released_assets.length, removed_assets: removed };
    if (unremoved.length > 0) deps.logger.warn({ ...log, unremoved }, "run aborted; some released assets could not be deleted");
    else deps.logger.info({ ...log, reason: body.reason }, "run aborted by the operator");
    const answer: AbortedRun = { ...result, removed_assets: removed, unremoved_assets: unremoved };
    return c.json(answer);
  });

  registerDimensionRoutes(app, deps);
  registerAccountRoutes(app, deps);
  return app;
}
