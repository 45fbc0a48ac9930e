import type { Env, Hono, Schema } from "hono";
import { z } from "zod";
import {
  HousekeepingAnswer,
  HousekeepingBody,
  type HousekeepingSettingName,
  HousekeepingSettings,
  HousekeepingSettingsBody,
  StorageUsage,
} from "../../../shared/contracts/housekeeping.ts";
import { databaseUsage, engineNow, housekeepingSettings, runHousekeeping, setHousekeepingSetting } from "../../../shared/db/rpc/housekeeping.ts";
import { answer } from "../../../shared/http/answer.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import { drainStorageDeletions } from "../housekeeping/storage-deletions.ts";
import { measureStorageUsage } from "../housekeeping/storage-usage.ts";
import type { OperatorDeps } from "./deps.ts";
import { jsonBody } from "./request.ts";

/** What a manual pass gives the outbox's drain, under the caller's patience. */
const MANUAL_DRAIN_BUDGET_MS = 30_000;
export const UsageQuery = z.object({ tables: z.coerce.number().int().min(1).max(200).default(15) }).strict();

/**
 * Retention and housekeeping (docs/reference/retention.md), behind the service-role bearer:
 * - `GET  /storage/usage?tables=15`       the database's size and largest tables, Storage's size by folder (listed)
 * - `POST /housekeeping {dry_run?}`       one pass now, per kind; without dry_run the outbox is drained after it
 * - `GET  /housekeeping/settings`         the retention settings in effect
 * - `PATCH /housekeeping/settings {name: value|null}`  changes settings (null: back to the default)
 */
export function registerHousekeepingRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.get("/storage/usage", auth, async (c) => {
    const { tables } = UsageQuery.parse(c.req.query());
    return c.json(answer(StorageUsage, await measureStorageUsage(deps, { tables }), "GET /storage/usage"));
  });

  app.post("/housekeeping", auth, async (c) => {
    // An empty body reads as {}; a JSON null is a mistake to refuse, never a destructive default.
    const body = HousekeepingBody.parse(await jsonBody(c.req.raw));
    const kinds = await runHousekeeping(deps.sql, body.dry_run);
    const drained = body.dry_run ? { removed: 0, failed: 0 } : await drainStorageDeletions(deps, { budgetMs: MANUAL_DRAIN_BUDGET_MS });
    const [settings, usage, now] = await Promise.all([housekeepingSettings(deps.sql), databaseUsage(deps.sql, 1), engineNow(deps.sql)]);
    deps.logger.info(
      { stage: "housekeeping", dry_run: body.dry_run, kinds, ...drained, status: body.dry_run ? "dry_run" : "done" },
      "housekeeping pass by the operator",
    );
    return c.json(answer(HousekeepingAnswer, {
      dry_run: body.dry_run,
      engine_now: now.toISOString(),
      settings,
      kinds,
      storage_deletions: { ...drained, pending: usage.pending_storage_deletions },
    }, "POST /housekeeping"));
  });

  app.get("/housekeeping/settings", auth, async (c) => {
    return c.json(answer(HousekeepingSettings, { settings: await housekeepingSettings(deps.sql) }, "GET /housekeeping/settings"));
  });

  app.patch("/housekeeping/settings", auth, async (c) => {
    const body = HousekeepingSettingsBody.parse(await jsonBody(c.req.raw));
    // One setting after another, each checked against its own range by the database (MDV01 -> 400).
    let settings = await housekeepingSettings(deps.sql);
    await deps.sql.begin(async (tx) => {
      for (const [name, value] of Object.entries(body)) {
        settings = await setHousekeepingSetting(tx, name as HousekeepingSettingName, value ?? null);
      }
    });
    deps.logger.info({ stage: "housekeeping", changed: body, status: "updated" }, "housekeeping settings changed by the operator");
    return c.json(answer(HousekeepingSettings, { settings }, "PATCH /housekeeping/settings"));
  });
}
