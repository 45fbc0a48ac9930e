/**
 * Local edge host (Deno): serves every Edge Function at http://127.0.0.1:54321/functions/v1/<name>
 * (MDAME_EDGE_PORT moves the port) as the Supabase gateway does: the function sees the path from
 * `/<name>` on. It starts no tick itself: SQL wakes the pipeline tick through pg_net (or its
 * stand-in, sent by the stack's `net` component) as on Supabase. HTTP goes through
 * stack/edge-server.ts, which bounds slow and refused clients.
 */
import { loadEnv } from "../shared/config/env.ts";
import { assertEnvironment } from "../shared/db/rpc/runs.ts";
import { LOCAL_STACK } from "../shared/config/local-stack.ts";
import { createLogger } from "../shared/logging/logger.ts";
import { sweepScratchDirsAtStart } from "../shared/storage/scratch-dirs.ts";
import { webhookSecrets } from "../shared/webhooks/standard-webhooks.ts";
import { createPipelineApp } from "../functions/pipeline/app.ts";
import { createPipelineDeps } from "../functions/pipeline/deps.ts";
import { createWorkerCallbackApp } from "../functions/worker-callback/app.ts";
import { serveEdge } from "./edge-server.ts";

const logger = createLogger("edge-host");
const port = LOCAL_STACK.edgePort;

async function startUp() {
  await sweepScratchDirsAtStart(logger);
  const deps = createPipelineDeps();
  try {
    await assertEnvironment(deps.sql, deps.env.ENV);
  } catch (error) {
    await deps.sql.end({ timeout: 2 });
    throw error;
  }
  // The newest secret and those rotated out of it that the callback still accepts (docs/rotation.md).
  return { pipelineDeps: deps, webhookSecrets: webhookSecrets(loadEnv(["WEBHOOK_SECRET", "WEBHOOK_SECRETS_PREVIOUS"])) };
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
const { pipelineDeps, webhookSecrets: acceptedWebhookSecrets } = started;

const functions: Record<string, { fetch: (request: Request) => Response | Promise<Response> }> = {
  "pipeline": createPipelineApp(pipelineDeps),
  "worker-callback": createWorkerCallbackApp({ sql: pipelineDeps.sql, logger: createLogger("worker-callback"), webhookSecrets: acceptedWebhookSecrets }),
};

const route = (request: Request): Response | Promise<Response> => {
  const url = new URL(request.url);
  const match = /^\/functions\/v1\/([a-z0-9-]+)(\/.*)?$/.exec(url.pathname);
  const fn = match ? functions[match[1]] : undefined;
  if (!match || !fn) return Response.json({ error: "function not found" }, { status: 404 });
  url.pathname = `/${match[1]}${match[2] ?? ""}`;
  return fn.fetch(new Request(url, request));
};

const headersTimeoutMs = Number(Deno.env.get("MDAME_EDGE_HEADERS_TIMEOUT_MS") ?? "10000");
if (!Number.isInteger(headersTimeoutMs) || headersTimeoutMs < 100) {
  console.error("edge host: MDAME_EDGE_HEADERS_TIMEOUT_MS must be a whole number of milliseconds, at least 100");
  Deno.exit(1);
}
const server = await serveEdge({ hostname: LOCAL_STACK.host, port, handler: route, logger, headersTimeoutMs });
logger.info({ port: server.port }, "edge host listening");

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    logger.info({ signal }, "edge host stopping");
    await server.shutdown();
    await pipelineDeps.sql.end({ timeout: 2 });
    Deno.exit(0);
  });
}
