import { HTTPException } from "hono/http-exception";
import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { Dimension, DIMENSION_SETTINGS, DimensionConfig, type StoredDimension } from "../../../shared/contracts/dimension.ts";
import type { Sql } from "../../../shared/db/client.ts";
import { type AccountRow, getAccounts } from "../../../shared/db/rpc/accounts.ts";
import { createDimension, getDimensions, lockDimension, setDimensionActive, updateDimension } from "../../../shared/db/rpc/dimensions.ts";
import { answer } from "../../../shared/http/answer.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

type DimensionSettings = Pick<StoredDimension, (typeof DIMENSION_SETTINGS)[number]>;

/** A stored dimension's configuration: its settings, without whether it is active or its timestamps. */
function settingsOf(row: StoredDimension): DimensionSettings {
  return Object.fromEntries(DIMENSION_SETTINGS.map((k) => [k, row[k]])) as DimensionSettings;
}

/** A dimension (plus its account counts) as the API shows it. */
function toDimension(row: StoredDimension, accounts: readonly AccountRow[]): Dimension {
  const own = accounts.filter((a) => a.dimension_id === row.id);
  return answer(Dimension, {
    ...settingsOf(row),
    active: row.active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    accounts: own.length,
    active_accounts: own.filter((a) => a.active).length,
  }, "mdame.dimensions");
}

async function selectDimensions(sql: Sql, id: string | null): Promise<Dimension[]> {
  const dimensions = await getDimensions(sql, id);
  const accounts = dimensions.length === 0 ? [] : await getAccounts(sql, { dimensionId: id });
  return dimensions.map((row) => toDimension(row, accounts));
}

async function oneDimension(sql: Sql, id: string): Promise<Dimension> {
  const [dimension] = await selectDimensions(sql, id);
  if (!dimension) throw new HTTPException(404, { message: `no dimension ${id}` });
  return dimension;
}

/**
 * Dimension routes of the operator API (`mdame dimension ...`), declared in shared/api/routes/dimensions.ts
 * behind the service-role bearer. Bodies are validated by DimensionConfig / DimensionPatch (every bad
 * field at once, 400) before any write; an unknown dimension is 404, an id already taken 409.
 *
 * - `GET   /dimensions`              every dimension, with its account counts
 * - `GET   /dimensions/:id`          one dimension
 * - `POST  /dimensions`              create from a whole configuration (mdame.create_dimension)
 * - `PATCH /dimensions/:id`          change some fields (and some of `publishing`); the merged configuration is checked whole (mdame.update_dimension)
 * - `POST  /dimensions/:id/pause`    new runs leave it out (mdame.set_dimension_active)
 * - `POST  /dimensions/:id/resume`   new runs pick it again
 */
export function dimensionHandlers(
  deps: OperatorDeps,
): Handlers<"listDimensions" | "getDimension" | "createDimension" | "updateDimension" | "pauseDimension" | "resumeDimension"> {
  /** New runs leave the dimension out (pause) or pick it again (resume); the dimension afterwards. */
  const setActive = async (id: string, action: "pause" | "resume", active: boolean): Promise<Dimension> => {
    await setDimensionActive(deps.sql, id, active);
    deps.logger.info({ dimension_id: id, active, status: "succeeded" }, `dimension ${action}d by the operator`);
    return await oneDimension(deps.sql, id);
  };
  return {
    listDimensions: async (c) => {
      return reply(c, routes.listDimensions, 200, { dimensions: await selectDimensions(deps.sql, null) });
    },

    getDimension: async (c) => {
      const { id } = c.req.valid("param");
      return reply(c, routes.getDimension, 200, await oneDimension(deps.sql, id));
    },

    createDimension: async (c) => {
      const config = c.req.valid("json");
      await createDimension(deps.sql, config);
      deps.logger.info({ dimension_id: config.id, status: "succeeded" }, "dimension created by the operator");
      return reply(c, routes.createDimension, 201, await oneDimension(deps.sql, config.id));
    },

    updateDimension: async (c) => {
      const { id } = c.req.valid("param");
      const patch = c.req.valid("json");
      const changed = await deps.sql.begin(async (tx) => {
        // Read, merge and check under the row lock, so two concurrent changes cannot combine into
        // a configuration neither of them checked.
        const current = await lockDimension(tx, id);
        if (!current) throw new HTTPException(404, { message: `no dimension ${id}` });
        const stored = settingsOf(current);
        const merged = DimensionConfig.parse({
          ...stored,
          ...patch,
          ...(patch.publishing && { publishing: { ...stored.publishing, ...patch.publishing } }),
        });
        const updated = await updateDimension(tx, id, merged);
        return updated.updated_at.getTime() !== current.updated_at.getTime();
      });
      deps.logger.info({ dimension_id: id, fields: Object.keys(patch), changed, status: "succeeded" }, "dimension changed by the operator");
      return reply(c, routes.updateDimension, 200, await oneDimension(deps.sql, id));
    },

    pauseDimension: async (c) => {
      const { id } = c.req.valid("param");
      return reply(c, routes.pauseDimension, 200, await setActive(id, "pause", false));
    },

    resumeDimension: async (c) => {
      const { id } = c.req.valid("param");
      return reply(c, routes.resumeDimension, 200, await setActive(id, "resume", true));
    },
  };
}
