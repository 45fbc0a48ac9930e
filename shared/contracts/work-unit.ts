/**
 * What the stages store on a work unit (mdame.work_units' jsonb columns) and the row as the RPCs
 * return it. The stored payloads are loose objects holding the fields the stages read: rows
 * written by earlier versions (or seeded by tests and benches) carry more or fewer extras, and a
 * stage must read the fields it needs from any of them, which the writer's strict contract
 * (ScriptDraft, VoiceTrack) already checked when they were stored.
 */
import { z } from "zod";
import { HookAudit } from "./llm.ts";
import { WordTiming } from "./media.ts";
import { DimensionId } from "./dimension-id.ts";

/** Every stage a work unit can be at (mdame.work_units.stage), in pipeline order, then its resting states. */
export const WORK_UNIT_STAGES = [
  "script",
  "safety",
  "plan",
  "media",
  "render",
  "awaiting_review",
  "publish",
  "deferred",
  "published",
  "rejected",
  "failed",
] as const;
export const WorkUnitStage = z.enum(WORK_UNIT_STAGES);
export type WorkUnitStage = z.infer<typeof WorkUnitStage>;

/** A scene's hash (mdame.scenes.scene_hash): sha256 of its prompt, style, dimension and backend version (shared/hashing.ts), in hex. */
export const SceneHash = z.string().regex(/^[0-9a-f]{64}$/);

/** Where a scene's clip stands (mdame.scenes.status). */
export const SceneStatus = z.enum(["queued", "ready", "failed"]);
export type SceneStatus = z.infer<typeof SceneStatus>;

/** work_units.topic: the topic record_topics created the unit from (without its key, fingerprint and verdict). */
const StoredTopic = z.looseObject({
  title: z.string(),
  context: z.array(z.string()).optional(),
});
type StoredTopic = z.infer<typeof StoredTopic>;

/** One scored hook of the script stage, kept with the script (and with a rejection). */
export const HookAuditRecord = z.object({
  round: z.number().int().nonnegative(),
  candidate: z.number().int().positive(),
  score: HookAudit.shape.score,
  reasons: z.array(z.string()),
}).strict();
export type HookAuditRecord = z.infer<typeof HookAuditRecord>;

/** work_units.script: the accepted draft (ScriptDraft), its hook's score and every audit of the stage. */
export const StoredScript = z.looseObject({
  title: z.string(),
  hook: z.string(),
  narration: z.string(),
  description: z.string(),
  hashtags: z.array(z.string()),
  hook_score: z.number().optional(),
  hook_audits: z.array(HookAuditRecord).optional(),
});
export type StoredScript = z.infer<typeof StoredScript>;

/** work_units.script of a unit whose hooks all failed the audit (reject_script): the audits only. */
const RejectedScript = z.object({ hook_audits: z.array(HookAuditRecord) }).strict();
type RejectedScript = z.infer<typeof RejectedScript>;

/** work_units.voice: the narration's track (VoiceTrack as record_voice stored it). */
export const StoredVoice = z.looseObject({
  audio_key: z.string(),
  duration_ms: z.number(),
  provider: z.string(),
  voice: z.string(),
  words: z.array(WordTiming),
});
export type StoredVoice = z.infer<typeof StoredVoice>;

/** work_units.video: the rendered video (complete_render_job), read by the publish stage. */
const StoredVideo = z.looseObject({
  video_key: z.string(),
  /** The length the render measured (render.completed's duration_s). */
  duration_s: z.number().positive().optional(),
});
type StoredVideo = z.infer<typeof StoredVideo>;

/** A row of mdame.work_units as get_work_unit and the stage RPCs return it (timestamps as postgres.js gives them). */
export const WorkUnit = z.object({
  id: z.string().uuid(),
  run_id: z.string().uuid(),
  dimension_id: DimensionId,
  unit_key: z.string(),
  topic_fingerprint: z.string(),
  topic: StoredTopic,
  stage: WorkUnitStage,
  stage_attempts: z.number().int(),
  stage_deadline: z.date().nullable(),
  lease_holder: z.string().nullable(),
  lease_expires_at: z.date().nullable(),
  script: z.union([StoredScript, RejectedScript]).nullable(),
  voice: StoredVoice.nullable(),
  video: StoredVideo.nullable(),
  error: z.string().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  video_music: z.unknown().nullable(),
  quality: z.record(z.string(), z.unknown()).nullable(),
  /** The channel-standing guard's checks of the unit (UnitSimilarity, shared/contracts/similarity.ts; parsed where read). */
  similarity: z.unknown().nullable(),
}).strict();
export type WorkUnit = z.infer<typeof WorkUnit>;
