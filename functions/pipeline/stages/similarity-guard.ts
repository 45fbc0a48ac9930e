/**
 * The channel-standing guard (docs/reference/similarity.md), run by the plan stage once the scenes
 * are known and before any visual, voice or render is paid for: the unit's title, hook, script and
 * scene hashes are compared with the signatures of the dimension's last `compare_last` videos (one
 * read, mdame.get_content_signatures). Under the dimension's threshold the unit passes and its
 * signature is stored with its plan; at or above it, mdame.record_too_similar sends the script back
 * to be written again, within `max_regenerations`, or rejects the unit as too_similar.
 */
import type { SimilarityCheck, SimilarityPass, SimilaritySettings } from "../../../shared/contracts/similarity.ts";
import type { StoredScript } from "../../../shared/contracts/work-unit.ts";
import type { Sql } from "../../../shared/db/client.ts";
import { getContentSignatures } from "../../../shared/db/rpc/similarity.ts";
import { closestSignature, contentSignature } from "../../../shared/similarity/content.ts";

export type GuardResult = { kind: "passed"; pass: SimilarityPass } | { kind: "too_similar"; check: SimilarityCheck };

export async function guardSimilarity(
  sql: Sql,
  unit: { id: string; dimension_id: string },
  settings: SimilaritySettings,
  script: Pick<StoredScript, "title" | "hook" | "narration">,
  sceneHashes: readonly string[],
): Promise<GuardResult> {
  const signature = contentSignature({ title: script.title, hook: script.hook, narration: script.narration, sceneHashes });
  const published = await getContentSignatures(sql, unit.dimension_id, unit.id, settings.compare_last);
  const closest = closestSignature(signature, published) ?? null;
  const tooSimilar = closest !== null && closest.figures.combined >= settings.threshold;
  const check: SimilarityCheck = { compared: published.length, threshold: settings.threshold, closest, verdict: tooSimilar ? "too_similar" : "passed" };
  return tooSimilar ? { kind: "too_similar", check } : { kind: "passed", pass: { check, signature } };
}
