/**
 * The drain of the Storage deletion outbox (docs/reference/retention.md), run by the tick after its other
 * work and by `POST /pipeline/housekeeping`. mdame.housekeeping queues the keys it let go in the
 * transaction that forgot their rows; here each claimed key is removed through the Storage API
 * (deps.store.remove: an absent object is fine) and acknowledged. A removal that fails waits with
 * exponential backoff (1 min .. 6 h, engine clock) and is tried again, never given up, so nothing
 * is left behind. A key something uses again since it was queued is dropped by the claim itself.
 */
import type { StorageDeletionDrain } from "../../../shared/contracts/housekeeping.ts";
import { ackStorageDeletion, claimStorageDeletions, retryStorageDeletion } from "../../../shared/db/rpc/housekeeping.ts";
import type { PipelineDeps } from "../deps.ts";

/** The tick's share for the outbox: deletions are quick, and what is left waits for the next tick. */
export const STORAGE_DELETIONS_BUDGET_MS = 5_000;
const CLAIM_BATCH = 25;
/** Long enough to remove a claimed batch; a drain that dies leaves its claims to the next one. */
const CLAIM_LEASE_S = 120;
const MAX_DELAY_S = 6 * 3600;

/** The wait after the n-th failed removal: 60 s doubled each time, at most 6 h. */
export function storageRetryDelayS(attempt: number): number {
  return Math.min(MAX_DELAY_S, 60 * 2 ** Math.max(0, attempt - 1));
}

/**
 * Drains due outbox entries (only `keys`, when given) within the budget; returns the counts and each
 * failed removal (its entry stays, retried after its backoff).
 */
export async function drainStorageDeletions(
  deps: Pick<PipelineDeps, "sql" | "store" | "logger">,
  opts: { budgetMs: number; keys?: string[] },
): Promise<StorageDeletionDrain & { failures: { key: string; error: string }[] }> {
  const startedAt = Date.now();
  const drained = { removed: 0, failed: 0 };
  const failures: { key: string; error: string }[] = [];
  if (opts.keys?.length === 0) return { ...drained, failures };
  while (Date.now() - startedAt < opts.budgetMs) {
    const claimed = await claimStorageDeletions(deps.sql, CLAIM_BATCH, CLAIM_LEASE_S, opts.keys ?? null);
    if (claimed.length === 0) break;
    for (const entry of claimed) {
      const log = { stage: "housekeeping", asset_key: entry.key, kind: entry.kind, attempt: entry.attempts };
      try {
        await deps.store.remove(entry.key);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const delayS = storageRetryDelayS(entry.attempts);
        await retryStorageDeletion(deps.sql, entry.key, message, delayS);
        drained.failed += 1;
        failures.push({ key: entry.key, error: message });
        deps.logger.warn({ ...log, error: message, retry_in_s: delayS, status: "retrying" }, "storage deletion failed; retried later");
        continue;
      }
      await ackStorageDeletion(deps.sql, entry.key);
      drained.removed += 1;
    }
  }
  if (drained.removed + drained.failed > 0) {
    deps.logger.info({ stage: "housekeeping", ...drained, status: drained.failed > 0 ? "partial" : "done" }, "storage deletions drained");
  }
  return { ...drained, failures };
}
