import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Sql } from "postgres";
import { QUEUES, VisualJob } from "../shared/contracts/queue.ts";
import { failpoint, failpointWhen } from "../shared/failpoints.ts";
import type { AssetStore } from "../shared/storage/asset-store.ts";
import { makeScratchDir } from "../shared/storage/scratch-dirs.ts";
import { type QueueTaskDefinition, type TaskContext, type TaskOutcome, uuidField } from "../shared/worker/pull-worker.ts";
import type { VisualBackend } from "./backends/visual-backend.ts";

/** The scene cache as the database keeps it: scene_hash -> stored asset key. */
export interface SceneCache {
  lookup(sceneHash: string): Promise<string | null>;
}

/** SceneCache over the `mdame.lookup_scene_cache` RPC. */
export class PgSceneCache implements SceneCache {
  constructor(private readonly sql: Sql) {}

  async lookup(sceneHash: string): Promise<string | null> {
    const [row] = await this.sql<Array<{ asset_key: string | null }>>`select mdame.lookup_scene_cache(${sceneHash}) as asset_key`;
    return row?.asset_key ?? null;
  }
}

/** Where a generated scene is stored: content-addressed by scene_hash. */
export function sceneAssetKey(sceneHash: string): string {
  return `scenes/${sceneHash}.mp4`;
}

export interface VisualTaskDeps {
  store: AssetStore;
  cache: SceneCache;
  backend: VisualBackend;
  /** Scratch space for clips being generated. Default: the OS temp dir. */
  workDir?: string;
}

async function visualTask(deps: VisualTaskDeps, job: VisualJob, ctx: TaskContext): Promise<TaskOutcome> {
  const completed = (assetKey: string, cacheHit: boolean): TaskOutcome => ({
    kind: "visual_generation.completed",
    scene_id: job.scene_id,
    scene_hash: job.scene_hash,
    asset_key: assetKey,
    backend: deps.backend.version,
    cache_hit: cacheHit,
  });

  const cached = await deps.cache.lookup(job.scene_hash);
  if (cached !== null) {
    if (await deps.store.exists(cached)) {
      ctx.logger.info({ asset_key: cached }, "scene cache hit");
      return completed(cached, true);
    }
    ctx.logger.warn({ asset_key: cached }, "scene cache points at a missing asset; generating again");
  }

  const key = sceneAssetKey(job.scene_hash);
  // An earlier attempt may have stored the clip and lost its callback: the key is content-addressed.
  if (await deps.store.exists(key)) {
    ctx.logger.info({ asset_key: key }, "scene already stored by an earlier attempt");
    return completed(key, false);
  }

  const dir = await makeScratchDir("scene", deps.workDir);
  const outPath = join(dir, "scene.mp4");
  // Crash test: dies once the backend has begun writing the clip.
  const stopCrashWatch = failpointWhen("visual.mid-generation", () => existsSync(outPath));
  try {
    const startedAt = performance.now();
    await deps.backend.generate(job, outPath, { logger: ctx.logger, signal: ctx.signal });
    const generatedMs = Math.round(performance.now() - startedAt);
    ctx.signal.throwIfAborted();
    await ctx.heartbeat();
    const stored = await deps.store.putFile(key, outPath, "video/mp4");
    ctx.logger.info({ asset_key: key, size_bytes: stored.size_bytes, generate_ms: generatedMs, backend: deps.backend.version }, "scene generated");
    failpoint("visual.after-store-before-callback");
    return completed(key, false);
  } finally {
    stopCrashWatch();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The gpu-worker's queue definition for `visual_generation`. */
export function createVisualDefinition(deps: VisualTaskDeps): QueueTaskDefinition<VisualJob> {
  return {
    queue: QUEUES.visualGeneration,
    parse: (raw) => VisualJob.parse(raw),
    logFields: (job) => ({
      execution_id: job.run_id,
      dimension: job.dimension_id,
      stage: QUEUES.visualGeneration,
      step_token: job.step_token,
      unit_id: job.unit_id,
      scene_id: job.scene_id,
      scene_index: job.scene_index,
    }),
    run: (job, ctx) => visualTask(deps, job, ctx),
    failed: ({ payload, raw, error }) => {
      const sceneId = payload?.scene_id ?? uuidField(raw, "scene_id");
      return sceneId ? { kind: "visual_generation.failed", scene_id: sceneId, error } : null;
    },
  };
}
