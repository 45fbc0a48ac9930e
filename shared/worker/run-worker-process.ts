import { hostname } from "node:os";
import process from "node:process";
import { loadEnv, STORAGE_ENV_KEYS } from "../config/env.ts";
import { createSql, type Sql } from "../db/client.ts";
import { assertEnvironment } from "../db/rpc/runs.ts";
import { rpc } from "../db/errors.ts";
import { createLogger, type Logger } from "../logging/logger.ts";
import { ffmpegVersion, resolveFfmpegBinaries } from "../media/ffmpeg.ts";
import type { AssetStore } from "../storage/asset-store.ts";
import { createAssetStore, describeAssetStore } from "../storage/create-asset-store.ts";
import { sweepScratchDirsAtStart } from "../storage/scratch-dirs.ts";
import { HttpCallbackSender } from "./callback-sender.ts";
import { PgmqWorkerQueue } from "./pgmq-worker-queue.ts";
import { PullWorker, type QueueTaskDefinition } from "./pull-worker.ts";
import { PgWorkerHeartbeats } from "./worker-heartbeat.ts";
import { workerIdentity } from "./worker-id.ts";

interface WorkerProcessResources {
  sql: Sql;
  store: AssetStore;
  ffmpeg: string;
  ffprobe: string;
}

/**
 * The start-up every Bun pull worker shares: environment check (against the database's recorded
 * env too), FFmpeg resolution, the pgmq queue, signed callbacks to worker-callback, a worker id of
 * its own (worker-id.ts) and heartbeats in mdame.worker_heartbeats, leases of LEASE_S, signal handling.
 * Exits 1 with `<component>: cannot start: <reason>` when anything is missing.
 */
export function runWorkerProcess<P>(options: {
  component: string;
  /** Messages worked on at once (PullWorker's `concurrency`). Default 1. */
  concurrency?: number;
  definition: (resources: WorkerProcessResources) => QueueTaskDefinition<P>;
  /** Extra fields for the "ready" log line. */
  describe?: (resources: WorkerProcessResources) => Record<string, unknown>;
  /** Work the process runs beside its queue, started after it and stopped before the database closes. */
  alongside?: (resources: WorkerProcessResources, logger: Logger) => { stop(): Promise<void> };
}): void {
  const logger = createLogger(options.component);
  start().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal({ err: error }, `${options.component} cannot start`);
    process.stderr.write(`${options.component}: cannot start: ${message}\n`);
    process.exit(1);
  });

  async function start(): Promise<void> {
    const env = loadEnv(["ENV", "DB_URL", "FUNCTIONS_URL", "SERVICE_ROLE_KEY", "WEBHOOK_SECRET", ...STORAGE_ENV_KEYS, "FFMPEG_PATH", "WORKER_ID", "LEASE_S"]);
    const { workerId, host, pid } = workerIdentity({ name: env.WORKER_ID ?? options.component, host: hostname(), pid: process.pid });
    const log = logger.child({ env: env.ENV });

    await sweepScratchDirsAtStart(log);

    const binaries = await resolveFfmpegBinaries();
    const version = await ffmpegVersion(binaries.ffmpeg);

    const sql = createSql(env.DB_URL, { max: 2, application: workerId });
    try {
      await rpc(() => assertEnvironment(sql, env.ENV));
    } catch (error) {
      await sql.end({ timeout: 2 });
      throw new Error(`database environment check failed for ENV=${env.ENV}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }

    const resources: WorkerProcessResources = { sql, store: createAssetStore(env), ffmpeg: binaries.ffmpeg, ffprobe: binaries.ffprobe };
    const worker = new PullWorker({
      definition: options.definition(resources),
      queue: new PgmqWorkerQueue(sql),
      callbacks: new HttpCallbackSender({
        url: `${env.FUNCTIONS_URL.replace(/\/+$/, "")}/worker-callback`,
        serviceRoleKey: env.SERVICE_ROLE_KEY,
        webhookSecret: env.WEBHOOK_SECRET,
      }),
      logger: log,
      workerId,
      // Each job's lease; PullWorker's heartbeats keep it while the job runs (shared/worker/lease.ts).
      vtSeconds: env.LEASE_S,
      concurrency: options.concurrency,
      presence: { heartbeats: new PgWorkerHeartbeats(sql), host, pid },
    });
    log.info({
      worker_id: workerId,
      concurrency: options.concurrency ?? 1,
      ...options.describe?.(resources),
      ffmpeg: binaries.ffmpeg,
      ffmpeg_source: binaries.source,
      ffmpeg_version: version,
      storage: describeAssetStore(env),
    }, `${options.component} ready`);
    worker.start();
    const beside = options.alongside?.(resources, log);
    stopOnSignals({ stop: () => Promise.all([worker.stop(), beside?.stop()]).then(() => {}) }, log, () => sql.end({ timeout: 5 }));
  }
}

/**
 * Stops the worker on SIGINT/SIGTERM, waits for in-flight work, runs `cleanup`, then exits 0.
 * A second signal exits at once with 130 (messages in flight come back after their vt).
 */
function stopOnSignals(worker: { stop(): Promise<void> }, logger: Logger, cleanup: () => Promise<void> | void): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal; exiting without waiting");
      process.exit(130);
    }
    stopping = true;
    logger.info({ signal }, "signal received; finishing in-flight work");
    worker.stop()
      .then(() => cleanup())
      .then(() => process.exit(0))
      .catch((error) => {
        logger.error({ err: error }, "error while stopping");
        process.exit(1);
      });
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
}
