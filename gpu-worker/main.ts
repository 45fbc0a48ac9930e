/**
 * gpu-worker: pulls `visual_generation`, draws each scene (or finds it in the scene cache) and
 * reports by signed callback. Run with `bun gpu-worker/main.ts`.
 */
import { hostname } from "node:os";
import { resolve } from "node:path";
import process from "node:process";
import { loadEnv } from "../shared/config/env.ts";
import { assertEnvironment, createSql } from "../shared/db/client.ts";
import { rpc } from "../shared/db/errors.ts";
import { createLogger } from "../shared/logging/logger.ts";
import { ffmpegVersion, resolveFfmpegBinaries } from "../shared/media/ffmpeg.ts";
import { LocalDirectoryStore } from "../shared/storage/local-directory-store.ts";
import { HttpCallbackSender } from "../shared/worker/callback-sender.ts";
import { PgmqWorkerQueue } from "../shared/worker/pgmq-worker-queue.ts";
import { PullWorker, stopOnSignals } from "../shared/worker/pull-worker.ts";
import { ProceduralBackend } from "./backends/procedural.ts";
import { createVisualDefinition, PgSceneCache } from "./visual-task.ts";

const COMPONENT = "gpu-worker";
/** A 6-s procedural clip takes a few seconds; a GPU backend may take a minute. */
const VT_SECONDS = 120;

const logger = createLogger(COMPONENT);

async function main(): Promise<void> {
  const env = loadEnv(["ENV", "DB_URL", "FUNCTIONS_URL", "SERVICE_ROLE_KEY", "WEBHOOK_SECRET", "STORAGE_LOCAL_DIR", "FFMPEG_PATH", "WORKER_ID"]);
  const workerId = env.WORKER_ID ?? `${COMPONENT}-${hostname()}-${process.pid}`;
  const log = logger.child({ env: env.ENV });

  const binaries = await resolveFfmpegBinaries();
  const version = await ffmpegVersion(binaries.ffmpeg);

  const sql = createSql(env.DB_URL, { max: 2, application: workerId });
  try {
    await rpc(() => assertEnvironment(sql, env.ENV));
  } catch (error) {
    await sql.end({ timeout: 2 });
    throw new Error(`database environment check failed for ENV=${env.ENV}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }

  const storageRoot = resolve(env.STORAGE_LOCAL_DIR);
  const backend = new ProceduralBackend({ ffmpegPath: binaries.ffmpeg });
  const worker = new PullWorker({
    definition: createVisualDefinition({ store: new LocalDirectoryStore(storageRoot), cache: new PgSceneCache(sql), backend }),
    queue: new PgmqWorkerQueue(sql),
    callbacks: new HttpCallbackSender({
      url: `${env.FUNCTIONS_URL.replace(/\/+$/, "")}/worker-callback`,
      serviceRoleKey: env.SERVICE_ROLE_KEY,
      webhookSecret: env.WEBHOOK_SECRET,
    }),
    logger: log,
    workerId,
    vtSeconds: VT_SECONDS,
  });
  log.info({ backend: backend.version, ffmpeg: binaries.ffmpeg, ffmpeg_source: binaries.source, ffmpeg_version: version, storage: storageRoot }, "gpu-worker ready");
  worker.start();
  stopOnSignals(worker, log, () => sql.end({ timeout: 5 }));
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  logger.fatal({ err: error }, "gpu-worker cannot start");
  process.stderr.write(`${COMPONENT}: cannot start: ${message}\n`);
  process.exit(1);
});
