import { z } from "zod";
import { QualityReport } from "../shared/contracts/quality.ts";

/** The status document GET /pipeline/runs/:id answers (mdame.get_run_status). */
export const RunStatus = z.object({
  run: z.object({ id: z.string(), status: z.string(), run_date: z.string(), error: z.string().nullable() }).passthrough(),
  dimensions: z.array(z.object({ dimension_id: z.string(), status: z.string(), units_created: z.number() }).passthrough()),
  units: z.array(z.object({
    id: z.string(),
    dimension_id: z.string(),
    stage: z.string(),
    title: z.string().nullable(),
    error: z.string().nullable(),
    updated_at: z.string(),
    scenes_ready: z.number(),
    scenes_total: z.number(),
    video: z.object({ video_key: z.string(), duration_s: z.number(), render_ms: z.number().nullable().optional() }).passthrough().nullable(),
    /** The quality gate's report on the video (absent from servers before the gate). */
    quality: QualityReport.nullable().optional(),
    publications: z.array(z.object({ platform: z.string(), status: z.string(), external_id: z.string().nullable() })),
  }).passthrough()),
});
export type RunStatus = z.infer<typeof RunStatus>;

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
