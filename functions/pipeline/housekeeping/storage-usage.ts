/**
 * The sizes `GET /pipeline/storage/usage` answers: the database's (mdame.database_usage) and
 * Storage's, by listing each folder the engine writes (deps.store.list: what is really stored,
 * not what the tables recorded).
 */
import type { StorageUsage } from "../../../shared/contracts/housekeeping.ts";
import { databaseUsage } from "../../../shared/db/rpc/housekeeping.ts";
import type { PipelineDeps } from "../deps.ts";

export async function measureStorageUsage(deps: Pick<PipelineDeps, "sql" | "store">, opts: { tables: number }): Promise<StorageUsage> {
  const database = await databaseUsage(deps.sql, opts.tables);
  const prefixes: StorageUsage["storage"]["prefixes"] = [];
  for (const prefix of database.storage_prefixes) {
    const assets = await deps.store.list(prefix);
    prefixes.push({ prefix, objects: assets.length, bytes: assets.reduce((sum, a) => sum + a.size_bytes, 0) });
  }
  return {
    database,
    storage: {
      source: "listing",
      backend: deps.store.backend,
      total_bytes: prefixes.reduce((sum, p) => sum + p.bytes, 0),
      total_objects: prefixes.reduce((sum, p) => sum + p.objects, 0),
      prefixes,
    },
  };
}
