/** Retention and housekeeping's RPCs (docs/reference/retention.md): the pass, its settings, the Storage deletion outbox, the sizes. */
import { z } from "zod";
import { DatabaseUsage, HousekeepingKindResult, HousekeepingSetting, type HousekeepingSettingName, StorageDeletion } from "../../contracts/housekeeping.ts";
import type { Queryable, Sql } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

/** One housekeeping pass on the engine clock, in bounded batches; a dry run only counts. */
export function runHousekeeping(sql: Sql, dryRun: boolean): Promise<HousekeepingKindResult[]> {
  return manyRows("housekeeping", HousekeepingKindResult, sql`select * from mdame.housekeeping(${dryRun})`);
}

export function housekeepingSettings(sql: Sql): Promise<HousekeepingSetting[]> {
  return manyRows("housekeeping_settings", HousekeepingSetting, sql`select * from mdame.housekeeping_settings()`);
}

/** Sets one setting (null: back to its default); out of range is InvalidSettingError (MDV01). Returns every setting. */
export function setHousekeepingSetting(sql: Queryable, name: HousekeepingSettingName, value: number | null): Promise<HousekeepingSetting[]> {
  return manyRows("set_housekeeping_setting", HousekeepingSetting, sql`select * from mdame.set_housekeeping_setting(${name}, ${value}::integer)`);
}

/** Claims up to `limit` due outbox entries for `leaseS` seconds; keys in use again are dropped, not returned. */
export function claimStorageDeletions(sql: Sql, limit: number, leaseS: number, keys: string[] | null = null): Promise<StorageDeletion[]> {
  return manyRows("claim_storage_deletions", StorageDeletion, sql`select * from mdame.claim_storage_deletions(${limit}, ${leaseS}, ${keys}::text[])`);
}

/** The object is gone: its outbox entry is done. False when there was none. */
export async function ackStorageDeletion(sql: Sql, key: string): Promise<boolean> {
  const row = await oneRow("ack_storage_deletion", z.object({ acked: z.boolean() }).strict(), sql`select mdame.ack_storage_deletion(${key}) as acked`);
  return row.acked;
}

/** The removal failed: the entry waits `delayS` seconds (engine clock) and keeps the error. */
export function retryStorageDeletion(sql: Sql, key: string, error: string, delayS: number): Promise<StorageDeletion | null> {
  return maybeRow("retry_storage_deletion", StorageDeletion, sql`select * from mdame.retry_storage_deletion(${key}, ${error}, ${delayS})`);
}

export async function databaseUsage(sql: Sql, limit: number): Promise<DatabaseUsage> {
  const row = await oneRow("database_usage", z.object({ usage: DatabaseUsage }).strict(), sql`select mdame.database_usage(${limit}) as usage`);
  return row.usage;
}

export async function engineNow(sql: Sql): Promise<Date> {
  const row = await oneRow("engine_now", z.object({ now: z.date() }).strict(), sql`select mdame.engine_now() as now`);
  return row.now;
}
