/**
 * The local edge host's workers: a fixed number of Deno processes (stack/edge-worker.ts), each
 * serving the functions one request at a time, so a request's CPU time and memory are its
 * worker's. They start with the host (warm); a request waits for a free one within a bound. A
 * worker killed at a limit, or one that exits on its own, is replaced by a fresh one.
 */
import { fileURLToPath } from "node:url";
import { Backoff } from "../shared/backoff.ts";
import type { Logger } from "../shared/logging/logger.ts";
import { sweepScratchDirs } from "../shared/storage/scratch-dirs.ts";
import { WORKER_READY_MESSAGE, WORKER_REPLACED_MESSAGE } from "./edge-functions.ts";

export interface EdgeWorker {
  pid: number;
  port: number;
}

interface WorkerPoolOptions {
  size: number;
  logger: Logger;
  /** How long a request waits for a free worker before it is refused (503). */
  queueTimeoutMs: number;
  /** How many requests may wait at once; one more is refused at once. */
  maxWaiting: number;
  /** How long a worker may take to start listening. */
  startTimeoutMs?: number;
}

/** No worker became free in time, or too many requests wait already. */
export class PoolBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PoolBusyError";
  }
}

interface Running extends EdgeWorker {
  child: Deno.ChildProcess;
  /** Set when the pool ended it: its exit is expected. */
  ended: boolean;
}

const WORKER_MODULE = fileURLToPath(new URL("./edge-worker.ts", import.meta.url));

/**
 * Copies a worker's stdout to the host's, line by line, and resolves with the port its first
 * line names (or rejects when the output ends before it).
 */
function followOutput(stdout: ReadableStream<Uint8Array>): Promise<number> {
  return new Promise((resolve, reject) => {
    let ready = false;
    const out = Deno.stdout;
    const encoder = new TextEncoder();
    void (async () => {
      let pending = "";
      for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
        pending += chunk;
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline + 1);
          pending = pending.slice(newline + 1);
          if (!ready) {
            try {
              const parsed = JSON.parse(line) as { msg?: unknown; port?: unknown };
              if (parsed.msg === WORKER_READY_MESSAGE && typeof parsed.port === "number") {
                ready = true;
                resolve(parsed.port);
              }
            } catch {
              // Not a log line: copied as it is.
            }
          }
          await out.write(encoder.encode(line));
        }
      }
      if (pending) await out.write(encoder.encode(pending));
      if (!ready) reject(new Error("the worker exited before it listened"));
    })().catch((error) => {
      if (!ready) reject(error);
    });
  });
}

export function createWorkerPool(options: WorkerPoolOptions) {
  const { logger } = options;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const idle: Running[] = [];
  const all = new Set<Running>();
  const waiting: { resolve: (worker: Running) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }[] = [];
  const respawnBackoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
  let stopping = false;

  async function spawn(): Promise<Running> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", WORKER_MODULE],
      // Never written: a worker exits when it reads the end of it, so workers never outlive a host
      // that was killed outright (stack/edge-worker.ts).
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const worker: Running = { pid: child.pid, port: 0, child, ended: false };
    all.add(worker);
    void child.status.then((status) => {
      all.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      // A worker killed mid-request leaves its scratch directories (a voice's audio, say) behind.
      void sweepScratchDirs().then(({ removed, failed }) => {
        if (removed.length + failed.length > 0) logger.info({ removed, failed, worker_pid: worker.pid }, "scratch directories of dead processes swept");
      }, () => {});
      // A worker that never listened is the starting code's failure to report, not a crash.
      if (worker.ended || stopping || worker.port === 0) return;
      logger.warn({ worker_pid: worker.pid, reason: "exited", code: status.code, signal: status.signal, status: "failed" }, WORKER_REPLACED_MESSAGE);
      replace();
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      worker.port = await Promise.race([
        followOutput(child.stdout),
        new Promise<never>((
          _,
          reject,
        ) => (timer = setTimeout(() => reject(new Error(`the worker did not listen within ${startTimeoutMs} ms`)), startTimeoutMs))),
      ]);
    } catch (error) {
      worker.ended = true;
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return worker;
  }

  /** A free worker goes to the longest waiting request, or back to the idle ones. */
  function offer(worker: Running): void {
    const next = waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(worker);
    } else idle.push(worker);
  }

  /** Starts a worker in place of one that is gone, paced while starting fails. */
  function replace(): void {
    if (stopping) return;
    spawn().then(
      (worker) => {
        respawnBackoff.reset();
        if (stopping) end(worker);
        else offer(worker);
      },
      (error) => {
        const retryInMs = respawnBackoff.next();
        logger.error({ err: error, retry_in_ms: retryInMs, status: "retrying" }, "edge worker failed to start");
        setTimeout(replace, retryInMs);
      },
    );
  }

  function end(worker: Running): void {
    worker.ended = true;
    try {
      worker.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }

  return {
    /**
     * Starts every worker and resolves once one listens, so the host answers as soon as it can;
     * the others join as they become ready. Rejects when none can start (the host then exits);
     * one that fails while another started is retried as a replacement is.
     */
    async start(): Promise<void> {
      const spawns = Array.from({ length: options.size }, () =>
        spawn().then((worker) => {
          if (stopping) end(worker);
          else offer(worker);
        }));
      try {
        await Promise.any(spawns);
      } catch (error) {
        throw (error as AggregateError).errors[0];
      }
      for (const started of spawns) {
        started.catch((error) => {
          logger.error({ err: error, status: "retrying" }, "edge worker failed to start");
          replace();
        });
      }
    },

    /** A free worker, for one request; release or kill it after. */
    acquire(): Promise<EdgeWorker> {
      const free = idle.shift();
      if (free) return Promise.resolve(free);
      if (waiting.length >= options.maxWaiting) {
        return Promise.reject(new PoolBusyError(`every edge worker is busy and ${waiting.length} requests wait already`));
      }
      return new Promise((resolve, reject) => {
        const entry: (typeof waiting)[number] = {
          resolve,
          reject,
          timer: setTimeout(() => {
            waiting.splice(waiting.indexOf(entry), 1);
            reject(new PoolBusyError(`no edge worker was free within ${options.queueTimeoutMs} ms`));
          }, options.queueTimeoutMs),
        };
        waiting.push(entry);
      });
    },

    /** The request is answered: the worker serves the next one. */
    release(worker: EdgeWorker): void {
      const running = worker as Running;
      if (all.has(running) && !running.ended) offer(running);
    },

    /**
     * Ends a worker at once (SIGKILL), as the hosted runtime ends an isolate, and starts a fresh one.
     * `reason` is logged: the gateway often learns of a crashed worker (its answer broke off) before
     * the worker's exit is seen, and then this is where it is replaced.
     */
    kill(worker: EdgeWorker, reason: string): void {
      const running = worker as Running;
      if (!all.has(running) || running.ended) return;
      end(running);
      logger.warn({ worker_pid: running.pid, reason, status: "failed" }, WORKER_REPLACED_MESSAGE);
      replace();
    },

    /** Ends every worker (SIGTERM, SIGKILL after `graceMs`) and refuses the waiting requests. */
    async shutdown(graceMs = 3_000): Promise<void> {
      stopping = true;
      for (const entry of waiting.splice(0)) {
        clearTimeout(entry.timer);
        entry.reject(new PoolBusyError("the edge host is stopping"));
      }
      await Promise.all([...all].map(async (worker) => {
        worker.ended = true;
        try {
          worker.child.kill("SIGTERM");
        } catch {
          return;
        }
        const timer = setTimeout(() => end(worker), graceMs);
        await worker.child.status;
        clearTimeout(timer);
      }));
    },
  };
}

export type WorkerPool = ReturnType<typeof createWorkerPool>;
