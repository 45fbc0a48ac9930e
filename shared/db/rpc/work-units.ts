/**
 * Work unit RPCs: the reads the stages start from, and the completions that record a stage's
 * result, archive its message and queue the next stage in one transaction. Each returns its rows
 * parsed; a completion returns the unit as it stands after the call (unchanged on a late or
 * repeated call, or for a caller whose lease another claim has taken), null when the RPC returned none.
 */
import { z } from "zod";
import { RunDimensionStatus } from "../../contracts/operator.ts";
import type { SafetyVerdict } from "../../contracts/safety.ts";
import { type HookAuditRecord, SceneHash, SceneStatus, type StoredScript, type StoredVoice, WorkUnit } from "../../contracts/work-unit.ts";
import type { SimilarityPass } from "../../contracts/similarity.ts";
import type { Sql } from "../client.ts";
import { manyRows, maybeRow } from "./query.ts";

/** A stage's claim on its message: completions archive `msgId` and refuse a `holder` no longer leasing the unit. */
export interface StageClaim {
  msgId: number;
  holder: string;
  stepToken: string;
}

/** The unit, or null when there is none with that id. */
export function getWorkUnit(sql: Sql, unitId: string): Promise<WorkUnit | null> {
  return maybeRow("get_work_unit", WorkUnit, sql`select * from mdame.get_work_unit(${unitId}::uuid)`);
}

/** The dimension's configuration as the run started it (run_dimensions.config), or null when the run recorded none. */
export async function getRunDimensionConfig(sql: Sql, runId: string, dimensionId: string): Promise<Record<string, unknown> | null> {
  const row = await maybeRow(
    "get_run_dimension_config",
    z.object({ config: z.record(z.string(), z.unknown()) }).strict(),
    sql`select mdame.get_run_dimension_config(${runId}::uuid, ${dimensionId}) as config`,
  );
  return row?.config ?? null;
}

/** A row of mdame.scenes (numeric and bigint columns as numbers). */
export const Scene = z.object({
  id: z.string().uuid(),
  unit_id: z.string().uuid(),
  scene_index: z.number().int().nonnegative(),
  prompt: z.string(),
  narration: z.string(),
  first_word: z.number().int().nonnegative(),
  duration_s: z.coerce.number().positive(),
  scene_hash: SceneHash,
  status: SceneStatus,
  asset_key: z.string().nullable(),
  cache_hit: z.boolean().nullable(),
  msg_id: z.coerce.number().int().nullable(),
  job: z.unknown().nullable(),
  updated_at: z.date(),
  backend: z.string().nullable(),
}).strict();
export type Scene = z.infer<typeof Scene>;

/** The unit's scenes in order. */
export function getScenes(sql: Sql, unitId: string): Promise<Scene[]> {
  return manyRows("get_scenes", Scene, sql`select * from mdame.get_scenes(${unitId}::uuid)`);
}

const TopicHistoryEntry = z.object({ title: z.string(), fingerprint: z.string() }).strict();
type TopicHistoryEntry = z.infer<typeof TopicHistoryEntry>;

/** The dimension's latest topics, newest first: what novelty and near-duplicates are judged against. */
export function getTopicHistory(sql: Sql, dimensionId: string, limit: number): Promise<TopicHistoryEntry[]> {
  return manyRows("get_topic_history", TopicHistoryEntry, sql`select title, fingerprint from mdame.get_topic_history(${dimensionId}, ${limit}::integer)`);
}

/** A row of mdame.run_dimensions: one dimension's part of a run (the status's, with its run id and updated_at as postgres.js gives it). */
const RunDimension = z.object({ run_id: z.string().uuid(), ...RunDimensionStatus.shape, updated_at: z.date() }).strict();
type RunDimension = z.infer<typeof RunDimension>;

/**
 * Ingest's completion: a unit per topic (the volume gate and the cross-day fingerprint check
 * applied in SQL), every verdict and dropped topic audited, the task archived.
 */
export function recordTopics(
  sql: Sql,
  claim: Omit<StageClaim, "holder">,
  input: { runId: string; dimensionId: string; topics: readonly object[]; rejected: readonly object[] },
): Promise<RunDimension | null> {
  return maybeRow(
    "record_topics",
    RunDimension,
    sql`
    select * from mdame.record_topics(${claim.msgId}, ${input.runId}, ${input.dimensionId}, ${claim.stepToken},
      ${sql.json(input.topics as never)}, ${sql.json(input.rejected as never)})`,
  );
}

/** The script stage's completion: the script stored, the unit on to safety. */
export function recordScript(sql: Sql, claim: StageClaim, unitId: string, script: StoredScript): Promise<WorkUnit | null> {
  return maybeRow(
    "record_script",
    WorkUnit,
    sql`
    select * from mdame.record_script(${claim.msgId}, ${unitId}, ${claim.stepToken}, ${sql.json(script as never)}, ${claim.holder})`,
  );
}

/** The script stage's other completion: no hook passed the audit in any round, the unit rejected with the audits. */
export function rejectScript(sql: Sql, claim: StageClaim, unitId: string, reason: string, audits: readonly HookAuditRecord[]): Promise<WorkUnit | null> {
  return maybeRow(
    "reject_script",
    WorkUnit,
    sql`
    select * from mdame.reject_script(${claim.msgId}, ${unitId}, ${claim.stepToken}, ${reason}, ${sql.json(audits as never)}, ${claim.holder})`,
  );
}

/** What a model wrote that the safety gate refused, audited and never stored: the unit is rejected. */
export function rejectUnsafeOutput(
  sql: Sql,
  claim: StageClaim,
  input: { unitId: string; stage: "script" | "plan"; subject: "script" | "scene_plan"; text: string; verdict: SafetyVerdict },
): Promise<WorkUnit | null> {
  return maybeRow(
    "reject_unsafe_output",
    WorkUnit,
    sql`
    select * from mdame.reject_unsafe_output(${claim.msgId}, ${input.unitId}, ${input.stage}, ${claim.stepToken}, ${input.subject},
      ${input.text}, ${sql.json(input.verdict as never)}, ${claim.holder})`,
  );
}

/**
 * The safety stage's completion: the verdict audited, the unit on to planning or rejected.
 * Without `details` (category, model, confidence) the verdict is recorded as the rules' bare one.
 */
export function recordSafetyVerdict(
  sql: Sql,
  claim: StageClaim,
  input: {
    unitId: string;
    allowed: boolean;
    reasons: readonly string[];
    classifier: string;
    details?: Pick<SafetyVerdict, "category" | "model" | "confidence">;
  },
): Promise<WorkUnit | null> {
  const { unitId, allowed, reasons, classifier, details } = input;
  const query = details === undefined
    ? sql`select * from mdame.record_safety_verdict(${claim.msgId}, ${unitId}, ${claim.stepToken}, ${allowed},
        ${sql.json(reasons as never)}, ${classifier}, ${claim.holder})`
    : sql`select * from mdame.record_safety_verdict(${claim.msgId}, ${unitId}, ${claim.stepToken}, ${allowed},
        ${sql.json(reasons as never)}, ${classifier}, ${claim.holder}, ${sql.json(details as never)})`;
  return maybeRow("record_safety_verdict", WorkUnit, query);
}

/** The planner's completion: the scenes stored, a visual job queued per scene not yet cached. */
export function recordScenePlan(
  sql: Sql,
  claim: StageClaim,
  input: { unitId: string; scenes: readonly object[]; visual: Record<string, unknown>; similarity?: SimilarityPass },
): Promise<WorkUnit | null> {
  return maybeRow(
    "record_scene_plan",
    WorkUnit,
    sql`
    select * from mdame.record_scene_plan(${claim.msgId}, ${input.unitId}, ${claim.stepToken}, ${sql.json(input.scenes as never)},
      ${sql.json(input.visual as never)}, ${claim.holder}, ${input.similarity ? sql.json(input.similarity as never) : null})`,
  );
}

/** The voice stage's completion: the track stored with each scene's first spoken word. */
export function recordVoice(
  sql: Sql,
  claim: StageClaim,
  input: { unitId: string; voice: StoredVoice; sceneFirstWords: readonly number[] },
): Promise<WorkUnit | null> {
  const { unitId, voice, sceneFirstWords } = input;
  const query = sql`select * from mdame.record_voice(${claim.msgId}, ${unitId}, ${claim.stepToken}, ${sql.json(voice as never)},
    ${sql.json(sceneFirstWords as never)}, ${claim.holder})`;
  return maybeRow("record_voice", WorkUnit, query);
}
