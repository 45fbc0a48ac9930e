import type { RunStatus } from "../shared/contracts/operator.ts";

const WORKING_STAGES = new Set(["script", "safety", "plan", "media", "render", "publish"]);

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
