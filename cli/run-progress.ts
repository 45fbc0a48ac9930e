import type { RunStatus } from "../shared/contracts/operator.ts";

const WORKING_STAGES = new Set(["script", "safety", "plan", "media", "render", "publish"]);
/** The stages a unit rests at: nothing more happens to it without the operator, an account or a drain. */
const AT_REST = new Set(["awaiting_review", "deferred", "published", "rejected", "failed"]);

/**
 * True when a running run has nothing left to do but wait for the operator (docs/guides/review.md):
 * every dimension ingested, every unit at rest, and at least one awaiting review. `mdame run --wait`
 * and the demo stop following it there.
 */
export function onlyReviewsLeft(status: RunStatus): boolean {
  return status.run.status === "running" && status.dimensions.every((d) => d.status !== "ingesting") &&
    status.units.every((u) => AT_REST.has(u.stage)) && status.units.some((u) => u.stage === "awaiting_review");
}

/**
 * One line per dimension: ingest state, then each unit's stage (with scene progress while media is
 * made). With `nowMs`, units still working also show how long they have been in their stage.
 */
export function describeProgress(status: RunStatus, nowMs?: number): string[] {
  return status.dimensions.map((d) => {
    const units = status.units.filter((u) => u.dimension_id === d.dimension_id);
    if (units.length === 0) return `${d.dimension_id.padEnd(18)} ${d.status === "ingesting" ? "ingesting trends" : `no new topic (${d.status})`}`;
    const parts = units.map((u) => {
      const media = u.stage === "media" ? ` scenes ${u.scenes_ready}/${u.scenes_total}` : "";
      const elapsed = nowMs !== undefined && WORKING_STAGES.has(u.stage) ? ` (${Math.max(0, Math.round((nowMs - Date.parse(u.updated_at)) / 1000))}s)` : "";
      const error = u.error && ["failed", "rejected"].includes(u.stage) ? ` — ${u.error}` : "";
      return `${u.stage}${media}${elapsed}${error}`;
    });
    return `${d.dimension_id.padEnd(18)} ${parts.join(", ")}`;
  });
}
