import type { Logger } from "../logging/logger.ts";

/**
 * What a pull worker holds while it works on a message: the queue operations it needs and the
 * lease it keeps alive on the message (shared/worker/pull-worker.ts runs the loop around them).
 */

/**
 * How often a holder extends a lease of `leaseS` seconds: every third of it, so two missed beats
 * still leave it held. The pull workers' jobs and the tick's stage tasks beat alike.
 */
export const heartbeatIntervalMs = (leaseS: number): number => Math.floor((leaseS * 1000) / 3);

/** A message as pgmq's `read` returns it. */
export interface QueueMessage {
  msg_id: number;
  read_ct: number;
  enqueued_at: Date;
  vt: Date;
  message: unknown;
}

/** The only queue operations a worker needs. */
export interface WorkerQueue {
  read(queue: string, vtSeconds: number, qty: number): Promise<QueueMessage[]>;
  /** Extends the message's visibility timeout; throws MessageGoneError when it is no longer queued. */
  setVt(queue: string, msgId: number, vtSeconds: number): Promise<void>;
}

/** The message was archived or deleted (someone completed it); the holder abandons the work. */
export class MessageGoneError extends Error {
  constructor(readonly queue: string, readonly msgId: number) {
    super(`message ${msgId} is no longer in queue ${queue}`);
    this.name = "MessageGoneError";
  }
}

/** The lease ran out without a successful heartbeat; another worker may hold the message now. */
export class LeaseExpiredError extends Error {
  constructor(readonly queue: string, readonly msgId: number) {
    super(`lease on message ${msgId} of ${queue} expired`);
    this.name = "LeaseExpiredError";
  }
}

/** Keeps one message leased: set_vt every interval, abort the task when the lease is lost. */
export class Lease {
  #expiresAt: number;
  #timer: ReturnType<typeof setInterval>;
  #pending: Promise<void> | null = null;
  #stopped = false;

  constructor(
    private readonly queue: WorkerQueue,
    private readonly queueName: string,
    private readonly msgId: number,
    private readonly vtSeconds: number,
    intervalMs: number,
    private readonly controller: AbortController,
    private readonly log: Logger,
  ) {
    this.#expiresAt = Date.now() + vtSeconds * 1000;
    this.#timer = setInterval(() => this.#tick(), intervalMs);
  }

  #tick() {
    // Checked here too, so a set_vt call that hangs cannot keep a lost lease alive.
    if (Date.now() >= this.#expiresAt) {
      this.log.error({ status: "retrying" }, "lease expired; abandoning the work");
      this.#lose(new LeaseExpiredError(this.queueName, this.msgId));
      return;
    }
    void this.extend();
  }

  extend(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#pending ??= this.#extendOnce().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #extendOnce(): Promise<void> {
    const attemptedAt = Date.now();
    try {
      await this.queue.setVt(this.queueName, this.msgId, this.vtSeconds);
      this.#expiresAt = attemptedAt + this.vtSeconds * 1000;
      this.log.debug({ vt_seconds: this.vtSeconds }, "lease extended");
    } catch (error) {
      if (this.#stopped) return;
      if (error instanceof MessageGoneError) {
        this.log.warn({ status: "skipped" }, "message is no longer queued; abandoning the work");
        this.#lose(error);
        return;
      }
      this.log.warn({ err: error, status: "failed" }, "heartbeat failed");
      if (Date.now() >= this.#expiresAt) this.#tick();
    }
  }

  #lose(reason: Error) {
    this.stop();
    this.controller.abort(reason);
  }

  stop() {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  /**
   * Stops heartbeats and waits for one in progress. Called before the callback goes out: the
   * receiving RPC archives the message or sets its retry backoff with set_vt, and a late heartbeat
   * must not overwrite that. What is left of the lease (at least 2/3 of vt) covers the delivery.
   */
  async release(): Promise<void> {
    this.stop();
    await this.#pending;
  }
}
