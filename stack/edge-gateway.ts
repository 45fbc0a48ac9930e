/**
 * The local edge host's gateway: hands each request to a free worker (stack/edge-pool.ts) and
 * enforces Supabase's per-request limits on it as the hosted runtime does. While the request runs
 * it reads the worker's CPU time and memory every `sampleMs`; past a limit, or past the wall clock
 * limit, it kills the worker, answers 546 {"code":"WORKER_LIMIT"} and a fresh worker takes its
 * place. Each request is one log line: function, method, path, HTTP status, wall and CPU time,
 * memory.
 */
import { WORKER_LIMIT_STATUS, type WorkerLimitAnswer } from "../shared/contracts/edge-runtime.ts";
import type { Logger } from "../shared/logging/logger.ts";
import { FORWARDED_ORIGIN_HEADER, FUNCTION_PATH } from "./edge-functions.ts";
import { type EdgeLimit, type EdgeLimits, LIMIT_NAMES, limitPassed, processUsage } from "./edge-limits.ts";
import { type EdgeWorker, PoolBusyError, type WorkerPool } from "./edge-pool.ts";

interface GatewayOptions {
  pool: WorkerPool;
  limits: EdgeLimits;
  logger: Logger;
  /** How often a running request's worker is read. Default 50 ms. */
  sampleMs?: number;
}

/** The hosted runtime's answer to a request it ended at a limit. */
const WORKER_LIMIT_BODY: WorkerLimitAnswer = {
  code: "WORKER_LIMIT",
  message: "Function failed due to not having enough compute resources (please check logs)",
};

/** Headers that describe one hop's connection, never forwarded. */
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "upgrade", "te", "trailer", "proxy-connection", "host", FORWARDED_ORIGIN_HEADER];
/** Headers of the worker's answer that no longer hold once its body is read whole. */
const ANSWER_HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"];

export function createGateway(options: GatewayOptions): (request: Request) => Promise<Response> {
  const { pool, limits, logger } = options;
  const sampleMs = options.sampleMs ?? 50;

  return async (request) => {
    const url = new URL(request.url);
    const match = FUNCTION_PATH.exec(url.pathname);
    if (!match) return Response.json({ error: "function not found" }, { status: 404 });
    const line = { function: match[1], method: request.method, path: url.pathname };
    const startedAt = performance.now();

    let worker: EdgeWorker;
    try {
      worker = await pool.acquire();
    } catch (error) {
      if (!(error instanceof PoolBusyError)) throw error;
      logger.warn({ ...line, http_status: 503, wall_ms: Math.round(performance.now() - startedAt), reason: error.message, status: "refused" }, "edge request");
      return Response.json({ error: error.message }, { status: 503, headers: { "retry-after": "1" } });
    }

    const run = await runOnWorker(worker, request, url, limits, sampleMs, pool);
    const wallMs = Math.round(performance.now() - startedAt);
    const usage = { wall_ms: wallMs, cpu_ms: run.cpuMs, memory_mb: Math.round(run.rssBytes / (1024 * 1024)) };
    if (run.kind === "limit") {
      logger.warn(
        { ...line, http_status: WORKER_LIMIT_STATUS, ...usage, limit: LIMIT_NAMES[run.limit], worker_pid: worker.pid, status: "failed" },
        "edge request ended at a limit",
      );
      return Response.json(WORKER_LIMIT_BODY, { status: WORKER_LIMIT_STATUS });
    }
    if (run.kind === "gone") {
      logger.error({ ...line, http_status: 502, ...usage, err: run.error, worker_pid: worker.pid, status: "failed" }, "edge worker did not answer");
      return Response.json({ error: "the function's worker did not answer" }, { status: 502 });
    }
    const { response, body } = run;
    logger.info({ ...line, http_status: response.status, ...usage, status: response.status < 500 ? "succeeded" : "failed" }, "edge request");
    const headers = new Headers(response.headers);
    for (const name of ANSWER_HOP_HEADERS) headers.delete(name);
    const nullBody = request.method === "HEAD" || response.status === 204 || response.status === 304;
    if (!nullBody) headers.set("content-length", String(body.byteLength));
    return new Response(nullBody ? null : body, { status: response.status, statusText: response.statusText, headers });
  };
}

type Run =
  | { kind: "answered"; response: Response; body: ArrayBuffer; cpuMs: number; rssBytes: number }
  | { kind: "limit"; limit: EdgeLimit; cpuMs: number; rssBytes: number }
  | { kind: "gone"; cpuMs: number; rssBytes: number; error: unknown };

/**
 * Forwards the request to the worker and watches it until its answer is read whole. The worker
 * goes back to the pool after an answer, or is killed (and replaced) at a limit.
 */
async function runOnWorker(worker: EdgeWorker, request: Request, url: URL, limits: EdgeLimits, sampleMs: number, pool: WorkerPool): Promise<Run> {
  const startedAt = performance.now();
  const before = await processUsage(worker.pid);
  const baseCpuMs = before?.cpuMs ?? 0;
  let cpuMs = 0;
  let rssBytes = before?.rssBytes ?? 0;
  let passed: EdgeLimit | null = null;
  const controller = new AbortController();

  /** Reads the worker; past a limit it is killed, which ends the forwarded request. */
  const check = async (): Promise<void> => {
    const usage = await processUsage(worker.pid);
    if (usage === null || passed !== null) return;
    cpuMs = Math.round(usage.cpuMs - baseCpuMs);
    rssBytes = Math.max(rssBytes, usage.rssBytes);
    const limit = limitPassed(limits, { cpuMs, rssBytes, wallMs: performance.now() - startedAt });
    if (limit !== null) stop(limit);
  };
  const stop = (limit: EdgeLimit) => {
    if (passed !== null) return;
    passed = limit;
    pool.kill(worker, `past its ${limit} limit`);
    controller.abort();
  };
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void check().finally(() => (sampling = false));
  }, sampleMs);
  const wallTimer = setTimeout(() => stop("wallMs"), limits.wallMs);

  const headers = new Headers(request.headers);
  for (const name of HOP_HEADERS) headers.delete(name);
  headers.set(FORWARDED_ORIGIN_HEADER, url.origin);
  const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
  try {
    const response = await fetch(`http://127.0.0.1:${worker.port}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body: hasBody ? request.body : undefined,
      redirect: "manual",
      signal: controller.signal,
      ...(hasBody ? { duplex: "half" } : {}),
    } as RequestInit);
    const body = await response.arrayBuffer();
    clearInterval(sampler);
    clearTimeout(wallTimer);
    // A request that passed a limit between two reads is ended all the same: the answer waits for this last one.
    while (sampling) await new Promise((resolve) => setTimeout(resolve, 1));
    await check();
    if (passed !== null) return { kind: "limit", limit: passed, cpuMs, rssBytes };
    // Stops an upload the function answered without reading: the worker is free for the next request.
    controller.abort();
    pool.release(worker);
    return { kind: "answered", response, body, cpuMs, rssBytes };
  } catch (error) {
    clearInterval(sampler);
    clearTimeout(wallTimer);
    if (passed !== null) return { kind: "limit", limit: passed, cpuMs, rssBytes };
    // The worker crashed, or the client's upload broke off mid-request: either way the worker's
    // state is unknown, and a fresh one is the safe answer.
    pool.kill(worker, "its answer broke off");
    return { kind: "gone", cpuMs, rssBytes, error };
  }
}
