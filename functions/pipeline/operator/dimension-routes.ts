import type { Env, Hono, Schema } from "hono";
import { HTTPException } from "hono/http-exception";
import { Dimension, DIMENSION_SETTINGS, DimensionConfig, DimensionId, DimensionPatch } from "../../../shared/contracts/dimension.ts";
import type { Sql } from "../../../shared/db/client.ts";
import { rpc } from "../../../shared/db/errors.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import type { OperatorDeps } from "../operator-routes.ts";
import { fromDb, iso, jsonBody } from "./request.ts";


/** A dimension row (plus its account counts) as the API shows it. */
function toDimension(row: Record<string, unknown>): Dimension {
  return fromDb(Dimension, {
    ...Object.fromEntries(DIMENSION_SETTINGS.map((c) => [c, row[c]])),
    active: row.active,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    accounts: Number(row.accounts ?? 0),
    active_accounts: Number(row.active_accounts ?? 0),
  }, "mdame.dimensions");
}

async function selectDimensions(sql: Sql, id: string | null): Promise<Dimension[]> {
  const rows = await sql`
    select d.*,
           (select count(*) from mdame.get_accounts(d.id) a)::int as accounts,
           (select count(*) from mdame.get_accounts(d.id) a where a.active)::int as active_accounts
      from mdame.get_dimensions(${id}::text) d
     order by d.id`;
  return rows.map(toDimension);
}

async function oneDimension(sql: Sql, id: string): Promise<Dimension> {
  const [dimension] = await selectDimensions(sql, id);
  if (!dimension) throw new HTTPException(404, { message: `no dimension ${id}` });
  return dimension;
}

/**
 * Dimension routes of the operator API (`mdame dimension ...`), behind the service-role bearer.
 * Bodies are validated by DimensionConfig / DimensionPatch (every bad field at once, 400) before
 * any write; an unknown dimension is 404, an id already taken 409.
 *
 * - `GET   /dimensions`              every dimension, with its account counts
 * - `GET   /dimensions/:id`          one dimension
 * - `POST  /dimensions`              create from a whole configuration (mdame.create_dimension)
 * - `PATCH /dimensions/:id`          change some fields; the merged configuration is checked whole (mdame.update_dimension)
 * - `POST  /dimensions/:id/pause`    new runs leave it out (mdame.set_dimension_active)
 * - `POST  /dimensions/:id/resume`   new runs pick it again
 */
export function registerDimensionRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.get("/dimensions", auth, async (c) => {
    return c.json({ dimensions: await rpc(() => selectDimensions(deps.sql, null)) });
  });

  app.get("/dimensions/:id", auth, async (c) => {
    const id = DimensionId.parse(c.req.param("id"));
    return c.json(await rpc(() => oneDimension(deps.sql, id)));
  });

  app.post("/dimensions", auth, async (c) => {
    const config = DimensionConfig.parse(await jsonBody(c.req.raw));
    await rpc(() => deps.sql`select id from mdame.create_dimension(${deps.sql.json(config as never)}::jsonb)`);
    deps.logger.info({ dimension: config.id }, "dimension created by the operator");
    return c.json(await oneDimension(deps.sql, config.id), 201);
  });

  app.patch("/dimensions/:id", auth, async (c) => {
    const id = DimensionId.parse(c.req.param("id"));
    const patch = DimensionPatch.parse(await jsonBody(c.req.raw));
    const changed = await rpc(() =>
      deps.sql.begin(async (tx) => {
        // Read, merge and check under the row lock, so two concurrent changes cannot combine into
        // a configuration neither of them checked.
        const [current] = await tx`select * from mdame.lock_dimension(${id})`;
        if (!current) throw new HTTPException(404, { message: `no dimension ${id}` });
        const merged = DimensionConfig.parse({ ...Object.fromEntries(DIMENSION_SETTINGS.map((k) => [k, current[k]])), ...patch });
        const [row] = await tx`select updated_at <> ${current.updated_at} as changed from mdame.update_dimension(${id}, ${tx.json(merged as never)}::jsonb)`;
        return row.changed as boolean;
      })
    );
    deps.logger.info({ dimension: id, fields: Object.keys(patch), changed }, "dimension changed by the operator");
    return c.json(await oneDimension(deps.sql, id));
  });

  for (const [action, active] of [["pause", false], ["resume", true]] as const) {
    app.post(`/dimensions/:id/${action}`, auth, async (c) => {
      const id = DimensionId.parse(c.req.param("id"));
      await rpc(() => deps.sql`select id from mdame.set_dimension_active(${id}, ${active})`);
      deps.logger.info({ dimension: id, active }, `dimension ${action}d by the operator`);
      return c.json(await oneDimension(deps.sql, id));
    });
  }
}
