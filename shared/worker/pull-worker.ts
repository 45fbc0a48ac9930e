import { z } from "zod";
import { WorkerCallback } from "../contracts/callbacks.ts";
import { coerceError, isRetriable } from "../errors.ts";
import { Backoff } from "../backoff.ts";
import { failpoint } from "../failpoints.ts";
import { FailureLog } from "../logging/failure-log.ts";
import type { LogContext, Logger } from "../logging/logger.ts";
import type { BaseTaskContext, Task } from "../tasks/task.ts";
import { type CallbackSender, callbackWebhookId, DEFAULT_CALLBACK_RETRY_DELAYS_MS, deliverCallback, type DeliveryOutcome } from "./callback-sender.ts";
import { heartbeatIntervalMs, Lease, type QueueMessage, type WorkerQueue } from "./lease.ts";
import { DEFAULT_BEAT_INTERVAL_MS, HeartbeatLoop, type WorkerHeartbeats } from "./worker-heartbeat.ts";
import { visibleText } from "../text/storable.ts";

export { LeaseExpiredError, MessageGoneError, type QueueMessage, type WorkerQueue } from "./lease.ts";

/**
 * The pull loop shared by the gpu-worker and the render-runner (docs/conventions.md, "Workers and tasks").
 * It reads messages with a visibility timeout, keeps the lease alive while a task runs, reports
 * the result by signed callback, and never deletes or archives its own message: the completion
 * RPC behind `worker-callback` archives it in the same transaction that records the result.
 */

/** The worker stopped before the task finished; the message comes back after its visibility timeout. */
class WorkerStoppingError extends Error {
  constructor() {
    super("worker stopping");
    this.name = "WorkerStoppingError";
  }
}

/** What a `*.failed` callback says. */
interface TaskFailure {
  message: string;
  retriable: boolean;
}

const MAX_FAILURE_MESSAGE = 2000;

function describeUnknown(error: unknown): string {
  const issues = (error as { issues?: unknown })?.issues;
  if (Array.isArray(issues)) {
    return issues.map((i: { path?: unknown[]; message?: string }) => `${(i.path ?? []).join(".") || "(root)"}: ${i.message ?? "invalid"}`).join("; ");
  }
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * A failure message as one plain line, the shape the callback contract checks and the dead-letter
 * lists show: line breaks joined with " | ", every other control and bidi control written as a
 * `\uXXXX` escape, cut to `max` characters.
 */
export function oneLineMessage(text: string, max: number): string {
  const joined = text.split(/\s*(?:\r\n|[\r\n\u2028\u2029])\s*/).filter((line) => line !== "").join(" | ");
  const visible = visibleText(joined).slice(0, max);
  // A cut may leave half an escape or a lone surrogate at the end: drop it.
  return visible.replace(/\\u[0-9a-f]{0,3}$/, "").replace(/[\ud800-\udbff]$/, "") || "unknown error";
}

/** Normalises anything thrown by a task; whether it is final is the one rule of shared/errors.ts. */
export function toTaskFailure(thrown: unknown): TaskFailure {
  const error = coerceError(thrown);
  const message = describeUnknown(thrown).trim() || error.message || "unknown error";
  return { message: oneLineMessage(message, MAX_FAILURE_MESSAGE), retriable: isRetriable(error) };
}

const Uuid = z.string().uuid();

/**
 * A uuid field of a message that failed validation, when it has a valid one: enough to fail the
 * scene or unit it names instead of leaving the message to be dead-lettered.
 */
export function uuidField(raw: unknown, field: string): string | null {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
  const parsed = Uuid.safeParse((raw as Record<string, unknown>)[field]);
  return parsed.success ? parsed.data : null;
}

/** The log fields of a job of one unit: its run (as `execution_id`), dimension, queue (as `stage`), step token and unit. */
export function unitJobLogFields(queue: string, job: { run_id: string; unit_id: string; dimension_id: string; step_token: string }): LogContext {
  return { execution_id: job.run_id, dimension_id: job.dimension_id, stage: queue, step_token: job.step_token, unit_id: job.unit_id };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A callback body without the fields the loop fills in (`msg_id`, `worker_id`). */
export type TaskOutcome = DistributiveOmit<WorkerCallback, "msg_id" | "worker_id">;

/**
 * What a pulled task receives besides its payload: the shared context (its signal is aborted when
 * the lease is lost or the worker stops past its grace period; the loop heartbeats every vt/3),
 * and the message it came in.
 */
export interface TaskContext extends BaseTaskContext {
  queue: string;
  msgId: number;
  readCt: number;
  workerId: string;
}

type WorkerTask<P> = Task<P, TaskContext, TaskOutcome>;

/** Everything queue-specific: how to parse, log, run and report failure. */
export interface QueueTaskDefinition<P> {
  queue: string;
  /** Validates a message body; throws (e.g. ZodError) when it is not a valid payload. */
  parse(raw: unknown): P;
  logFields(payload: P): LogContext;
  run: WorkerTask<P>;
  /**
   * The `*.failed` body for this queue. `payload` is null when the message did not parse: return
   * null when `raw` does not identify the unit to fail (the message is then left for dead-lettering).
   */
  failed(input: { payload: P | null; raw: unknown; error: TaskFailure }): TaskOutcome | null;
}

export interface PullWorkerOptions<P> {
  definition: QueueTaskDefinition<P>;
  queue: WorkerQueue;
  callbacks: CallbackSender;
  logger: Logger;
  workerId: string;
  /** Visibility timeout per read and per heartbeat. Default 60. */
  vtSeconds?: number;
  /** Messages worked on at once. Default 1. */
  concurrency?: number;
  /** Default: a third of the visibility timeout. */
  heartbeatIntervalMs?: number;
  /** Idle polling backs off from min to max while the queue is empty. Default 250 -> 2000. */
  pollIntervalMs?: { min: number; max: number };
  /** Ceiling of the backoff after failed reads. Default 10 s. */
  errorBackoffMaxMs?: number;
  callbackRetryDelaysMs?: readonly number[];
  /**
   * Where the worker says it is alive (worker-heartbeat.ts), with the host and pid it runs as: at
   * start, every `intervalMs` (default 15 s) with the jobs it holds, and once stopped. Unset: no beats.
   */
  presence?: { heartbeats: WorkerHeartbeats; host: string; pid: number; intervalMs?: number };
}

interface InFlight {
  controller: AbortController;
  done: Promise<void>;
}

/** Pulls one queue until stopped. */
export class PullWorker<P> {
  readonly #o: Required<Omit<PullWorkerOptions<P>, "heartbeatIntervalMs" | "presence">> & { heartbeatIntervalMs: number };
  readonly #log: Logger;
  readonly #inFlight = new Set<InFlight>();
  #state: "idle" | "running" | "stopping" | "stopped" = "idle";
  #loop: Promise<void> | null = null;
  #stopping: Promise<void> | null = null;
  #woken = false;
  #wakeWaiter: (() => void) | null = null;
  readonly #presence: HeartbeatLoop | null;

  constructor(options: PullWorkerOptions<P>) {
    const vtSeconds = options.vtSeconds ?? 60;
    if (!Number.isInteger(vtSeconds) || vtSeconds < 1) throw new Error("vtSeconds must be a positive integer");
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("concurrency must be a positive integer");
    this.#o = {
      vtSeconds,
      concurrency,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? heartbeatIntervalMs(vtSeconds),
      pollIntervalMs: options.pollIntervalMs ?? { min: 250, max: 2000 },
      errorBackoffMaxMs: options.errorBackoffMaxMs ?? 10_000,
      callbackRetryDelaysMs: options.callbackRetryDelaysMs ?? DEFAULT_CALLBACK_RETRY_DELAYS_MS,
      definition: options.definition,
      queue: options.queue,
      callbacks: options.callbacks,
      logger: options.logger,
      workerId: options.workerId,
    };
    this.#log = options.logger.child({ queue: options.definition.queue, worker_id: options.workerId });
    const presence = options.presence;
    const beatMs = presence?.intervalMs ?? DEFAULT_BEAT_INTERVAL_MS;
    this.#presence = presence
      ? new HeartbeatLoop({
        heartbeats: presence.heartbeats,
        intervalMs: beatMs,
        logger: this.#log,
        beat: () => ({
          workerId: options.workerId,
          queue: options.definition.queue,
          host: presence.host,
          pid: presence.pid,
          concurrency,
          jobsHeld: Math.min(this.#inFlight.size, concurrency),
          beatIntervalS: Math.max(1, Math.ceil(beatMs / 1000)),
        }),
      })
      : null;
    const retryBudgetMs = this.#o.callbackRetryDelaysMs.reduce((sum, ms) => sum + ms, 0);
    if (retryBudgetMs > vtSeconds * 1000 - this.#o.heartbeatIntervalMs) {
      this.#log.warn(
        { retry_budget_ms: retryBudgetMs, vt_seconds: vtSeconds },
        "callback retries can outlast the lease; a message may be redone while its callback is retried",
      );
    }
  }

  /** Messages being worked on (including their callback delivery). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  get state(): "idle" | "running" | "stopping" | "stopped" {
    return this.#state;
  }

  /** Starts polling in the background. */
  start(): void {
    if (this.#state !== "idle") throw new Error(`cannot start a worker that is ${this.#state}`);
    this.#state = "running";
    this.#log.info({ vt_seconds: this.#o.vtSeconds, concurrency: this.#o.concurrency }, "worker started");
    this.#loop = this.#pollLoop().catch((error) => {
      this.#log.fatal({ err: error }, "poll loop crashed");
    });
    this.#presence?.start();
  }

  /** Polls now instead of waiting out the idle backoff (e.g. on a queue notification). */
  wake(): void {
    this.#woken = true;
    this.#wakeWaiter?.();
  }

  /**
   * Stops reading and waits for in-flight work, callbacks included. With `graceMs`, tasks still
   * running after it are aborted (their messages come back after the visibility timeout).
   */
  stop(options: { graceMs?: number } = {}): Promise<void> {
    if (this.#stopping) return this.#stopping;
    const wasRunning = this.#state === "running";
    this.#state = "stopping";
    this.wake();
    this.#stopping = (async () => {
      if (wasRunning) this.#log.info({ in_flight: this.#inFlight.size }, "worker stopping");
      await this.#loop;
      const all = Promise.allSettled([...this.#inFlight].map((f) => f.done));
      if (options.graceMs !== undefined) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timedOut = await Promise.race([
          all.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), options.graceMs);
          }),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          this.#log.warn({ in_flight: this.#inFlight.size }, "grace period over; aborting in-flight tasks");
          for (const f of this.#inFlight) f.controller.abort(new WorkerStoppingError());
        }
      }
      await all;
      await this.#presence?.stop();
      this.#state = "stopped";
      if (wasRunning) this.#log.info("worker stopped");
    })();
    return this.#stopping;
  }

  /** Sleeps `ms` unless the worker stops meanwhile; a wake-up does not shorten it. */
  async #pause(ms: number): Promise<void> {
    const until = Date.now() + ms;
    for (let left = ms; left > 0 && this.#state === "running"; left = until - Date.now()) await this.#idle(left);
  }

  /** Sleeps up to `ms` (forever when null) or until woken; true when woken. */
  async #idle(ms: number | null): Promise<boolean> {
    if (this.#woken) {
      this.#woken = false;
      return true;
    }
    let woken = false;
    await new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (byWake: boolean) => {
        clearTimeout(timer);
        this.#wakeWaiter = null;
        woken = byWake;
        resolve();
      };
      if (ms !== null) timer = setTimeout(() => finish(false), ms);
      this.#wakeWaiter = () => finish(true);
    });
    this.#woken = false;
    return woken;
  }

  async #pollLoop(): Promise<void> {
    const { min, max } = this.#o.pollIntervalMs;
    let idleDelay = min;
    // A database that refuses reads must not be polled at once again, nor cost a log line per attempt.
    const backoff = new Backoff({ initialMs: min, maxMs: Math.max(min, this.#o.errorBackoffMaxMs) });
    const failures = new FailureLog(this.#log, { subject: "queue read", level: "error" });
    while (this.#state === "running") {
      const free = this.#o.concurrency - this.#inFlight.size;
      if (free <= 0) {
        await this.#idle(null);
        continue;
      }
      let messages: QueueMessage[];
      try {
        messages = await this.#o.queue.read(this.#o.definition.queue, this.#o.vtSeconds, free);
        backoff.reset();
        failures.succeeded();
      } catch (error) {
        const retryInMs = backoff.next();
        failures.failed(error, { retry_in_ms: retryInMs });
        // A wake-up (a queue notification) does not cut the wait short: only the wait paces the retries.
        await this.#pause(retryInMs);
        continue;
      }
      // Messages already read are leased to this worker: work them even if a stop came meanwhile.
      for (const message of messages) this.#launch(message);
      if (messages.length > 0) {
        idleDelay = min;
        continue;
      }
      const woken = await this.#idle(idleDelay);
      idleDelay = woken ? min : Math.min(idleDelay * 2, max);
    }
  }

  #launch(message: QueueMessage): void {
    const controller = new AbortController();
    const entry: InFlight = { controller, done: Promise.resolve() };
    entry.done = this.#process(message, controller)
      .catch((error) => {
        this.#log.error({ err: error, msg_id: message.msg_id, status: "failed" }, "unexpected error while handling a message");
      })
      .finally(() => {
        this.#inFlight.delete(entry);
        this.#wakeWaiter?.();
      });
    this.#inFlight.add(entry);
  }

  async #process(message: QueueMessage, controller: AbortController): Promise<void> {
    const { definition, workerId } = this.#o;
    const msgLog = this.#log.child({ msg_id: message.msg_id, read_ct: message.read_ct });
    const lease = new Lease(this.#o.queue, definition.queue, message.msg_id, this.#o.vtSeconds, this.#o.heartbeatIntervalMs, controller, msgLog);
    try {
      let payload: P;
      try {
        payload = definition.parse(message.message);
      } catch (error) {
        const failure: TaskFailure = {
          message: oneLineMessage(`invalid ${definition.queue} message: ${toTaskFailure(error).message}`, MAX_FAILURE_MESSAGE),
          retriable: false,
        };
        const outcome = definition.failed({ payload: null, raw: message.message, error: failure });
        if (!outcome) {
          msgLog.error({ error: failure.message, status: "failed" }, "invalid message with no identifiable unit; leaving it for dead-lettering");
          return;
        }
        msgLog.error({ error: failure.message, status: "failed" }, "invalid message; reporting it as failed");
        await lease.release();
        await this.#deliver(message, outcome, msgLog, controller.signal);
        return;
      }

      const log = msgLog.child(definition.logFields(payload));
      const ctx: TaskContext = {
        logger: log,
        signal: controller.signal,
        heartbeat: () => lease.extend(),
        queue: definition.queue,
        msgId: message.msg_id,
        readCt: message.read_ct,
        workerId,
      };
      const startedAt = performance.now();
      let outcome: TaskOutcome | null;
      // Crash tests kill the worker here: a job that takes its worker down before any report.
      failpoint(`worker.${definition.queue}.before-task`);
      try {
        outcome = await definition.run(payload, ctx);
        log.info({
          kind: outcome.kind,
          duration_ms: Math.round(performance.now() - startedAt),
          status: outcome.kind.endsWith(".failed") ? "failed" : "succeeded",
        }, "task finished");
      } catch (error) {
        if (controller.signal.aborted) {
          log.warn(
            { reason: describeUnknown(controller.signal.reason), status: "retrying" },
            "task abandoned; the message comes back after its visibility timeout",
          );
          return;
        }
        const failure = toTaskFailure(error);
        log.error({ err: error, retriable: failure.retriable, duration_ms: Math.round(performance.now() - startedAt), status: "failed" }, "task failed");
        outcome = definition.failed({ payload, raw: message.message, error: failure });
        if (!outcome) return;
      }
      await lease.release();
      await this.#deliver(message, outcome, log, controller.signal);
    } finally {
      lease.stop();
    }
  }

  async #deliver(message: QueueMessage, outcome: TaskOutcome, log: Logger, signal: AbortSignal): Promise<DeliveryOutcome> {
    const parsed = WorkerCallback.safeParse({ ...outcome, msg_id: message.msg_id, worker_id: this.#o.workerId });
    let body: WorkerCallback;
    if (parsed.success) {
      body = parsed.data;
    } else {
      // A task built a body the contract refuses: a bug, reported as a final failure when possible.
      const failure: TaskFailure = {
        message: oneLineMessage(`invalid callback body: ${toTaskFailure(parsed.error).message}`, MAX_FAILURE_MESSAGE),
        retriable: false,
      };
      log.error({ error: failure.message, status: "failed" }, "task produced an invalid callback body");
      const fallback = this.#o.definition.failed({ payload: null, raw: message.message, error: failure });
      const retry = fallback && WorkerCallback.safeParse({ ...fallback, msg_id: message.msg_id, worker_id: this.#o.workerId });
      if (!retry || !retry.success) return "rejected";
      body = retry.data;
    }
    const webhookId = callbackWebhookId(this.#o.definition.queue, message.msg_id, message.read_ct, body.kind);
    return await deliverCallback(this.#o.callbacks, { webhookId, body }, { logger: log, signal, retryDelaysMs: this.#o.callbackRetryDelaysMs });
  }
}
