/**
 * Local edge host (Deno): serves every Edge Function at http://127.0.0.1:54321/functions/v1/<name>
 * (MDAME_EDGE_PORT moves the port) as the Supabase gateway does: the function sees the path from
 * `/<name>` on. It listens for `mdame_wake` notifications, which stand in for pg_net on a plain
 * Postgres: each wake triggers the pipeline tick over HTTP, one at a time, again while work remains.
 */
import { TickAnswer } from "../shared/contracts/operator.ts";
import { createSql } from "../shared/db/client.ts";
import { assertEnvironment } from "../shared/db/rpc/runs.ts";
import { LOCAL_STACK } from "../shared/config/local-stack.ts";
import { createLogger } from "../shared/logging/logger.ts";
import { sweepScratchDirsAtStart } from "../shared/storage/scratch-dirs.ts";
import { createPipelineApp } from "../functions/pipeline/app.ts";
import { createPipelineDeps } from "../functions/pipeline/deps.ts";
import { createWorkerCallbackApp } from "../functions/worker-callback/app.ts";

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
  const secret = Deno.env.get("WEBHOOK_SECRET");
  if (!secret) throw new Error("WEBHOOK_SECRET is not set");
  return { pipelineDeps: deps, webhookSecret: secret };
}

let started: Awaited<ReturnType<typeof startUp>>;
try {
  started = await startUp();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  logger.fatal({ err: error }, "edge host cannot start");
  console.error(`edge host: cannot start: ${message}`);
  Deno.exit(1);
}
const { pipelineDeps, webhookSecret } = started;

const functions: Record<string, { fetch: (request: Request) => Response | Promise<Response> }> = {
  "pipeline": createPipelineApp(pipelineDeps),
  "worker-callback": createWorkerCallbackApp({ sql: pipelineDeps.sql, logger: createLogger("worker-callback"), webhookSecret }),
};

const server = Deno.serve({ hostname: LOCAL_STACK.host, port, onListen: () => logger.info({ port }, "edge host listening") }, (request) => {
  const url = new URL(request.url);
  const match = /^\/functions\/v1\/([a-z0-9-]+)(\/.*)?$/.exec(url.pathname);
  const fn = match ? functions[match[1]] : undefined;
  if (!match || !fn) return Response.json({ error: "function not found" }, { status: 404 });
  url.pathname = `/${match[1]}${match[2] ?? ""}`;
  return fn.fetch(new Request(url, request));
});

// Wake-ups: single flight, and one more pass if a wake arrived while a tick was running.
let ticking = false;
let wakeAgain = false;
async function tick(reason: string) {
  if (ticking) {
    wakeAgain = true;
    return;
  }
  ticking = true;
  try {
    do {
      wakeAgain = false;
      const response = await fetch(`http://${LOCAL_STACK.host}:${port}/functions/v1/pipeline/tick`, {
        method: "POST",
        headers: { authorization: `Bearer ${pipelineDeps.env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ reason }),
      });
      const body = await response.json();
      if (!response.ok) {
        logger.warn({ status: response.status, result: body }, "tick failed");
        continue;
      }
      if (TickAnswer.parse(body).more) wakeAgain = true;
    } while (wakeAgain);
  } catch (error) {
    logger.error({ err: error }, "tick request failed");
  } finally {
    ticking = false;
  }
}

const listener = createSql(pipelineDeps.env.DB_URL, { max: 1, application: "mdame-edge-listener" });
await listener.listen("mdame_wake", (reason) => void tick(reason), () => void tick("listen"));
// Notifications only announce new work; a task whose lease ran out (its runner crashed) becomes
// visible silently. pg_cron ticks once a minute at best, so the host also polls.
const POLL_MS = 10_000;
const poll = setInterval(() => void tick("poll"), POLL_MS);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    logger.info({ signal }, "edge host stopping");
    clearInterval(poll);
    await server.shutdown();
    await listener.end({ timeout: 2 });
    await pipelineDeps.sql.end({ timeout: 2 });
    Deno.exit(0);
  });
}
