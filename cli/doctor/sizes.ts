/**
 * The sizes line (docs/reference/retention.md): the database's size and Storage's, as the pipeline measures
 * them (`GET /pipeline/storage/usage`: pg_database_size and a listing of the engine's Storage
 * folders), with the Storage deletions still pending. Informational: it warns only when it cannot
 * measure (the functions check says why).
 */
import { StorageUsage } from "../../shared/contracts/housekeeping.ts";
import { formatBytes } from "../commands/storage.ts";
import { type CheckResult, describeError, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";

const FAMILY = "database";
const NAME = "sizes";

export async function checkSizes(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const env = config.env;
  if (!env.FUNCTIONS_URL || !env.SERVICE_ROLE_KEY) return warn(FAMILY, NAME, "not measured: FUNCTIONS_URL and SERVICE_ROLE_KEY are needed");
  const base = env.FUNCTIONS_URL.replace(/\/+$/, "");
  try {
    return await withTimeout(timeoutMs, async (signal) => {
      const response = await fetch(`${base}/pipeline/storage/usage?tables=1`, { headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}` }, signal });
      if (!response.ok) {
        await response.body?.cancel();
        return warn(FAMILY, NAME, `not measured: ${base}/pipeline/storage/usage answered HTTP ${response.status}`);
      }
      const usage = StorageUsage.parse(await response.json());
      const pending = usage.database.pending_storage_deletions;
      return ok(
        FAMILY,
        NAME,
        `database ${formatBytes(usage.database.database_bytes)}; storage ${formatBytes(usage.storage.total_bytes)} in ${usage.storage.total_objects} objects${
          pending > 0 ? `; ${pending} storage deletions pending` : ""
        } (mdame storage usage)`,
      );
    });
  } catch (error) {
    return warn(FAMILY, NAME, `not measured: ${describeError(error)}`);
  }
}
