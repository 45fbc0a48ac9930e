import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import type { HousekeepingSettingName } from "../../../shared/contracts/housekeeping.ts";
import { databaseUsage, engineNow, housekeepingSettings, runHousekeeping, setHousekeepingSetting } from "../../../shared/db/rpc/housekeeping.ts";
import { drainStorageDeletions } from "../housekeeping/storage-deletions.ts";
import { measureStorageUsage } from "../housekeeping/storage-usage.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

/** What a manual pass gives the outbox's drain, under the caller's patience. */
const MANUAL_DRAIN_BUDGET_MS = 30_000;

/**
 * Retention and housekeeping (docs/reference/retention.md), behind the service-role bearer:
 * - `GET  /storage/usage?tables=15`       the database's size and largest tables, Storage's size by folder (listed)
 * - `POST /housekeeping {dry_run?}`       one pass now, per kind; without dry_run the outbox is drained after it
 * - `GET  /housekeeping/settings`         the retention settings in effect
 * - `PATCH /housekeeping/settings {name: value|null}`  changes settings (null: back to the default)
 */
export function housekeepingHandlers(
  deps: OperatorDeps,
): Handlers<"storageUsage" | "runHousekeeping" | "housekeepingSettings" | "setHousekeepingSettings"> {
  return {
    storageUsage: async (c) => {
      const { tables } = c.req.valid("query");
      return reply(c, routes.storageUsage, 200, await measureStorageUsage(deps, { tables }));
    },

    runHousekeeping: async (c) => {
      // An empty body reads as {}; a JSON null is a mistake to refuse, never a destructive default.
      const body = c.req.valid("json");
      const kinds = await runHousekeeping(deps.sql, body.dry_run);
      const { removed, failed } = body.dry_run ? { removed: 0, failed: 0 } : await drainStorageDeletions(deps, { budgetMs: MANUAL_DRAIN_BUDGET_MS });
      const drained = { removed, failed };
      const [settings, usage, now] = await Promise.all([housekeepingSettings(deps.sql), databaseUsage(deps.sql, 1), engineNow(deps.sql)]);
      deps.logger.info(
        { stage: "housekeeping", dry_run: body.dry_run, kinds, ...drained, status: body.dry_run ? "dry_run" : "done" },
        "housekeeping pass by the operator",
      );
      return reply(c, routes.runHousekeeping, 200, {
        dry_run: body.dry_run,
        engine_now: now.toISOString(),
        settings,
        kinds,
        storage_deletions: { ...drained, pending: usage.pending_storage_deletions },
      });
    },

    housekeepingSettings: async (c) => {
      return reply(c, routes.housekeepingSettings, 200, { settings: await housekeepingSettings(deps.sql) });
    },

    setHousekeepingSettings: async (c) => {
      const body = c.req.valid("json");
      // One setting after another, each checked against its own range by the database (MDV01 -> 400).
      let settings = await housekeepingSettings(deps.sql);
      await deps.sql.begin(async (tx) => {
        for (const [name, value] of Object.entries(body)) {
          settings = await setHousekeepingSetting(tx, name as HousekeepingSettingName, value ?? null);
        }
      });
      deps.logger.info({ stage: "housekeeping", changed: body, status: "updated" }, "housekeeping settings changed by the operator");
      return reply(c, routes.setHousekeepingSettings, 200, { settings });
    },
  };
}
