/**
 * The adaptive engine's operator routes (`mdame adapt ...`), behind the service-role bearer:
 *
 * - `POST /adapt {dimension?, dry_run}`          decide now for one dimension or every active one; a dry run records nothing
 * - `GET  /adaptations?dimension=&limit=50`      the recorded moves, newest first
 * - `POST /adaptations/:id/revert`               the value before the move is in force again (409 when a later move hides it)
 * - `POST /adapt/pin {dimension, parameter}`     the parameter never moves; `/adapt/unpin` lets it move again
 */
import type { Env, Hono, Schema } from "hono";
import { z } from "zod";
import { AdaptAnswer, Adaptation, AdaptationList, AdaptBody, AdaptPinBody, AdaptPins } from "../../../shared/contracts/adapt.ts";
import { DimensionId } from "../../../shared/contracts/dimension.ts";
import { type AdaptationRow, listAdaptations, revertAdaptation, setAdaptationPin } from "../../../shared/db/rpc/adaptations.ts";
import { getDimensions } from "../../../shared/db/rpc/dimensions.ts";
import { answer } from "../../../shared/http/answer.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import type { OperatorDeps } from "../operator/deps.ts";
import { jsonBody, routeParam } from "../operator/request.ts";
import { adaptDimension } from "./weekly.ts";

export const AdaptationsQuery = z.object({ dimension: DimensionId.optional(), limit: z.coerce.number().int().min(1).max(500).default(50) }).strict();

function toAdaptation(row: AdaptationRow): Adaptation {
  return { ...row, decided_at: row.decided_at.toISOString(), reverted_at: row.reverted_at?.toISOString() ?? null };
}

export function registerAdaptRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.post("/adapt", auth, async (c) => {
    const body = AdaptBody.parse(await jsonBody(c.req.raw));
    const dimensions = body.dimension === undefined ? (await getDimensions(deps.sql)).filter((d) => d.active).map((d) => d.id) : [body.dimension];
    const reports = [];
    for (const id of dimensions) {
      reports.push(await adaptDimension(deps.sql, id, { dryRun: body.dry_run, weekStart: null, now: new Date(), logger: deps.logger }));
    }
    return c.json(answer(AdaptAnswer, { reports }, "POST /adapt"));
  });

  app.get("/adaptations", auth, async (c) => {
    const query = AdaptationsQuery.parse(c.req.query());
    const rows = await listAdaptations(deps.sql, query.dimension ?? null, query.limit);
    return c.json(answer(AdaptationList, { adaptations: rows.map(toAdaptation) }, "GET /adaptations"));
  });

  app.post("/adaptations/:id/revert", auth, async (c) => {
    const id = routeParam("id", c.req.param("id"), z.string().uuid("must be an adaptation id (a uuid)"));
    await jsonBody(c.req.raw);
    const row = await revertAdaptation(deps.sql, id);
    deps.logger.info(
      { dimension_id: row.dimension_id, stage: "adapt", status: "reverted", parameter: row.parameter, adaptation_id: row.id },
      "adaptation reverted by the operator",
    );
    return c.json(answer(Adaptation, toAdaptation(row), "POST /adaptations/:id/revert"));
  });

  for (const [path, pinned] of [["/adapt/pin", true], ["/adapt/unpin", false]] as const) {
    app.post(path, auth, async (c) => {
      const body = AdaptPinBody.parse(await jsonBody(c.req.raw));
      const pins = await setAdaptationPin(deps.sql, body.dimension, body.parameter, pinned);
      deps.logger.info(
        { dimension_id: body.dimension, stage: "adapt", status: pinned ? "pinned" : "unpinned", parameter: body.parameter },
        `adaptive parameter ${pinned ? "pinned" : "unpinned"}`,
      );
      return c.json(answer(AdaptPins, { dimension_id: body.dimension, pinned: pins }, `POST ${path}`));
    });
  }
}
