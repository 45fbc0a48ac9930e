/**
 * The adaptive engine's runner (docs/reference/adaptive.md): reads a dimension's evidence and history, asks
 * the pure decisions (shared/adapt/decide.ts) and, unless it is a dry run, records each move
 * (mdame.record_adaptation applies it to the next run). `runDueAdaptations` is the tick's weekly
 * pass: it claims the week the Sunday job marked due, decides for every active dimension and marks
 * the week finished; a week already decided, or a second tick, changes nothing.
 */
import { type AdaptReport, AdaptSettings } from "../../../shared/contracts/adapt.ts";
import type { AdaptConfig } from "../../../shared/adapt/comparisons.ts";
import { decideAdaptations } from "../../../shared/adapt/decide.ts";
import type { VideoEvidence } from "../../../shared/adapt/evidence.ts";
import type { Sql } from "../../../shared/db/client.ts";
import { NotFoundError, WrongStateError } from "../../../shared/db/errors.ts";
import {
  type AdaptationRow,
  claimAdaptationWeek,
  type EvidenceRow,
  finishAdaptationWeek,
  getAdaptationEvidence,
  getEffectiveDimensionConfig,
  listAdaptations,
  recordAdaptation,
} from "../../../shared/db/rpc/adaptations.ts";
import { getDimensions } from "../../../shared/db/rpc/dimensions.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import { z } from "zod";

/** How far back the evidence reaches: videos older than this no longer speak for today's audience. */
export const EVIDENCE_WEEKS = 8;
const WEEK_MS = 7 * 24 * 3600 * 1000;

const EffectiveConfig = z.object({
  daily_limit: z.number().int(),
  narration_min_words: z.number().int(),
  narration_max_words: z.number().int(),
  sources: z.array(z.object({ kind: z.string(), weight: z.number() }).passthrough()),
  adapt: AdaptSettings,
}).passthrough();

const UnitParams = z.object({ length_arm: z.enum(["short", "long"]), target_s: z.number() }).passthrough();

function toEvidence(row: EvidenceRow): VideoEvidence {
  const params = UnitParams.safeParse(row.unit_params);
  return {
    unit_id: row.unit_id,
    made_at: row.made_at,
    platform: row.platform,
    retention: row.retention,
    views: row.views,
    hook_score: row.hook_score,
    hook_threshold: row.hook_threshold,
    source: row.source,
    categories: row.categories.map((c) => c.toLowerCase()),
    length_arm: params.success ? params.data.length_arm : null,
    length_target_s: params.success ? params.data.target_s : null,
    daily_volume: row.daily_volume,
    day_units: row.day_units,
  };
}

/** One dimension's decisions at `now`: recorded and applied unless `dryRun`. */
export async function adaptDimension(
  sql: Sql,
  dimensionId: string,
  options: { dryRun: boolean; weekStart: string | null; now: Date; logger: Logger },
): Promise<AdaptReport> {
  const raw = await getEffectiveDimensionConfig(sql, dimensionId);
  if (raw === null) throw new NotFoundError("MDN01", `no dimension ${dimensionId}`);
  const config: AdaptConfig = EffectiveConfig.parse(raw);
  const rows = await getAdaptationEvidence(sql, dimensionId, new Date(options.now.getTime() - EVIDENCE_WEEKS * WEEK_MS));
  const history = await listAdaptations(sql, dimensionId, 500);
  const decisions = decideAdaptations({
    config,
    evidence: rows.map(toEvidence),
    history: history.filter((h) => h.applied).map((h) => ({
      parameter: h.parameter,
      before: h.before,
      after: h.after,
      decided_at: h.decided_at,
      reverted_at: h.reverted_at,
    })),
    now: options.now,
  });
  const log = options.logger.child({ dimension_id: dimensionId, stage: "adapt" });
  const moves: AdaptReport["moves"] = [];
  for (const move of decisions.moves) {
    const planned = {
      dimension_id: dimensionId,
      parameter: move.parameter,
      before: move.before,
      after: move.after,
      reason: move.reason,
      evidence: move.evidence,
      week_start: options.weekStart,
    };
    if (options.dryRun) {
      moves.push({ ...planned, id: null });
      continue;
    }
    let row: AdaptationRow;
    try {
      row = await recordAdaptation(sql, {
        dimensionId,
        parameter: move.parameter,
        before: move.before,
        after: move.after,
        reason: move.reason,
        evidence: move.evidence,
        weekStart: options.weekStart,
      });
    } catch (error) {
      // Pinned meanwhile, or moved by another decision since this one read it: left as it is.
      if (!(error instanceof WrongStateError)) throw error;
      log.warn({ status: "skipped", parameter: move.parameter, reason: error.message }, "adaptation not applied");
      continue;
    }
    log.info({ status: "applied", parameter: row.parameter, before: row.before, after: row.after, adaptation_id: row.id }, "adaptation applied");
    moves.push({ ...planned, before: row.before, after: row.after, reason: row.reason, evidence: row.evidence, week_start: row.week_start, id: row.id });
  }
  return { dimension_id: dimensionId, dry_run: options.dryRun, videos: new Set(rows.map((r) => r.unit_id)).size, moves, comparisons: decisions.comparisons };
}

/** The tick's weekly pass; returns the week it decided, or null when none was due. */
export async function runDueAdaptations(deps: { sql: Sql; logger: Logger }, now: () => Date = () => new Date()): Promise<string | null> {
  const week = await claimAdaptationWeek(deps.sql);
  if (week === null) return null;
  const log = deps.logger.child({ stage: "adapt", week_start: week });
  let failed = 0;
  for (const dimension of await getDimensions(deps.sql)) {
    if (!dimension.active) continue;
    try {
      const report = await adaptDimension(deps.sql, dimension.id, { dryRun: false, weekStart: week, now: now(), logger: deps.logger });
      log.info({ dimension_id: dimension.id, status: "decided", videos: report.videos, moves: report.moves.length }, "weekly adaptation decided");
    } catch (error) {
      // One dimension's failure leaves the others to decide; the week stays unfinished and is taken
      // over once its claim expires (the dimensions already decided keep their week's moves).
      failed += 1;
      log.error({ dimension_id: dimension.id, status: "failed", err: error }, "weekly adaptation failed");
    }
  }
  if (failed > 0) return week;
  await finishAdaptationWeek(deps.sql, week);
  log.info({ status: "finished" }, "weekly adaptation finished");
  return week;
}
