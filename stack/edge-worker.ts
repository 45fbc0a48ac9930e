/**
 * One worker of the local edge host (Deno): serves every Edge Function on a loopback port the
 * system picks, to the host's gateway only, one request at a time (stack/edge-pool.ts). The
 * gateway reads this process's CPU time and memory while a request runs and kills it past a limit,
 * as the hosted runtime ends an isolate. Its first line on stdout names its port.
 *
 * MDAME_EDGE_EXTRA_FUNCTIONS names a module whose default export maps more function names to
 * handlers (`{ fetch(request) }`), served beside the engine's: the edge host's limit tests load
 * tests/fixtures/edge-limit-functions.ts through it. Unset, only the engine's functions are served.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createPipelineApp } from "../functions/pipeline/app.ts";
import { createPipelineDeps, type PipelineDeps } from "../functions/pipeline/deps.ts";
import { createWorkerCallbackApp } from "../functions/worker-callback/app.ts";
import { loadEnv } from "../shared/config/env.ts";
import { createLogger } from "../shared/logging/logger.ts";
import { webhookSecrets } from "../shared/webhooks/standard-webhooks.ts";
import { type EdgeFunction, FORWARDED_ORIGIN_HEADER, functionRequest, WORKER_READY_MESSAGE } from "./edge-functions.ts";

/** The engine's functions, over one set of pipeline dependencies. */
function engineFunctions(deps: PipelineDeps): Record<string, EdgeFunction> {
  // The newest secret and those rotated out of it that the callback still accepts (docs/guides/rotation.md).
  const secrets = webhookSecrets(loadEnv(["WEBHOOK_SECRET", "WEBHOOK_SECRETS_PREVIOUS"]));
  return {
    "pipeline": createPipelineApp(deps),
    "worker-callback": createWorkerCallbackApp({ sql: deps.sql, logger: createLogger("worker-callback"), webhookSecrets: secrets }),
  };
}

const logger = createLogger("edge-host").child({ worker_pid: Deno.pid });
// The host waits for this line whatever LOG_LEVEL says.
const readyLogger = createLogger("edge-host", undefined, "info").child({ worker_pid: Deno.pid });

const deps = createPipelineDeps();
const functions: Record<string, EdgeFunction> = engineFunctions(deps);
const extra = Deno.env.get("MDAME_EDGE_EXTRA_FUNCTIONS");
if (extra) {
  const module = await import(pathToFileURL(resolve(extra)).href) as { default: Record<string, EdgeFunction> };
  for (const [name, fn] of Object.entries(module.default)) {
    if (name in functions) throw new Error(`MDAME_EDGE_EXTRA_FUNCTIONS: ${name} is already an engine function`);
    functions[name] = fn;
  }
}

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => readyLogger.info({ port, status: "succeeded" }, WORKER_READY_MESSAGE),
  // The apps answer their own errors; what escapes them is one line and a 500 with its id.
  onError: (error) => {
    const errorId = crypto.randomUUID();
    logger.error({ err: error, error_id: errorId, status: "failed" }, "edge request failed");
    return Response.json({ error: "internal error", error_id: errorId }, { status: 500 });
  },
}, (request) => {
  const origin = request.headers.get(FORWARDED_ORIGIN_HEADER) ?? new URL(request.url).origin;
  const routed = functionRequest(request, functions, origin);
  if (routed === null) return Response.json({ error: "function not found" }, { status: 404 });
  return routed.fn.fetch(routed.request);
});

async function stop(): Promise<never> {
  await server.shutdown();
  await deps.sql.end({ timeout: 2 });
  Deno.exit(0);
}
Deno.addSignalListener("SIGTERM", () => void stop());
// The host holds this pipe open and never writes to it: its end means the host is gone, even
// killed outright (SIGKILL gives it no chance to stop its workers).
void (async () => {
  for await (const _ of Deno.stdin.readable) { /* nothing is ever sent */ }
  Deno.exit(0);
})();
