/**
 * The channel-standing guard's share of the soak's verdict (docs/reference/similarity.md): every
 * check the plan stages made, by action, the highest combined score to the closest earlier video,
 * and each unit rejected as too_similar with its reason. The soak's topics are distinct (the ingest
 * drops near-duplicate titles), so none of its units is a near-copy and none may be rejected.
 */
import type { Sql } from "../../shared/db/client.ts";

export interface SoakSimilarity {
  checks: number;
  passed: number;
  regenerated: number;
  max_combined: number | null;
  /** Units rejected as too_similar: must be empty. */
  rejected: { unit_id: string; dimension_id: string; title: string; reason: string }[];
}

export async function soakSimilarity(sql: Sql): Promise<SoakSimilarity> {
  const [counts] = await sql`
    select count(*)::int as checks,
           (count(*) filter (where detail->>'action' = 'passed'))::int as passed,
           (count(*) filter (where detail->>'action' = 'regenerated'))::int as regenerated,
           max((detail->>'combined')::float8) as max_combined
      from mdame.events where kind = 'similarity_checked'`;
  const rejected = await sql`
    select id::text as unit_id, dimension_id, topic->>'title' as title, error as reason
      from mdame.work_units where stage = 'rejected' and error like 'too_similar:%' order by created_at`;
  return {
    checks: counts.checks,
    passed: counts.passed,
    regenerated: counts.regenerated,
    max_combined: counts.max_combined,
    rejected: rejected.map((r) => ({ unit_id: r.unit_id, dimension_id: r.dimension_id, title: r.title, reason: r.reason })),
  };
}
