/** The channel-standing guard's reads and its completion (docs/reference/similarity.md). */
import { type SimilarityCheck, StoredSignature } from "../../contracts/similarity.ts";
import { WorkUnit } from "../../contracts/work-unit.ts";
import type { Sql } from "../client.ts";
import { manyRows, maybeRow } from "./query.ts";
import type { StageClaim } from "./work-units.ts";

/** The signatures of the dimension's latest `limit` videos that passed the guard (not rejected or failed since), the unit's own left out. */
export function getContentSignatures(sql: Sql, dimensionId: string, unitId: string, limit: number): Promise<StoredSignature[]> {
  return manyRows("get_content_signatures", StoredSignature, sql`select * from mdame.get_content_signatures(${dimensionId}, ${unitId}, ${limit})`);
}

/**
 * The plan stage's completion for a too-similar script: the unit goes back to the script stage
 * while it has been regenerated fewer than `maxRegenerations` times, else it is rejected as too_similar.
 */
export function recordTooSimilar(sql: Sql, claim: StageClaim, unitId: string, check: SimilarityCheck, maxRegenerations: number): Promise<WorkUnit | null> {
  return maybeRow(
    "record_too_similar",
    WorkUnit,
    sql`select * from mdame.record_too_similar(${claim.msgId}, ${unitId}, ${claim.stepToken}, ${
      sql.json(check as never)
    }, ${maxRegenerations}, ${claim.holder})`,
  );
}
