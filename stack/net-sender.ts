/**
 * The local stack's `net` component: what pg_net's background worker does on Supabase, for a server
 * with the pg_net stand-in (supabase/pg-net-compat/pg_net.sql). It takes the committed requests of
 * net.http_request_queue, oldest first, performs each with fetch within its timeout_milliseconds,
 * records the answer in net._http_response under the request's id (status_code, content_type,
 * headers, content, or timed_out / error_msg) and deletes the queue row as it takes it, as pg_net
 * does; answers older than pg_net's ttl (6 hours) are pruned. Many requests run at once, up to
 * `concurrency`; it never reads an answer for anything but recording it, so the edge host's tick
 * is woken exactly as on Supabase.
 *
 * New requests are announced on channel net_http_request (the stand-in's http_post notifies, at
 * commit); a poll every second covers a notification lost while the listener reconnects. A failing
 * database pauses the taking with the shared backoff, logged through a FailureLog.
 *
 *   bun stack/net-sender.ts        (the supervisor runs it; it needs no argument)
 */
import process from "node:process";
import type { Sql } from "postgres";
import { Backoff } from "../shared/backoff.ts";
import { LOCAL_DB_URL } from "../shared/config/local-stack.ts";
import { createSql } from "../shared/db/client.ts";
import { FailureLog } from "../shared/logging/failure-log.ts";
import { createLogger, type Logger } from "../shared/logging/logger.ts";

/** The channel the pg_net stand-in's http_post notifies with the new request's id. */
const NET_REQUEST_CHANNEL = "net_http_request";

interface NetSenderOptions {
  /** A superuser pool: the sender stands in for a worker inside the server, as pg_net's does. */
  sql: Sql;
  /** A pool of its own for LISTEN; without one the sender only polls. */
  listener?: Sql;
  logger: Logger;
  fetch?: typeof fetch;
  /** Requests in flight at most. Default 64. */
  concurrency?: number;
  /** Default 1000 ms. */
  pollMs?: number;
  /** How long answers are kept: pg_net's ttl, default 6 hours. */
  responseTtlMs?: number;
  /** Default 60 s. */
  pruneEveryMs?: number;
  /** Default 500 ms .. 30 s. */
  backoffMs?: { initial: number; max: number };
}

/** One request as net.http_request_queue holds it. */
interface QueuedRequest {
  id: string;
  method: string;
  url: string;
  headers: Record<string, string> | null;
  body: Buffer | null;
  timeout_milliseconds: number;
}

/** What the sender recorded for one request, as net._http_response holds it. */
export interface RecordedResponse {
  id: number;
  method: string;
  url: string;
  /** The body pg_net was asked to send. */
  request_body: string | null;
  status_code: number | null;
  content_type: string | null;
  content: string | null;
  timed_out: boolean;
  error_msg: string | null;
}

export interface NetSender {
  /** Listens (when given a listener), starts the poll and the pruning, and takes what is queued. */
  start(): Promise<void>;
  /** No request is taken after this; the ones in flight are aborted and recorded as such. */
  stop(): Promise<void>;
  /** Resolves once nothing is in flight and the last look at the queue found it empty. */
  idle(): Promise<void>;
  /** Asks for a look at the queue now (a notification does the same). */
  wake(): void;
  /** Every response recorded since start, oldest first (kept for tests and counters; at most 1,000). */
  readonly recorded: readonly RecordedResponse[];
}

const RECORDED_KEPT = 1_000;

export function createNetSender(options: NetSenderOptions): NetSender {
  const { sql, logger } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const concurrency = options.concurrency ?? 64;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("net sender: concurrency must be a whole number, at least 1");
  const backoff = new Backoff({ initialMs: options.backoffMs?.initial ?? 500, maxMs: options.backoffMs?.max ?? 30_000 });
  const takeFailures = new FailureLog(logger, { subject: "taking queued requests" });
  const recordFailures = new FailureLog(logger, { subject: "recording a response" });
  const requestFailures = new FailureLog(logger, { subject: "request" });
  const inFlight = new Map<number, AbortController>();
  const settled = new Set<Promise<void>>();
  const recorded: RecordedResponse[] = [];
  let taking: Promise<void> | null = null;
  let takeAgain = false;
  let stopped = false;
  let lastTakeFoundNone = false;
  let idleWaiters: (() => void)[] = [];
  const timers: ReturnType<typeof setInterval>[] = [];

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  function settleIdle(): void {
    if (taking || inFlight.size > 0 || !lastTakeFoundNone) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  async function record(
    row: QueuedRequest,
    response: Omit<RecordedResponse, "id" | "method" | "url" | "request_body"> & { headers: Record<string, string> | null },
  ): Promise<void> {
    const id = Number(row.id);
    try {
      await sql`insert into net._http_response (id, status_code, content_type, headers, content, timed_out, error_msg)
                values (${id}, ${response.status_code}, ${response.content_type}, ${response.headers === null ? null : sql.json(response.headers)},
                        ${response.content}, ${response.timed_out}, ${response.error_msg})`;
      recordFailures.succeeded();
    } catch (error) {
      // pg_net loses the answer too when it cannot write it; the tick's slot expires with its timeout.
      recordFailures.failed(error, { request_id: id });
      return;
    }
    recorded.push({
      id,
      method: row.method,
      url: row.url,
      request_body: row.body === null ? null : row.body.toString("utf8"),
      status_code: response.status_code,
      content_type: response.content_type,
      content: response.content,
      timed_out: response.timed_out,
      error_msg: response.error_msg,
    });
    if (recorded.length > RECORDED_KEPT) recorded.splice(0, recorded.length - RECORDED_KEPT);
    const failed = response.error_msg !== null || (response.status_code !== null && response.status_code >= 400);
    if (failed) requestFailures.failed(response.error_msg ?? `HTTP ${response.status_code}`, { request_id: id, url: row.url });
    else requestFailures.succeeded();
    logger.debug({ request_id: id, status_code: response.status_code, status: failed ? "failed" : "succeeded" }, "request performed");
  }

  async function perform(row: QueuedRequest): Promise<void> {
    const abort = new AbortController();
    inFlight.set(Number(row.id), abort);
    const timeout = AbortSignal.timeout(row.timeout_milliseconds);
    try {
      const response = await fetchImpl(row.url, {
        method: row.method,
        headers: row.headers ?? {},
        body: row.body === null ? undefined : new Uint8Array(row.body),
        signal: AbortSignal.any([abort.signal, timeout]),
      });
      const content = await response.text();
      await record(row, {
        status_code: response.status,
        content_type: response.headers.get("content-type"),
        headers: Object.fromEntries(response.headers),
        content,
        timed_out: false,
        error_msg: null,
      });
    } catch (error) {
      const timedOut = timeout.aborted;
      const message = timedOut
        ? `Timeout of ${row.timeout_milliseconds} ms reached`
        : abort.signal.aborted
        ? "the net sender stopped before the answer came"
        : error instanceof Error
        ? error.message
        : String(error);
      await record(row, { status_code: null, content_type: null, headers: null, content: null, timed_out: timedOut, error_msg: message });
    } finally {
      inFlight.delete(Number(row.id));
    }
  }

  function launch(row: QueuedRequest): void {
    const done: Promise<void> = perform(row).finally(() => {
      settled.delete(done);
      // A slot is free: the queue may hold more than the last take could carry.
      if (!stopped) wake();
      settleIdle();
    });
    settled.add(done);
  }

  /** Takes as many queued requests as there are free slots, until the queue is empty or the slots are full. */
  async function takeAll(): Promise<void> {
    do {
      takeAgain = false;
      while (!stopped && inFlight.size < concurrency) {
        let rows: QueuedRequest[];
        try {
          rows = await sql<QueuedRequest[]>`
            delete from net.http_request_queue
             where id in (select id from net.http_request_queue order by id limit ${concurrency - inFlight.size} for update skip locked)
            returning id, method, url, headers, body, timeout_milliseconds`;
          backoff.reset();
          takeFailures.succeeded();
        } catch (error) {
          const retryInMs = backoff.next();
          takeFailures.failed(error, { retry_in_ms: retryInMs });
          await sleep(retryInMs);
          continue;
        }
        lastTakeFoundNone = rows.length === 0;
        if (rows.length === 0) break;
        rows.sort((a, b) => Number(a.id) - Number(b.id));
        for (const row of rows) launch(row);
      }
    } while (takeAgain && !stopped);
  }

  function wake(): void {
    if (stopped) return;
    if (taking) {
      takeAgain = true;
      return;
    }
    taking = takeAll()
      .catch((error) => logger.error({ err: error, status: "failed" }, "net sender crashed while taking requests"))
      .finally(() => {
        taking = null;
        settleIdle();
      });
  }

  async function prune(): Promise<void> {
    try {
      await sql`delete from net._http_response where created < now() - make_interval(secs => ${(options.responseTtlMs ?? 6 * 3_600_000) / 1000})`;
    } catch (error) {
      logger.warn({ err: error, status: "failed" }, "pruning old responses failed; trying again later");
    }
  }

  /** The first LISTEN, retried with the shared backoff while the database refuses it. */
  async function listen(listener: Sql): Promise<void> {
    const listenBackoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
    const failures = new FailureLog(logger, { subject: "listen" });
    while (!stopped) {
      try {
        // postgres.js listens again by itself after a lost connection; each (re)listen takes a look.
        await listener.listen(NET_REQUEST_CHANNEL, () => wake(), () => wake());
        failures.succeeded();
        return;
      } catch (error) {
        const retryInMs = listenBackoff.next();
        failures.failed(error, { retry_in_ms: retryInMs });
        await sleep(retryInMs);
      }
    }
  }

  return {
    recorded,
    wake,
    async start() {
      timers.push(setInterval(wake, options.pollMs ?? 1_000));
      timers.push(setInterval(() => void prune(), options.pruneEveryMs ?? 60_000));
      void prune();
      wake();
      if (options.listener) await listen(options.listener);
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await taking;
      for (const abort of inFlight.values()) abort.abort();
      await Promise.all([...settled]);
      for (const resolve of idleWaiters.splice(0)) resolve();
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        lastTakeFoundNone = false;
        wake();
      });
    },
  };
}

if (import.meta.main) {
  const logger = createLogger("net");
  const sql = createSql(LOCAL_DB_URL, { max: 4, application: "mdame-net-sender" });
  const listener = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-net-listener" });
  const sender = createNetSender({ sql, listener, logger });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, async () => {
      logger.info({ signal }, "net sender stopping");
      await sender.stop();
      await listener.end({ timeout: 2 });
      await sql.end({ timeout: 2 });
      process.exit(0);
    });
  }
  await sender.start();
  logger.info({ status: "started" }, "net sender taking requests from net.http_request_queue");
}
