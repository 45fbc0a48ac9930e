/**
 * The scene cache per visual backend, with one generation per key (gpu-worker/scene-claims.ts):
 * the first worker to claim (scene_hash, backend) generates the clip, another waits for the entry.
 */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { oneRow } from "./query.ts";

/**
 * What mdame.claim_scene_generation found: `ready` with the cache entry, `claimed` when the caller
 * is to generate the clip, `busy` with the holder and lease of the worker generating it.
 */
const SceneGenerationClaim = z.object({
  state: z.enum(["ready", "claimed", "busy"]),
  asset_key: z.string().nullable(),
  credit: z.unknown().nullable(),
  holder: z.string().nullable(),
  lease_until: z.date().nullable(),
}).strict();
type SceneGenerationClaim = z.infer<typeof SceneGenerationClaim>;

/** A row of mdame.scene_cache. */
const SceneCacheEntry = z.object({
  scene_hash: z.string(),
  asset_key: z.string(),
  backend: z.string(),
  created_at: z.date(),
  /** The backend without its model version (`procedural` for every procedural-ffmpeg version). */
  backend_name: z.string().nullable(),
  /** The clip's attribution (a stock source's author and licence), when it needs one. */
  credit: z.unknown().nullable(),
  /** When the entry was made or last hit (engine clock); it expires scene_cache_ttl_days after (docs/reference/retention.md). */
  last_hit_at: z.date(),
}).strict();
type SceneCacheEntry = z.infer<typeof SceneCacheEntry>;

/** Claims the generation of (sceneHash, backend) for `holder`; `discardAsset` first drops an entry pointing at a clip storage lost. */
export function claimSceneGeneration(
  sql: Queryable,
  p: { sceneHash: string; backend: string; holder: string; leaseS: number; discardAsset: string | null; assetKey: string },
): Promise<SceneGenerationClaim> {
  return oneRow(
    "claim_scene_generation",
    SceneGenerationClaim,
    sql`
    select state, asset_key, credit, holder, lease_until
      from mdame.claim_scene_generation(${p.sceneHash}::text, ${p.backend}::text, ${p.holder}::text, ${p.leaseS}::integer, ${p.discardAsset}::text,
                                        ${p.assetKey}::text)`,
  );
}

/** Records a generated clip and ends the claim; returns the entry that won (another worker's if it was first). */
export function recordSceneAsset(
  sql: Queryable,
  p: { sceneHash: string; backend: string; assetKey: string; credit: Record<string, unknown> | null; holder: string },
): Promise<SceneCacheEntry> {
  return oneRow(
    "record_scene_asset",
    SceneCacheEntry,
    sql`
    select * from mdame.record_scene_asset(${p.sceneHash}::text, ${p.backend}::text, ${p.assetKey}::text,
      ${p.credit === null ? null : sql.json(p.credit as never)}::jsonb, ${p.holder}::text)`,
  );
}

/** Gives up a claim so a waiting worker takes over at once; false when `holder` held none. */
export async function releaseSceneClaim(sql: Queryable, p: { sceneHash: string; backend: string; holder: string }): Promise<boolean> {
  const row = await oneRow(
    "release_scene_claim",
    z.object({ released: z.boolean() }).strict(),
    sql`
    select mdame.release_scene_claim(${p.sceneHash}::text, ${p.backend}::text, ${p.holder}::text) as released`,
  );
  return row.released;
}
