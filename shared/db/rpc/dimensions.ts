/** Dimension RPCs: each returns its rows parsed by the contracts in shared/contracts/dimension.ts. */
import { StoredDimension } from "../../contracts/dimension.ts";
import type { Sql } from "../client.ts";
import { manyRows } from "./query.ts";

/** Every dimension, in id order, or the one named (none when it does not exist). */
export function getDimensions(sql: Sql, id: string | null = null): Promise<StoredDimension[]> {
  return manyRows("get_dimensions", StoredDimension, sql`select * from mdame.get_dimensions(${id}::text)`);
}

/** One dimension as it stands now, or null. */
export async function getDimension(sql: Sql, id: string): Promise<StoredDimension | null> {
  const [row] = await getDimensions(sql, id);
  return row ?? null;
}
