/**
 * The one retry pacing of the engine's loops (the edge host's tick and listener, the pull workers'
 * queue reads, the supervisor's restarts): exponential with full jitter, capped, reset on success.
 * The n-th consecutive failure waits a uniformly random time between `initialMs` and
 * `min(maxMs, initialMs * 2^(n-1))`, so loops that fail together spread out, and no loop retries
 * more often than once per `initialMs` however fast its calls fail.
 */
interface BackoffOptions {
  /** The wait after the first failure, and the least any wait is. */
  initialMs: number;
  /** The ceiling of every wait. */
  maxMs: number;
  /** A number in [0, 1); Math.random unless a test injects one. */
  random?: () => number;
}

export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;
  #failures = 0;

  constructor(options: BackoffOptions) {
    if (!(options.initialMs > 0) || !(options.maxMs >= options.initialMs)) {
      throw new Error("backoff needs 0 < initialMs <= maxMs");
    }
    this.#initialMs = options.initialMs;
    this.#maxMs = options.maxMs;
    this.#random = options.random ?? Math.random;
  }

  /** Consecutive failures since the last success. */
  get failures(): number {
    return this.#failures;
  }

  /** Counts one more failure and returns how long to wait before the next attempt. */
  next(): number {
    this.#failures += 1;
    return this.again();
  }

  /** The ceiling of the waits after the failures counted so far (`initialMs` before any). */
  get ceilingMs(): number {
    // The exponent stops growing once the ceiling is reached, so a long outage cannot overflow it.
    return Math.min(this.#maxMs, this.#initialMs * 2 ** Math.min(Math.max(this.#failures - 1, 0), 52));
  }

  /**
   * Another wait under the same ceiling, without counting a failure: for attempts that failed
   * together (every connection of a pool when the server restarts) and are one failure, not many.
   */
  again(): number {
    const r = Math.min(Math.max(this.#random(), 0), 1);
    return Math.round(this.#initialMs + r * (this.ceilingMs - this.#initialMs));
  }

  /** A success: the next failure starts from `initialMs` again. */
  reset(): void {
    this.#failures = 0;
  }
}

/**
 * The wait before the n-th retry of side work after an outage (a 5xx, a 429, no answer): uniform in
 * [60 s, min(1 h, 60 s * 2^(n-1))], full jitter. The analytics fetches and the thumbnail sets use it.
 */
export function outageDelayS(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(3600, 60 * 2 ** Math.max(0, attempt - 1));
  return Math.round(60 + (ceiling - 60) * random());
}
