/**
 * Retention, housekeeping passes and sizes (functions/pipeline/operator/housekeeping-routes.ts serves
 * them, docs/reference/retention.md), with an example of each body and answer.
 */
import { z } from "@hono/zod-openapi";
import { bodies } from "../components.ts";
import { answers, body, errors, ok, routesOf, serviceBodyErrors, serviceErrors } from "../kit.ts";

export const UsageQuery = z.object({ tables: z.coerce.number().int().min(1).max(200).default(15) }).strict();

const ENGINE_NOW = "2026-12-02T08:00:00.000Z";

const settings = [
  { name: "scene_cache_ttl_days", value: 30, default_value: 30, min_value: 1, max_value: 3650 },
  { name: "render_retention_days", value: 14, default_value: 14, min_value: 1, max_value: 3650 },
  { name: "voice_retention_days", value: 14, default_value: 14, min_value: 1, max_value: 3650 },
  { name: "llm_cache_days", value: 30, default_value: 30, min_value: 1, max_value: 3650 },
  { name: "events_days", value: 90, default_value: 90, min_value: 1, max_value: 3650 },
  { name: "step_results_days", value: 90, default_value: 90, min_value: 1, max_value: 3650 },
  { name: "pgmq_archive_days", value: 14, default_value: 14, min_value: 1, max_value: 3650 },
  { name: "batch_size", value: 500, default_value: 500, min_value: 1, max_value: 10000 },
];
const withRenders = (days: number) => settings.map((s) => (s.name === "render_retention_days" ? { ...s, value: days } : s));

/** One pass's kinds: what qualifies, what this pass deleted (none on a dry run), the Storage keys it queued. */
const kinds = (dryRun: boolean) => [
  { kind: "scene_cache", due: 12, deleted: dryRun ? 0 : 12, storage_keys_queued: dryRun ? 0 : 11 },
  { kind: "renders", due: 4, deleted: dryRun ? 0 : 4, storage_keys_queued: dryRun ? 0 : 4 },
  { kind: "voices", due: 4, deleted: dryRun ? 0 : 4, storage_keys_queued: dryRun ? 0 : 8 },
  { kind: "llm_cache", due: 37, deleted: dryRun ? 0 : 37, storage_keys_queued: 0 },
  { kind: "events", due: 0, deleted: 0, storage_keys_queued: 0 },
  { kind: "step_results", due: 210, deleted: dryRun ? 0 : 210, storage_keys_queued: 0 },
  { kind: "pgmq_archives", due: 1480, deleted: dryRun ? 0 : 500, storage_keys_queued: 0 },
];

const housekeepingExamples = {
  usage: {
    database: {
      database_bytes: 48_312_467,
      pending_storage_deletions: 3,
      storage_prefixes: ["renders", "voice", "scenes", "music/calm", "reports/weekly/tech-explained"],
      tables: [
        { name: "pgmq.a_stage_tasks", total_bytes: 6_602_752, index_bytes: 1_146_880 },
        { name: "mdame.events", total_bytes: 4_153_344, index_bytes: 1_302_528 },
        { name: "mdame.step_results", total_bytes: 2_637_824, index_bytes: 671_744 },
      ],
    },
    storage: {
      source: "listing",
      backend: "supabase-storage",
      total_bytes: 1_938_556_108,
      total_objects: 412,
      prefixes: [
        { prefix: "renders", objects: 58, bytes: 1_067_322_554 },
        { prefix: "voice", objects: 116, bytes: 61_485_112 },
        { prefix: "scenes", objects: 214, bytes: 781_904_020 },
        { prefix: "music/calm", objects: 12, bytes: 27_638_702 },
        { prefix: "reports/weekly/tech-explained", objects: 12, bytes: 205_720 },
      ],
    },
  },
  dryRunBody: { dry_run: true },
  passBody: { dry_run: false },
  dryRun: {
    dry_run: true,
    engine_now: ENGINE_NOW,
    settings,
    kinds: kinds(true),
    storage_deletions: { removed: 0, failed: 0, pending: 0 },
  },
  pass: {
    dry_run: false,
    engine_now: ENGINE_NOW,
    settings,
    kinds: kinds(false),
    storage_deletions: { removed: 22, failed: 1, pending: 1 },
  },
  settings: { settings },
  setBody: { render_retention_days: 30 },
  resetBody: { render_retention_days: null },
  changed: { settings: withRenders(30) },
};

const errorExamples = {
  badTables: { error: "invalid request", issues: [{ code: "too_small", path: ["tables"], message: "Too small: expected number to be >=1" }] },
  badDryRun: { error: "invalid request", issues: [{ code: "invalid_type", path: ["dry_run"], message: "Invalid input: expected boolean, received string" }] },
  outOfRange: { error: "housekeeping setting render_retention_days takes 1 to 3650, not 0" },
  unknownSetting: {
    error: "invalid request",
    issues: [
      { code: "unrecognized_keys", path: [], message: 'Unrecognized key: "render_days"', keys: ["render_days"] },
      { code: "custom", path: [], message: "name at least one setting" },
    ],
  },
};

const route = routesOf("housekeeping");

export const housekeepingRoutes = {
  storageUsage: route({
    method: "get",
    path: "/pipeline/storage/usage",
    operationId: "storageUsage",
    summary: "The database's size and largest tables (mdame.database_usage), the Storage deletions pending, and Storage's size by folder, listed",
    description:
      "Storage sizes come from listing each folder the engine writes through the asset store (what is really stored), not from sizes the tables recorded.",
    request: { query: UsageQuery },
    responses: {
      200: ok("The sizes", bodies.StorageUsage, "a month of one dimension", housekeepingExamples.usage),
      ...serviceErrors,
      400: ok(errors[400].description, bodies.ErrorAnswer, "tables out of range", errorExamples.badTables),
    },
  }),
  runHousekeeping: route({
    method: "post",
    path: "/pipeline/housekeeping",
    operationId: "runHousekeeping",
    summary: "One housekeeping pass now, per kind (mdame.housekeeping); without `dry_run` the Storage deletion outbox is drained after it",
    description:
      "A dry run counts what is due and deletes nothing. A pass deletes at most `batch_size` rows per kind; what is left goes on the next pass. The outbox's drain is given up to 30 s; a removal Storage refuses waits and is tried again later (`failed`, still `pending`).",
    request: {
      body: body(bodies.HousekeepingBody, false, {
        dryRun: { summary: "count what is due, delete nothing", value: housekeepingExamples.dryRunBody },
        pass: { summary: "delete what is due", value: housekeepingExamples.passBody },
      }),
    },
    responses: {
      200: answers("The pass per kind, the settings it ran with and the outbox's drain", bodies.HousekeepingAnswer, {
        dryRun: { summary: "a dry run", value: housekeepingExamples.dryRun },
        pass: { summary: "a pass, one Storage removal refused", value: housekeepingExamples.pass },
      }),
      ...serviceBodyErrors,
      400: ok(errors[400].description, bodies.ErrorAnswer, "dry_run not a boolean", errorExamples.badDryRun),
    },
  }),
  housekeepingSettings: route({
    method: "get",
    path: "/pipeline/housekeeping/settings",
    operationId: "housekeepingSettings",
    summary: "The retention settings in effect, each with its default and range (mdame.housekeeping_settings)",
    responses: {
      200: ok("The settings", bodies.HousekeepingSettings, "the defaults", housekeepingExamples.settings),
      401: serviceErrors[401],
      500: serviceErrors[500],
    },
  }),
  setHousekeepingSettings: route({
    method: "patch",
    path: "/pipeline/housekeeping/settings",
    operationId: "setHousekeepingSettings",
    summary: "Change retention settings, each checked against its range (mdame.set_housekeeping_setting); null puts one back on its default",
    description: "The settings named are changed together in one transaction: one out of range is a 400 and none is changed.",
    request: {
      body: body(bodies.HousekeepingSettingsBody, true, {
        set: { summary: "keep renders a month", value: housekeepingExamples.setBody },
        reset: { summary: "renders back to the default", value: housekeepingExamples.resetBody },
      }),
    },
    responses: {
      200: ok("Every setting afterwards", bodies.HousekeepingSettings, "renders kept a month", housekeepingExamples.changed),
      ...serviceBodyErrors,
      400: answers(
        "The body names no setting, an unknown one, or a value out of its range; `issues` names each contract problem (at most 20)",
        bodies.ErrorAnswer,
        {
          outOfRange: { summary: "a value out of the setting's range", value: errorExamples.outOfRange },
          unknown: { summary: "an unknown setting", value: errorExamples.unknownSetting },
        },
      ),
    },
  }),
};
