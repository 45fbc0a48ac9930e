/** The adaptive engine's RPCs (docs/reference/adaptive.md): evidence, the record of moves, pins and the weekly claim. */
import { z } from "zod";
import { Platform } from "../../contracts/account.ts";
import { Adaptation } from "../../contracts/adapt.ts";
import type { Queryable } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

/** A row of mdame.adaptations: the Adaptation the operator API answers, with the values as stored (a number or a string) and the timestamps as Dates. */
export const AdaptationRow = Adaptation.extend({
  before: z.union([z.number(), z.string()]),
  after: z.union([z.number(), z.string()]),
  decided_at: z.date(),
  reverted_at: z.date().nullable(),
}).strict();
export type AdaptationRow = z.infer<typeof AdaptationRow>;

// The columns of a row, week_start as text: a date has no time zone, and a JS Date would give it one.
const columns = (sql: Queryable) =>
  sql`id, dimension_id, parameter, before, after, reason, evidence, week_start::text as week_start, decided_at, applied, reverted_at`;

/**
 * One published video on one platform, with the parameters it was made with and that platform's latest
 * figures (mdame.get_adaptation_evidence): views are engaged views on YouTube, views elsewhere.
 */
export const EvidenceRow = z.object({
  unit_id: z.string().uuid(),
  made_at: z.date(),
  run_date: z.string(),
  platform: Platform,
  window_days: z.number().int(),
  retention: z.number().nullable(),
  views: z.coerce.number(),
  hook_score: z.number().nullable(),
  hook_threshold: z.number(),
  source: z.string().nullable(),
  categories: z.array(z.string()).catch([]),
  unit_params: z.record(z.string(), z.unknown()),
  daily_volume: z.number().int(),
  day_units: z.number().int(),
}).strict();
export type EvidenceRow = z.infer<typeof EvidenceRow>;

export function getAdaptationEvidence(sql: Queryable, dimensionId: string, since: Date): Promise<EvidenceRow[]> {
  return manyRows(
    "get_adaptation_evidence",
    EvidenceRow,
    sql`select e.*, e.run_date::text as run_date from mdame.get_adaptation_evidence(${dimensionId}::text, ${since}::timestamptz) e`,
  );
}

/** The configuration the dimension's next run starts with (contract + adaptations in force), or null. */
export async function getEffectiveDimensionConfig(sql: Queryable, dimensionId: string): Promise<Record<string, unknown> | null> {
  const row = await maybeRow(
    "get_effective_dimension_config",
    z.object({ config: z.record(z.string(), z.unknown()).nullable() }).strict(),
    sql`select mdame.get_effective_dimension_config(${dimensionId}::text) as config`,
  );
  return row?.config ?? null;
}

interface NewAdaptation {
  dimensionId: string;
  parameter: string;
  before: number | string;
  after: number | string;
  reason: string;
  evidence: Record<string, unknown>;
  /** The weekly decision's week (Monday); null for a move the operator asked for. */
  weekStart: string | null;
}

/** Records and applies one move; refused (WrongStateError) when pinned or when `before` is no longer in force. */
export function recordAdaptation(sql: Queryable, a: NewAdaptation): Promise<AdaptationRow> {
  return oneRow(
    "record_adaptation",
    AdaptationRow,
    sql`select ${columns(sql)} from mdame.record_adaptation(${a.dimensionId}::text, ${a.parameter}::text,
    ${sql.json(a.before as never)}::jsonb, ${sql.json(a.after as never)}::jsonb, ${a.reason}::text, ${
      sql.json(a.evidence as never)
    }::jsonb, ${a.weekStart}::date)`,
  );
}

export function listAdaptations(sql: Queryable, dimensionId: string | null, limit: number): Promise<AdaptationRow[]> {
  return manyRows(
    "list_adaptations",
    AdaptationRow,
    sql`select ${columns(sql)} from mdame.list_adaptations(${dimensionId}::text, ${limit}::integer)`,
  );
}

/** Reverts the move in force for its parameter (NotFoundError, WrongStateError when a later move hides it). */
export function revertAdaptation(sql: Queryable, id: string): Promise<AdaptationRow> {
  return oneRow(
    "revert_adaptation",
    AdaptationRow,
    sql`select ${columns(sql)} from mdame.revert_adaptation(${id}::uuid)`,
  );
}

/** Pins or unpins a parameter; returns the dimension's pins after. */
export async function setAdaptationPin(sql: Queryable, dimensionId: string, parameter: string, pinned: boolean): Promise<string[]> {
  const row = await oneRow(
    "set_adaptation_pin",
    z.object({ pinned: z.array(z.string()) }).strict(),
    sql`select mdame.set_adaptation_pin(${dimensionId}::text, ${parameter}::text, ${pinned}::boolean) as pinned`,
  );
  return row.pinned;
}

/** The oldest week due that nobody is deciding, claimed; null when none is due. */
export async function claimAdaptationWeek(sql: Queryable): Promise<string | null> {
  const row = await maybeRow(
    "claim_adaptation_week",
    z.object({ week: z.string().nullable() }).strict(),
    sql`select mdame.claim_adaptation_week()::text as week`,
  );
  return row?.week ?? null;
}

export async function finishAdaptationWeek(sql: Queryable, weekStart: string): Promise<void> {
  await oneRow(
    "finish_adaptation_week",
    z.object({ week_start: z.string() }).strict(),
    sql`select week_start::text as week_start from mdame.finish_adaptation_week(${weekStart}::date)`,
  );
}
