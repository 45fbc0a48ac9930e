/**
 * The adaptive engine's operator routes (`mdame adapt ...`), behind the service-role bearer:
 *
 * - `POST /adapt {dimension?, dry_run}`          decide now for one dimension or every active one; a dry run records nothing
 * - `GET  /adaptations?dimension=&limit=50`      the recorded moves, newest first
 * - `POST /adaptations/:id/revert`               the value before the move is in force again (409 when a later move hides it)
 * - `POST /adapt/pin {dimension, parameter}`     the parameter never moves; `/adapt/unpin` lets it move again
 */
import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import type { Adaptation } from "../../../shared/contracts/adapt.ts";
import { type AdaptationRow, listAdaptations, revertAdaptation, setAdaptationPin } from "../../../shared/db/rpc/adaptations.ts";
import { getDimensions } from "../../../shared/db/rpc/dimensions.ts";
import type { OperatorDeps } from "../operator/deps.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import { adaptDimension } from "./weekly.ts";

function toAdaptation(row: AdaptationRow): Adaptation {
  return { ...row, decided_at: row.decided_at.toISOString(), reverted_at: row.reverted_at?.toISOString() ?? null };
}

export function adaptHandlers(deps: OperatorDeps): Handlers<"adapt" | "listAdaptations" | "revertAdaptation" | "pinAdaptParameter" | "unpinAdaptParameter"> {
  /** Pins a dimension's parameter, or lets it move again: the dimension's pinned parameters afterwards. */
  const setPin = async (body: { dimension: string; parameter: string }, pinned: boolean) => {
    const pins = await setAdaptationPin(deps.sql, body.dimension, body.parameter, pinned);
    deps.logger.info(
      { dimension_id: body.dimension, stage: "adapt", status: pinned ? "pinned" : "unpinned", parameter: body.parameter },
      `adaptive parameter ${pinned ? "pinned" : "unpinned"}`,
    );
    return { dimension_id: body.dimension, pinned: pins };
  };

  return {
    adapt: async (c) => {
      const body = c.req.valid("json");
      const dimensions = body.dimension === undefined ? (await getDimensions(deps.sql)).filter((d) => d.active).map((d) => d.id) : [body.dimension];
      const reports = [];
      for (const id of dimensions) {
        reports.push(await adaptDimension(deps.sql, id, { dryRun: body.dry_run, weekStart: null, now: new Date(), logger: deps.logger }));
      }
      return reply(c, routes.adapt, 200, { reports });
    },

    listAdaptations: async (c) => {
      const query = c.req.valid("query");
      const rows = await listAdaptations(deps.sql, query.dimension ?? null, query.limit);
      return reply(c, routes.listAdaptations, 200, { adaptations: rows.map(toAdaptation) });
    },

    revertAdaptation: async (c) => {
      const { id } = c.req.valid("param");
      const row = await revertAdaptation(deps.sql, id);
      deps.logger.info(
        { dimension_id: row.dimension_id, stage: "adapt", status: "reverted", parameter: row.parameter, adaptation_id: row.id },
        "adaptation reverted by the operator",
      );
      return reply(c, routes.revertAdaptation, 200, toAdaptation(row));
    },

    pinAdaptParameter: async (c) => reply(c, routes.pinAdaptParameter, 200, await setPin(c.req.valid("json"), true)),

    unpinAdaptParameter: async (c) => reply(c, routes.unpinAdaptParameter, 200, await setPin(c.req.valid("json"), false)),
  };
}
