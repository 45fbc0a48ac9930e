import { z } from "zod";
import { VisualStyle } from "../../../shared/contracts/media.ts";
import { Language } from "../../../shared/contracts/llm.ts";
import { NotFoundError } from "../../../shared/db/errors.ts";
import type { Sql } from "../../../shared/db/client.ts";
import { splitWords as splitTextWords } from "../../../shared/text/words.ts";

/** The dimension columns the stages use, validated as they leave the database. */
export const DimensionRow = z.object({
  id: z.string(),
  display_name: z.string(),
  language: Language,
  tts_voice: z.string(),
  tts_rate: z.string(),
  trend_geo: z.string(),
  style: VisualStyle,
  safety_profile: z.object({ blocked_terms: z.array(z.string()).default([]) }).passthrough(),
  daily_limit: z.number().int(),
  narration_min_words: z.number().int(),
  narration_max_words: z.number().int(),
});
export type DimensionRow = z.infer<typeof DimensionRow>;

/**
 * A dimension's configuration: as the run started it when `runId` is given (run_dimensions.config,
 * so a configuration changed during the day leaves the runs already under way as they were), else
 * as it stands now.
 */
export async function loadDimension(sql: Sql, dimensionId: string, runId?: string): Promise<DimensionRow> {
  if (runId !== undefined) {
    const [started] = await sql`select mdame.get_run_dimension_config(${runId}::uuid, ${dimensionId}) as config`;
    if (started?.config) return DimensionRow.parse(started.config);
  }
  const [row] = await sql`
    select id, display_name, language, tts_voice, tts_rate, trend_geo, style, safety_profile, daily_limit,
           narration_min_words, narration_max_words
      from mdame.get_dimensions(${dimensionId})`;
  if (!row) throw new NotFoundError("MDN01", `no dimension ${dimensionId}`);
  return DimensionRow.parse(row);
}

/** A work unit with its dimension. */
export async function loadUnit(sql: Sql, unitId: string) {
  const [unit] = await sql`select * from mdame.get_work_unit(${unitId}::uuid)`;
  if (!unit) throw new NotFoundError("MDN01", `no work unit ${unitId}`);
  return { unit, dimension: await loadDimension(sql, unit.dimension_id as string, unit.run_id as string) };
}

/** Estimated speaking pace: sizes scene clips before the voice exists, and tells the model how long its words run. */
export const WORDS_PER_SECOND = 2.5;

/**
 * Words as the voice speaks them, in the dimension's language: whitespace-separated tokens, or
 * dictionary words in scripts written without spaces (shared/text/words.ts).
 */
export function splitWords(text: string, language?: string): string[] {
  return splitTextWords(text, language);
}
