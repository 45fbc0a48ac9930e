import { pipelineRoutes as routes } from "../../shared/api/routes/index.ts";
import { listDeadLetters, retryDeadLetter } from "../../shared/db/rpc/dead-letters.ts";
import { abortRun, listRuns } from "../../shared/db/rpc/runs.ts";
import { drainStorageDeletions } from "./housekeeping/storage-deletions.ts";
import { accountHandlers } from "./operator/account-routes.ts";
import { alertHandlers } from "./operator/alert-routes.ts";
import { analyticsHandlers } from "./operator/analytics-routes.ts";
import { credentialHandlers } from "./operator/credential-routes.ts";
import type { OperatorDeps } from "./operator/deps.ts";
import { dimensionHandlers } from "./operator/dimension-routes.ts";
import { opsHandlers } from "./operator/ops-routes.ts";
import { reportHandlers } from "./operator/report-routes.ts";
import { reviewHandlers } from "./operator/review-routes.ts";
import { housekeepingHandlers } from "./operator/housekeeping-routes.ts";
import { spendHandlers } from "./operator/spend-routes.ts";
import { youtubeProjectHandlers } from "./operator/youtube-project-routes.ts";
import { adaptHandlers } from "./adapt/routes.ts";
import { type Handlers } from "./routes.ts";
import { reply } from "../../shared/api/serve.ts";

/** An abort removes the assets it released within this; what is left the outbox removes later. */
const ABORT_DRAIN_BUDGET_MS = 30_000;
const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/**
 * The operator's routes of the `pipeline` app (what the `mdame` CLI and the dashboard call), each
 * declared in shared/api/routes behind the service-role bearer; rule errors raised by the RPCs
 * reach the app's onError (MDN01 -> 404, MDS01/MDL01 -> 409). Runs and dead letters are here; the
 * others are in operator/*-routes.ts and adapt/routes.ts.
 */
function runHandlers(deps: OperatorDeps): Handlers<"listRuns" | "listDeadLetters" | "retryDeadLetter" | "abortRun"> {
  return {
    listRuns: async (c) => {
      const { limit } = c.req.valid("query");
      const runs = (await listRuns(deps.sql, limit)).map((r) => ({
        id: r.id,
        status: r.status,
        trigger_kind: r.trigger_kind,
        run_date: r.run_date,
        created_at: r.created_at.toISOString(),
        finished_at: iso(r.finished_at),
        error: r.error,
      }));
      return reply(c, routes.listRuns, 200, { runs });
    },

    listDeadLetters: async (c) => {
      const { limit } = c.req.valid("query");
      const deadLetters = (await listDeadLetters(deps.sql, limit)).map((r) => ({
        ...r,
        created_at: r.created_at.toISOString(),
        retried_at: iso(r.retried_at),
      }));
      return reply(c, routes.listDeadLetters, 200, { dead_letters: deadLetters });
    },

    retryDeadLetter: async (c) => {
      const { id } = c.req.valid("param");
      const result = await retryDeadLetter(deps.sql, id);
      deps.logger.info({
        execution_id: result.run_id,
        dead_letter_id: result.dead_letter_id,
        queue: result.queue_name,
        msg_id: result.msg_id,
        unit_id: result.unit_id,
        status: "retrying",
      }, "dead letter retried by the operator");
      return reply(c, routes.retryDeadLetter, 200, result);
    },

    abortRun: async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const result = await abortRun(deps.sql, id, body.reason ?? null);
      // The run is rolled back in the database whatever happens here, and its released assets are in
      // the deletion outbox: they are removed now, and a removal Storage refuses is reported and
      // retried by the outbox after its backoff, never lost.
      const drained = await drainStorageDeletions(deps, { budgetMs: ABORT_DRAIN_BUDGET_MS, keys: result.released_assets });
      const removed = drained.removed;
      const unremoved = drained.failures;
      const log = {
        execution_id: result.run.id,
        cancelled_units: result.cancelled_units,
        released_assets: result.released_assets.length,
        removed_assets: removed,
      };
      if (unremoved.length > 0) deps.logger.warn({ ...log, unremoved, status: "failed" }, "run aborted; some released assets could not be deleted");
      else deps.logger.info({ ...log, reason: body.reason, status: "cancelled" }, "run aborted by the operator");
      return reply(c, routes.abortRun, 200, { ...result, removed_assets: removed, unremoved_assets: unremoved });
    },
  };
}

/** Every operator route's handler. */
export function operatorHandlers(deps: OperatorDeps) {
  return {
    ...runHandlers(deps),
    ...dimensionHandlers(deps),
    ...accountHandlers(deps),
    ...youtubeProjectHandlers(deps),
    ...credentialHandlers(deps),
    ...alertHandlers(deps),
    ...analyticsHandlers(deps),
    ...reportHandlers(deps),
    ...adaptHandlers(deps),
    ...reviewHandlers(deps),
    ...opsHandlers(deps),
    ...housekeepingHandlers(deps),
    ...spendHandlers(deps),
  };
}
