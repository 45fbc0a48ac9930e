import { z } from "zod";
import { DimensionFields } from "../../../shared/contracts/dimension.ts";
import { DEFAULT_PUBLISHING } from "../../../shared/contracts/publishing.ts";
import { DEFAULT_VISUALS } from "../../../shared/contracts/visuals.ts";
import { DEFAULT_ADAPT } from "../../../shared/contracts/adapt.ts";
import { DEFAULT_SIMILARITY } from "../../../shared/contracts/similarity.ts";
import { NotFoundError } from "../../../shared/db/errors.ts";
import type { StoredScript, WorkUnit } from "../../../shared/contracts/work-unit.ts";
import type { Sql } from "../../../shared/db/client.ts";
import { getDimension } from "../../../shared/db/rpc/dimensions.ts";
import { getRunDimensionConfig, getWorkUnit } from "../../../shared/db/rpc/work-units.ts";
import { splitWords as splitTextWords } from "../../../shared/text/words.ts";

/**
 * The dimension settings the stages use, by the same field rules as the configuration
 * (DimensionFields), validated as they leave the database. A run started before `publishing`,
 * `adapt` or `similarity` existed has their defaults.
 */
export const DimensionRow = z.object(DimensionFields).pick({
  id: true,
  display_name: true,
  language: true,
  tts_voice: true,
  tts_rate: true,
  trend_geo: true,
  style: true,
  safety_profile: true,
  daily_limit: true,
  narration_min_words: true,
  narration_max_words: true,
}).extend({
  publishing: DimensionFields.publishing.default(DEFAULT_PUBLISHING),
  adapt: DimensionFields.adapt.default(DEFAULT_ADAPT),
  visuals: DimensionFields.visuals.default(DEFAULT_VISUALS),
  similarity: DimensionFields.similarity.default(DEFAULT_SIMILARITY),
  tts_fallback_voice: DimensionFields.tts_fallback_voice.default(null),
  /** The LLM routing as stored; the router checks it (an invalid one fails the call, not the read). */
  llm: z.unknown().default({}),
});
export type DimensionRow = z.infer<typeof DimensionRow>;

/**
 * A dimension's configuration: as the run started it when `runId` is given (run_dimensions.config,
 * so a configuration changed during the day leaves the runs already under way as they were), else
 * as it stands now.
 */
async function loadDimension(sql: Sql, dimensionId: string, runId?: string): Promise<DimensionRow> {
  return DimensionRow.parse(await loadDimensionConfig(sql, dimensionId, runId));
}

/** The same configuration unparsed, for a stage that reads more of it than DimensionRow (one read, parsed twice). */
export async function loadDimensionConfig(sql: Sql, dimensionId: string, runId?: string): Promise<unknown> {
  if (runId !== undefined) {
    const started = await getRunDimensionConfig(sql, runId, dimensionId);
    if (started) return started;
  }
  const row = await getDimension(sql, dimensionId);
  if (!row) throw new NotFoundError("MDN01", `no dimension ${dimensionId}`);
  return row;
}

/** A work unit with its dimension. */
export async function loadUnit(sql: Sql, unitId: string): Promise<{ unit: WorkUnit; dimension: DimensionRow }> {
  const unit = await getWorkUnit(sql, unitId);
  if (!unit) throw new NotFoundError("MDN01", `no work unit ${unitId}`);
  return { unit, dimension: await loadDimension(sql, unit.dimension_id, unit.run_id) };
}

/** The unit's accepted script (record_script), which every stage after the script stage reads. */
export function acceptedScript(unit: WorkUnit): StoredScript {
  const script = required(unit.script, "script", unit.id);
  if (!("narration" in script)) throw new Error(`work unit ${unit.id} has no accepted script`);
  return script;
}

/**
 * The unit's stored field a stage needs, which the stages before it must have written. Its absence
 * fails the task like any other error, within the stage's bounded attempts.
 */
export function required<T>(value: T | null, what: string, unitId: string): T {
  if (value === null) throw new Error(`work unit ${unitId} has no ${what}`);
  return value;
}

/**
 * Words as the voice speaks them, in the dimension's language: whitespace-separated tokens, or
 * dictionary words in scripts written without spaces (shared/text/words.ts).
 */
export function splitWords(text: string, language?: string): string[] {
  return splitTextWords(text, language);
}
