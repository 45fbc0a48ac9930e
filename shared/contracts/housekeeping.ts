/**
 * Retention and housekeeping (docs/reference/retention.md): the settings, one pass's answer per kind, the
 * Storage deletion outbox, and the sizes `mdame storage usage` and the doctor print. The pipeline
 * builds each answer through these schemas and the CLI parses it with the same ones.
 */
import { z } from "zod";
import { count, timestamp } from "./columns.ts";

const bytes = z.number().int().nonnegative();
/** Postgres bigints arrive as text (postgres.js) or numbers; both become numbers. */
const bigCount = z.union([z.number(), z.string().regex(/^\d+$/)]).transform(Number).pipe(count);

export const HOUSEKEEPING_SETTING_NAMES = [
  "scene_cache_ttl_days",
  "render_retention_days",
  "voice_retention_days",
  "llm_cache_days",
  "events_days",
  "step_results_days",
  "pgmq_archive_days",
  "spend_days",
  "batch_size",
] as const;
export const HousekeepingSettingName = z.enum(HOUSEKEEPING_SETTING_NAMES);
export type HousekeepingSettingName = z.infer<typeof HousekeepingSettingName>;

/** One retention setting in effect (mdame.housekeeping_settings). */
export const HousekeepingSetting = z.object({
  name: HousekeepingSettingName,
  value: z.number().int(),
  default_value: z.number().int(),
  min_value: z.number().int(),
  max_value: z.number().int(),
}).strict();
export type HousekeepingSetting = z.infer<typeof HousekeepingSetting>;

const HOUSEKEEPING_KINDS = ["scene_cache", "renders", "voices", "llm_cache", "events", "step_results", "pgmq_archives", "provider_usage"] as const;
const HousekeepingKind = z.enum(HOUSEKEEPING_KINDS);

/** One kind of a housekeeping pass: rows that qualify, rows this pass deleted, Storage keys it queued. */
export const HousekeepingKindResult = z.object({
  kind: HousekeepingKind,
  due: bigCount,
  deleted: bigCount,
  storage_keys_queued: bigCount,
}).strict();
export type HousekeepingKindResult = z.infer<typeof HousekeepingKindResult>;

/** One entry of the deletion outbox (mdame.storage_deletions). */
export const StorageDeletion = z.object({
  key: z.string().min(1).max(300),
  kind: z.enum(["scene", "render", "voice"]),
  queued_at: z.date(),
  not_before: z.date(),
  attempts: z.number().int().nonnegative(),
  last_error: z.string().nullable(),
}).strict();
export type StorageDeletion = z.infer<typeof StorageDeletion>;

/** What one drain of the outbox did: objects removed, removals Storage refused (retried later), keys dropped because in use again. */
export const StorageDeletionDrain = z.object({ removed: count, failed: count }).strict();
export type StorageDeletionDrain = z.infer<typeof StorageDeletionDrain>;

/** `POST /pipeline/housekeeping {dry_run?}`: the body. */
export const HousekeepingBody = z.object({ dry_run: z.boolean().default(false) }).strict();

/** `POST /pipeline/housekeeping`: the pass per kind; without dry_run, also the drain of the outbox that followed. */
export const HousekeepingAnswer = z.object({
  dry_run: z.boolean(),
  engine_now: timestamp,
  settings: z.array(HousekeepingSetting),
  kinds: z.array(HousekeepingKindResult),
  storage_deletions: StorageDeletionDrain.extend({ pending: count }).strict(),
}).strict();
export type HousekeepingAnswer = z.infer<typeof HousekeepingAnswer>;

/** `PATCH /pipeline/housekeeping/settings`: the settings to change; null puts one back on its default. */
export const HousekeepingSettingsBody = z.partialRecord(HousekeepingSettingName, z.number().int().min(0).max(10000).nullable())
  .refine((body) => Object.keys(body).length > 0, "name at least one setting");

/** `GET|PATCH /pipeline/housekeeping/settings`. */
export const HousekeepingSettings = z.object({ settings: z.array(HousekeepingSetting) }).strict();
export type HousekeepingSettings = z.infer<typeof HousekeepingSettings>;

/** mdame.database_usage: the database's size, its largest tables (indexes and TOAST included), the outbox backlog, the Storage folders. */
export const DatabaseUsage = z.object({
  database_bytes: bytes,
  pending_storage_deletions: count,
  /** The Storage folders the engine writes, for the listing of sizes. */
  storage_prefixes: z.array(z.string()),
  tables: z.array(z.object({ name: z.string(), total_bytes: bytes, index_bytes: bytes }).strict()),
}).strict();
export type DatabaseUsage = z.infer<typeof DatabaseUsage>;

/** `GET /pipeline/storage/usage`: sizes by listing Storage (deps.store.list), not from recorded sizes. */
export const StorageUsage = z.object({
  database: DatabaseUsage,
  storage: z.object({
    source: z.literal("listing"),
    backend: z.string(),
    total_bytes: bytes,
    total_objects: count,
    prefixes: z.array(z.object({ prefix: z.string(), objects: count, bytes }).strict()),
  }).strict(),
}).strict();
export type StorageUsage = z.infer<typeof StorageUsage>;
