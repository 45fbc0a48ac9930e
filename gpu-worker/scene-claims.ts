import type { Queryable } from "../shared/db/client.ts";
import { claimSceneGeneration, recordSceneAsset, releaseSceneClaim } from "../shared/db/rpc/scene-claims.ts";
import { SceneCredit } from "../shared/contracts/visuals.ts";

/** What a claim on (scene_hash, backend) found. */
export type SceneClaim =
  | { state: "ready"; assetKey: string; credit: SceneCredit | null }
  | { state: "claimed" }
  | { state: "busy"; holder: string; leaseUntil: Date };

/**
 * The scene cache per backend, with one generation per key: the first worker to claim a key
 * generates it, another waits for the entry (or the lease to run out). All through RPCs.
 */
export interface SceneClaims {
  /**
   * `assetKey`: where this claimer will store the clip (kept on the claim, so the object counts as in
   * use while it uploads); `discardAsset`: a cache entry's asset found missing from storage.
   */
  claim(sceneHash: string, backend: string, holder: string, leaseS: number, opts: { assetKey: string; discardAsset?: string }): Promise<SceneClaim>;
  /** Records the clip and ends the claim; returns the entry that won (another worker's if it was first). */
  record(
    entry: { sceneHash: string; backend: string; backendName: string; assetKey: string; credit: SceneCredit | null; holder: string },
  ): Promise<{ assetKey: string; credit: SceneCredit | null }>;
  release(sceneHash: string, backend: string, holder: string): Promise<void>;
}

const credit = (value: unknown): SceneCredit | null => {
  const parsed = SceneCredit.safeParse(value);
  return parsed.success ? parsed.data : null;
};

/** SceneClaims over mdame.claim_scene_generation / record_scene_asset / release_scene_claim. */
export class PgSceneClaims implements SceneClaims {
  constructor(private readonly sql: Queryable) {}

  async claim(sceneHash: string, backend: string, holder: string, leaseS: number, opts: { assetKey: string; discardAsset?: string }): Promise<SceneClaim> {
    const row = await claimSceneGeneration(this.sql, { sceneHash, backend, holder, leaseS, discardAsset: opts.discardAsset ?? null, assetKey: opts.assetKey });
    if (row.state === "ready" && row.asset_key) return { state: "ready", assetKey: row.asset_key, credit: credit(row.credit) };
    if (row.state === "busy") return { state: "busy", holder: row.holder ?? "", leaseUntil: row.lease_until ?? new Date() };
    if (row.state === "claimed") return { state: "claimed" };
    throw new Error(`claim_scene_generation answered ${JSON.stringify(row)}`);
  }

  async record(entry: Parameters<SceneClaims["record"]>[0]) {
    const row = await recordSceneAsset(this.sql, {
      sceneHash: entry.sceneHash,
      backend: entry.backend,
      assetKey: entry.assetKey,
      credit: entry.credit,
      holder: entry.holder,
    });
    return { assetKey: row.asset_key, credit: credit(row.credit) };
  }

  async release(sceneHash: string, backend: string, holder: string): Promise<void> {
    await releaseSceneClaim(this.sql, { sceneHash, backend, holder });
  }
}
