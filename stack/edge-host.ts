/**
 * Local edge host (Deno): serves every Edge Function at http://127.0.0.1:54321/functions/v1/<name>
 * (MDAME_EDGE_PORT moves the port) as the Supabase gateway does: the function sees the path from
 * `/<name>` on. Requests run in a pool of worker processes (stack/edge-pool.ts), each ended at
 * Supabase's per-request limits of CPU time, memory and wall clock as the hosted runtime ends
 * them (stack/edge-gateway.ts). It starts no tick itself: SQL wakes the pipeline tick through
 * pg_net (or its stand-in, sent by the stack's `net` component) as on Supabase. HTTP goes through
 * stack/edge-server.ts, which bounds slow and refused clients in front of the workers.
 */
import { loadEnv } from "../shared/config/env.ts";
import { assertEnvironment } from "../shared/db/rpc/runs.ts";
import { LOCAL_STACK } from "../shared/config/local-stack.ts";
import { createLogger } from "../shared/logging/logger.ts";
import { sweepScratchDirsAtStart } from "../shared/storage/scratch-dirs.ts";
import { webhookSecrets } from "../shared/webhooks/standard-webhooks.ts";
import { createPipelineDeps } from "../functions/pipeline/deps.ts";
import { createGateway } from "./edge-gateway.ts";
import { edgeLimits } from "./edge-limits.ts";
import { createWorkerPool } from "./edge-pool.ts";
import { serveEdge } from "./edge-server.ts";

const logger = createLogger("edge-host");
const port = LOCAL_STACK.edgePort;

/** A whole number from the environment, at least `min`; exits with a clear message otherwise. */
function wholeNumber(name: string, fallback: number, min: number, unit: string): number {
  const value = Number(Deno.env.get(name) ?? String(fallback));
  if (!Number.isInteger(value) || value < min) {
    console.error(`edge host: ${name} must be a whole number of ${unit}, at least ${min}`);
    Deno.exit(1);
  }
  return value;
}

const headersTimeoutMs = wholeNumber("MDAME_EDGE_HEADERS_TIMEOUT_MS", 10_000, 100, "milliseconds");
/** Enough for a few ticks side by side and the operator's requests. */
const workerCount = wholeNumber("MDAME_EDGE_WORKERS", 4, 1, "workers");
const queueTimeoutMs = wholeNumber("MDAME_EDGE_QUEUE_TIMEOUT_MS", 30_000, 100, "milliseconds");

async function startUp() {
  await sweepScratchDirsAtStart(logger);
  // The workers read the same environment: checked once here, a bad one stops the host at start-up.
  const deps = createPipelineDeps();
  try {
    await assertEnvironment(deps.sql, deps.env.ENV);
    webhookSecrets(loadEnv(["WEBHOOK_SECRET", "WEBHOOK_SECRETS_PREVIOUS"]));
  } catch (error) {
    await deps.sql.end({ timeout: 2 });
    throw error;
  }
  // Warm start: the workers start with the host, which listens once the first is ready.
  const pool = createWorkerPool({ size: workerCount, logger, queueTimeoutMs, maxWaiting: 16 * workerCount });
  try {
    await pool.start();
  } catch (error) {
    await pool.shutdown();
    await deps.sql.end({ timeout: 2 });
    throw error;
  }
  return { pipelineDeps: deps, pool };
}

let started: Awaited<ReturnType<typeof startUp>>;
try {
  started = await startUp();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  logger.fatal({ err: error, status: "failed" }, "edge host cannot start");
  console.error(`edge host: cannot start: ${message}`);
  Deno.exit(1);
}
const { pipelineDeps, pool } = started;
const limits = edgeLimits(pipelineDeps.env);

const server = await serveEdge({ hostname: LOCAL_STACK.host, port, handler: createGateway({ pool, limits, logger }), logger, headersTimeoutMs });
logger.info({
  port: server.port,
  workers: workerCount,
  cpu_limit_ms: limits.cpuMs,
  memory_limit_mb: pipelineDeps.env.EDGE_MEMORY_LIMIT_MB,
  wall_limit_s: pipelineDeps.env.EDGE_WALL_LIMIT_S,
}, "edge host listening");

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    logger.info({ signal }, "edge host stopping");
    await server.shutdown();
    await pool.shutdown();
    await pipelineDeps.sql.end({ timeout: 2 });
    Deno.exit(0);
  });
}
