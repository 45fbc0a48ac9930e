/** Dimension RPCs: each returns its rows parsed by the contracts in shared/contracts/dimension.ts. */
import { type DimensionConfig, StoredDimension } from "../../contracts/dimension.ts";
import type { Queryable } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

/** Every dimension, in id order, or the one named (none when it does not exist). */
export function getDimensions(sql: Queryable, id: string | null = null): Promise<StoredDimension[]> {
  return manyRows("get_dimensions", StoredDimension, sql`select * from mdame.get_dimensions(${id}::text)`);
}

/** One dimension as it stands now, or null. */
export async function getDimension(sql: Queryable, id: string): Promise<StoredDimension | null> {
  const [row] = await getDimensions(sql, id);
  return row ?? null;
}

/** Creates a dimension from a whole configuration; an id already taken is refused. */
export function createDimension(sql: Queryable, config: DimensionConfig): Promise<StoredDimension> {
  return oneRow("create_dimension", StoredDimension, sql`select * from mdame.create_dimension(${sql.json(config as never)}::jsonb)`);
}

/** Replaces the settings `config` names; a call that changes nothing leaves the row (and its updated_at) as it was. */
export function updateDimension(sql: Queryable, id: string, config: DimensionConfig): Promise<StoredDimension> {
  return oneRow("update_dimension", StoredDimension, sql`select * from mdame.update_dimension(${id}::text, ${sql.json(config as never)}::jsonb)`);
}

/** The dimension's row locked for the caller's transaction (`sql` is then a transaction), or null. */
export function lockDimension(sql: Queryable, id: string): Promise<StoredDimension | null> {
  return maybeRow("lock_dimension", StoredDimension, sql`select * from mdame.lock_dimension(${id}::text)`);
}

/** Pauses (false) or resumes (true) a dimension: runs started afterwards leave a paused one out. */
export function setDimensionActive(sql: Queryable, id: string, active: boolean): Promise<StoredDimension> {
  return oneRow("set_dimension_active", StoredDimension, sql`select * from mdame.set_dimension_active(${id}::text, ${active}::boolean)`);
}
