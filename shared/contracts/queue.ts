import { z } from "zod";
import { uuid } from "./columns.ts";
import { CaptionProfile } from "./captions.ts";
import { MusicBed } from "./dimension.ts";
import { VisualStyle, WordTiming } from "./media.ts";
import { VisualsConfig } from "./visuals.ts";
import { DimensionId } from "./dimension-id.ts";
import { SceneHash } from "./work-unit.ts";

/** Queue names, as created by the migrations. */
export const QUEUES = {
  stageTasks: "stage_tasks",
  visualGeneration: "visual_generation",
  render: "render",
} as const;

const stepToken = z.string().startsWith("step:").max(300);
/** The run and the unit a unit's task or job belongs to. */
const unitOfRun = { run_id: uuid, unit_id: uuid };
/** Dimension ids as the database allows them (mdame.dimensions.id). */
/** Stored asset keys (shared/storage/asset-store.ts): short, content-addressed paths. */
const assetKey = z.string().min(1).max(300);

/** Stages a work unit passes through in the `pipeline` Edge Function (besides visuals and render). */
const UnitStage = z.enum(["script", "safety", "plan", "voice", "publish"]);
type UnitStage = z.infer<typeof UnitStage>;

/** Ingest one dimension's trend signals into topics for a run. */
export const IngestTask = z.object({ stage: z.literal("ingest"), run_id: uuid, dimension_id: DimensionId, step_token: stepToken }).strict();
export type IngestTask = z.infer<typeof IngestTask>;

/**
 * A stage of one work unit: the same fields for every unit stage, each stage its own literal.
 * `regeneration`: how often the channel-standing guard sent the unit back to its script (absent
 * before the first time), so each pass has step tokens of its own (mdame.enqueue_stage_task).
 */
function unitTask<S extends UnitStage>(stage: S) {
  return z.object({ stage: z.literal(stage), ...unitOfRun, regeneration: z.number().int().positive().optional(), step_token: stepToken }).strict();
}

export const ScriptTask = unitTask("script");
export type ScriptTask = z.infer<typeof ScriptTask>;
export const SafetyTask = unitTask("safety");
export type SafetyTask = z.infer<typeof SafetyTask>;
export const PlanTask = unitTask("plan");
export type PlanTask = z.infer<typeof PlanTask>;
export const VoiceTask = unitTask("voice");
export type VoiceTask = z.infer<typeof VoiceTask>;
export const PublishTask = unitTask("publish");
export type PublishTask = z.infer<typeof PublishTask>;

/** Lightweight stage tasks, drained by the `pipeline` Edge Function; one payload per stage. */
export const StageTask = z.discriminatedUnion("stage", [IngestTask, ScriptTask, SafetyTask, PlanTask, VoiceTask, PublishTask]);
export type StageTask = z.infer<typeof StageTask>;
export type StageName = StageTask["stage"];

/** One scene to draw, pulled by the gpu-worker from `visual_generation`. */
export const VisualJob = z.object({
  ...unitOfRun,
  scene_id: uuid,
  scene_index: z.number().int().nonnegative(),
  scene_hash: SceneHash,
  dimension_id: DimensionId,
  prompt: z.string().min(1).max(2000),
  style: VisualStyle,
  duration_s: z.number().positive().max(30),
  width: z.number().int().positive().max(8192),
  height: z.number().int().positive().max(8192),
  fps: z.number().int().positive().max(120),
  /** Stock-search words from the scene plan (none in plans made before keywords existed). */
  keywords: z.array(z.string().min(1).max(60)).max(8).optional(),
  /** The dimension's backend order and Pexels blocklist when the scene was planned; absent: procedural only. */
  visuals: VisualsConfig.optional(),
  step_token: stepToken,
}).strict();
export type VisualJob = z.infer<typeof VisualJob>;

/** One video to assemble, pulled by the render-runner from `render`. */
export const RenderJob = z.object({
  ...unitOfRun,
  dimension_id: DimensionId,
  title: z.string().min(1).max(200),
  audio_key: assetKey,
  audio_duration_ms: z.number().int().positive().max(3_600_000),
  words: z.array(WordTiming).min(1).max(5000),
  /** Scenes in order; a scene is shown from the offset of its first word until the next scene's. */
  scenes: z.array(
    z.object({
      index: z.number().int().nonnegative(),
      asset_key: assetKey,
      first_word: z.number().int().nonnegative(),
    }).strict(),
  ).min(1).max(50),
  caption_font: z.string().min(1).max(100),
  /** The platform UI the captions keep clear of (the dimension's `captions.profile`). */
  caption_profile: CaptionProfile.default("intersection"),
  /** The dimension's music bed; absent for voice only (so jobs without one keep their step token). */
  music: MusicBed.optional(),
  step_token: stepToken,
}).strict();
export type RenderJob = z.infer<typeof RenderJob>;
