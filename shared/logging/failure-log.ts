import type { Logger } from "./logger.ts";

/**
 * Bounded logging for a call a loop retries (a tick, a queue read, a restart): the first occurrence
 * of each distinct failure in a streak is logged, repeats are only counted and summarised in at most
 * one line per `summaryIntervalMs`, and the first success after a streak logs
 * "<subject> recovered after N failures". An outage of any length costs a handful of lines.
 */
interface FailureLogOptions {
  /** What is being retried, as log lines name it: "tick" gives "tick failed", "tick still failing". */
  subject: string;
  /** Level of the per-failure lines. Default "warn". */
  level?: "warn" | "error";
  /** Default 60 s. */
  summaryIntervalMs?: number;
  /** Milliseconds; Date.now unless a test injects a clock. */
  now?: () => number;
}

/** Distinct failures remembered per streak; past it, new kinds are counted like repeats. */
const MAX_DISTINCT = 32;

/** How a failure is told apart from another: its class and message, or the given text. */
function failureKey(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

export class FailureLog {
  readonly #log: Logger;
  readonly #subject: string;
  readonly #level: "warn" | "error";
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #seen = new Set<string>();
  #failures = 0;
  #unreported = 0;
  #startedAt = 0;
  #lastLineAt = 0;

  constructor(logger: Logger, options: FailureLogOptions) {
    this.#log = logger;
    this.#subject = options.subject;
    this.#level = options.level ?? "warn";
    this.#intervalMs = options.summaryIntervalMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Failures in the current streak. */
  get failures(): number {
    return this.#failures;
  }

  /** Records one failed attempt; `fields` go on the line when this one is logged. */
  failed(error: unknown, fields: Record<string, unknown> = {}): void {
    const now = this.#now();
    if (this.#failures === 0) this.#startedAt = now;
    this.#failures += 1;
    const key = failureKey(error);
    const detail = error instanceof Error ? { err: error } : { error: key };
    if (!this.#seen.has(key) && this.#seen.size < MAX_DISTINCT) {
      this.#seen.add(key);
      this.#lastLineAt = now;
      this.#log[this.#level]({ status: "retrying", ...fields, ...detail, failures: this.#failures }, `${this.#subject} failed`);
      return;
    }
    this.#unreported += 1;
    if (now - this.#lastLineAt < this.#intervalMs) return;
    this.#lastLineAt = now;
    this.#log[this.#level]({
      status: "retrying",
      ...fields,
      ...detail,
      failures: this.#failures,
      repeats: this.#unreported,
      distinct: this.#seen.size,
      failing_for_ms: now - this.#startedAt,
    }, `${this.#subject} still failing`);
    this.#unreported = 0;
  }

  /** Records a successful attempt; ends a streak with one line. */
  succeeded(fields: Record<string, unknown> = {}): void {
    if (this.#failures === 0) return;
    const failures = this.#failures;
    this.#log.info(
      { status: "succeeded", ...fields, failures, failing_for_ms: this.#now() - this.#startedAt },
      `${this.#subject} recovered after ${failures} failure${failures === 1 ? "" : "s"}`,
    );
    this.#failures = 0;
    this.#unreported = 0;
    this.#seen.clear();
  }
}
