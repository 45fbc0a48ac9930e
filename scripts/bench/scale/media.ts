/**
 * The scale bench's media workers: the real pull-worker loops (shared/worker/pull-worker.ts) on
 * the real queues, leases, heartbeats and signed callbacks, with the real visual and render task
 * definitions, whose drawing and encoding answer from clips made once with FFmpeg at the start.
 * The scene claims, the Storage writes, the completion callbacks and the RPCs behind them run as
 * in production; only the pictures are not drawn and the video is not encoded (the render bench
 * measures that). Each unit's time inside these tasks is recorded, so the lateness can leave it out.
 */
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import pino from "pino";
import { createVisualDefinition, PgSceneClaims } from "../../../gpu-worker/visual-task.ts";
import type { VisualBackend } from "../../../gpu-worker/backends/visual-backend.ts";
import { RENDER_FORMAT, type renderVideo } from "../../../render-runner/ffmpeg-render.ts";
import { createRenderDefinition } from "../../../render-runner/render-task.ts";
import { STORAGE_ENV_KEYS } from "../../../shared/config/env.ts";
import type { QualityReport } from "../../../shared/contracts/quality.ts";
import { createSql, type Sql } from "../../../shared/db/client.ts";
import { createLogger } from "../../../shared/logging/logger.ts";
import { run } from "../../../emulators/edge-tts/speech.ts";
import { createAssetStore } from "../../../shared/storage/create-asset-store.ts";
import { HttpCallbackSender } from "../../../shared/worker/callback-sender.ts";
import { workerEnv } from "../../../stack/stack-env.ts";
import { PgmqWorkerQueue } from "../../../shared/worker/pgmq-worker-queue.ts";
import { PullWorker, type QueueTaskDefinition } from "../../../shared/worker/pull-worker.ts";

/** Seconds of the pre-rendered clips: short, so copying them costs next to nothing. */
const CLIP_SECONDS = 3;

export interface PreRendered {
  /** A scene clip (the visual backends' 720x1280 at 30 fps). */
  scene: string;
  /** A finished video in the render format, with sound. */
  video: string;
}

/** Makes the two clips once, with FFmpeg. */
export async function preRender(dir: string): Promise<PreRendered> {
  await mkdir(dir, { recursive: true });
  const scene = join(dir, "scene.mp4");
  const video = join(dir, "video.mp4");
  const quiet = ["-hide_banner", "-loglevel", "error", "-y"];
  await run("ffmpeg", [
    ...quiet,
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=720x1280:rate=30:duration=${CLIP_SECONDS}`,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    scene,
  ], "");
  await run("ffmpeg", [
    ...quiet,
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=${RENDER_FORMAT.width}x${RENDER_FORMAT.height}:rate=${RENDER_FORMAT.fps}:duration=${CLIP_SECONDS}`,
    "-f",
    "lavfi",
    "-i",
    `sine=frequency=330:sample_rate=${RENDER_FORMAT.audioSampleRate}:duration=${CLIP_SECONDS}`,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-b:a",
    RENDER_FORMAT.audioBitrate,
    "-shortest",
    video,
  ], "");
  return { scene, video };
}

/** Per unit, the milliseconds the media tasks spent on it (scenes and render together). */
export class MediaTime {
  readonly #byUnit = new Map<string, number>();

  add(unitId: string, ms: number): void {
    this.#byUnit.set(unitId, (this.#byUnit.get(unitId) ?? 0) + ms);
  }

  of(unitId: string): number {
    return this.#byUnit.get(unitId) ?? 0;
  }
}

function timed<P extends { unit_id: string }>(definition: QueueTaskDefinition<P>, time: MediaTime): QueueTaskDefinition<P> {
  return {
    ...definition,
    run: async (payload, ctx) => {
      const startedAt = performance.now();
      try {
        return await definition.run(payload, ctx);
      } finally {
        time.add(payload.unit_id, performance.now() - startedAt);
      }
    },
  };
}

/** A "procedural" backend that hands every scene the pre-rendered clip. */
function clipBackend(clip: string): VisualBackend {
  return {
    name: "procedural",
    version: "bench-clip-v1",
    generate: async (_job, outPath) => void (await copyFile(clip, outPath)),
  };
}

/** The gate's answer for the pre-rendered video, which the bench does not measure again per unit. */
function passedGate(): QualityReport {
  return { passed: true, integrated_lufs: -14, true_peak_dbtp: -1.5, duration_s: CLIP_SECONDS, checks: [], failures: [] };
}

export interface MediaWorkers {
  readonly time: MediaTime;
  stop(): Promise<void>;
}

export interface MediaOptions {
  env: Record<string, string>;
  clips: PreRendered;
  /** Scenes and renders worked on at once (GPU_CONCURRENCY / RENDER_CONCURRENCY of the real workers). */
  visualConcurrency: number;
  renderConcurrency: number;
  logFile: string;
}

/** Starts one visual and one render pull worker in this process. */
export function startMediaWorkers(options: MediaOptions): MediaWorkers {
  const { env } = options;
  const time = new MediaTime();
  const logger = createLogger("bench-media", pino.destination({ dest: options.logFile, mkdir: true, sync: false }));
  // Each worker connects as its own component's role, as the real ones do (docs/reference/roles.md).
  const visualSql: Sql = createSql(workerEnv(env, "gpu-worker").DB_URL!, { max: 2, application: "mdame-bench-visual" });
  const renderSql: Sql = createSql(workerEnv(env, "render-runner").DB_URL!, { max: 2, application: "mdame-bench-render" });
  const storageEnv = Object.fromEntries(STORAGE_ENV_KEYS.map((k) => [k, env[k]]).filter(([, v]) => v !== undefined));
  const store = createAssetStore(storageEnv as Parameters<typeof createAssetStore>[0]);
  const callbacks = new HttpCallbackSender({
    url: `${env.FUNCTIONS_URL!.replace(/\/+$/, "")}/worker-callback`,
    serviceRoleKey: env.SERVICE_ROLE_KEY!,
    webhookSecret: env.WEBHOOK_SECRET!,
  });
  const render: typeof renderVideo = async (plan) => {
    await copyFile(options.clips.video, plan.outPath);
    return { linear: true, final: { input_i: -14 } } as Awaited<ReturnType<typeof renderVideo>>;
  };
  const workers = [
    new PullWorker({
      definition: timed(
        createVisualDefinition({ store, claims: new PgSceneClaims(visualSql), backends: new Map([["procedural", clipBackend(options.clips.scene)]]) }),
        time,
      ),
      queue: new PgmqWorkerQueue(visualSql),
      callbacks,
      logger: logger.child({ worker: "visual" }),
      workerId: `bench-visual-${process.pid}`,
      vtSeconds: 30,
      concurrency: options.visualConcurrency,
    }),
    new PullWorker({
      definition: timed(createRenderDefinition({ store, render, qualityGate: async () => passedGate() }), time),
      queue: new PgmqWorkerQueue(renderSql),
      callbacks,
      logger: logger.child({ worker: "render" }),
      workerId: `bench-render-${process.pid}`,
      vtSeconds: 30,
      concurrency: options.renderConcurrency,
    }),
  ];
  for (const worker of workers) worker.start();
  return {
    time,
    stop: async () => {
      await Promise.all(workers.map((w) => w.stop()));
      await Promise.all([visualSql.end({ timeout: 2 }), renderSql.end({ timeout: 2 })]);
    },
  };
}
