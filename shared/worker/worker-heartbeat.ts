import type { Queryable } from "../db/client.ts";
import { recordWorkerHeartbeat, recordWorkerStop, type WorkerBeat } from "../db/rpc/worker-heartbeats.ts";
import { FailureLog } from "../logging/failure-log.ts";
import type { Logger } from "../logging/logger.ts";

export type { WorkerBeat } from "../db/rpc/worker-heartbeats.ts";

/**
 * A pull worker's presence, apart from the leases on its messages: it says it is alive, with the
 * jobs it holds, at start and every interval, and says so once more when it stops cleanly. The
 * queues page lists these beats per queue; mdame.queues_without_workers alerts on their absence.
 */
export interface WorkerHeartbeats {
  beat(beat: WorkerBeat): Promise<void>;
  stopped(workerId: string): Promise<void>;
}

/** WorkerHeartbeats in mdame.worker_heartbeats (record_worker_heartbeat, record_worker_stop). */
export class PgWorkerHeartbeats implements WorkerHeartbeats {
  constructor(private readonly sql: Queryable) {}

  async beat(beat: WorkerBeat): Promise<void> {
    await recordWorkerHeartbeat(this.sql, beat);
  }

  async stopped(workerId: string): Promise<void> {
    await recordWorkerStop(this.sql, workerId);
  }
}

/** Default seconds between beats: a worker is stale after three missed ones (mdame.worker_status), 45 s. */
export const DEFAULT_BEAT_INTERVAL_MS = 15_000;

/**
 * Beats now and every `intervalMs` (never two at once) until stopped; a failed beat is logged
 * (once per kind of failure) and the next one tries again. `stop()` waits for a beat in flight,
 * so the stop is always recorded after the worker's last beat.
 */
export class HeartbeatLoop {
  readonly #failures: FailureLog;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<void> = Promise.resolve();
  #running = false;

  constructor(
    private readonly o: { heartbeats: WorkerHeartbeats; intervalMs: number; logger: Logger; beat: () => WorkerBeat },
  ) {
    this.#failures = new FailureLog(o.logger, { subject: "worker heartbeat", level: "warn" });
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#tick();
  }

  /** Stops beating and records the stop; never throws (a worker's stop must not fail on it). */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#inFlight;
    const { workerId } = this.o.beat();
    try {
      await this.o.heartbeats.stopped(workerId);
    } catch (error) {
      this.o.logger.warn({ err: error }, "could not record the worker's stop; it shows as stale once its beats age");
    }
  }

  #tick(): void {
    this.#inFlight = this.o.heartbeats.beat(this.o.beat()).then(
      () => this.#failures.succeeded(),
      (error) => this.#failures.failed(error, { retry_in_ms: this.o.intervalMs }),
    ).finally(() => {
      if (this.#running) this.#timer = setTimeout(() => this.#tick(), this.o.intervalMs);
    });
  }
}
