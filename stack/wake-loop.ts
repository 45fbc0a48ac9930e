/**
 * The edge host's wake-ups: each wake (a `mdame_wake` notification, the LISTEN (re)connect, the
 * poll) asks for one pipeline tick over HTTP. Single flight: a wake that arrives while a tick runs
 * asks for one more pass after it. A tick that answers `more` runs again at once; a tick that fails
 * (an error status, a broken answer, a network error) waits out the shared backoff before the next
 * attempt, still holding the flight, so wake-ups during a database outage cannot make it spin, and
 * its failures are logged through a FailureLog (one line per distinct failure, then a count).
 */
import { Backoff } from "../shared/backoff.ts";
import { TickAnswer } from "../shared/contracts/operator.ts";
import { FailureLog } from "../shared/logging/failure-log.ts";
import type { Logger } from "../shared/logging/logger.ts";

export interface WakeLoopOptions {
  /** `<functions url>/pipeline/tick`. */
  tickUrl: string;
  serviceRoleKey: string;
  logger: Logger;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds, for the failure log's summaries. */
  now?: () => number;
  random?: () => number;
  /** Default 500 ms .. 30 s. */
  backoffMs?: { initial: number; max: number };
}

export interface WakeLoop {
  /** Asks for a tick; returns at once. */
  wake(reason: string): void;
  /** No tick starts after this; a running one ends after its current attempt or wait. */
  stop(): void;
  /** Resolves when no tick is running. */
  idle(): Promise<void>;
}

/** The tick endpoint answered something other than a TickAnswer with a 2xx status. */
export class TickFailedError extends Error {
  constructor(readonly status: number, detail: string) {
    super(`tick answered HTTP ${status}${detail ? `: ${detail}` : ""}`);
    this.name = "TickFailedError";
  }
}

const MAX_DETAIL = 200;

function errorText(body: unknown, text: string): string {
  const error = (body as { error?: unknown } | undefined)?.error;
  return (typeof error === "string" ? error : text).slice(0, MAX_DETAIL);
}

export function createWakeLoop(options: WakeLoopOptions): WakeLoop {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const backoff = new Backoff({ initialMs: options.backoffMs?.initial ?? 500, maxMs: options.backoffMs?.max ?? 30_000, random: options.random });
  const failures = new FailureLog(options.logger, { subject: "tick", now: options.now });
  let running: Promise<void> | null = null;
  let wakeAgain = false;
  let stopped = false;

  /** One tick; true when the pipeline has more visible work right now. */
  async function tickOnce(reason: string): Promise<boolean> {
    const response = await fetchImpl(options.tickUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${options.serviceRoleKey}`, "content-type": "application/json" },
      body: JSON.stringify({ reason }),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) throw new TickFailedError(response.status, errorText(body, text));
    const answer = TickAnswer.safeParse(body);
    if (!answer.success) throw new TickFailedError(response.status, `the answer broke its contract: ${text.slice(0, MAX_DETAIL)}`);
    return answer.data.more;
  }

  async function run(firstReason: string): Promise<void> {
    let reason = firstReason;
    do {
      wakeAgain = false;
      try {
        if (await tickOnce(reason)) wakeAgain = true;
        backoff.reset();
        failures.succeeded();
      } catch (error) {
        const retryInMs = backoff.next();
        failures.failed(error, { retry_in_ms: retryInMs });
        await sleep(retryInMs);
        // The work that failed is still there: try again after the wait, wake or not.
        wakeAgain = true;
        reason = "retry";
        continue;
      }
      reason = "again";
    } while (wakeAgain && !stopped);
  }

  return {
    wake(reason) {
      if (stopped) return;
      if (running) {
        wakeAgain = true;
        return;
      }
      // Taken before the first tick starts, so a wake from inside it folds into this flight.
      let release!: () => void;
      running = new Promise<void>((resolve) => (release = resolve));
      run(reason)
        .catch((error) => options.logger.error({ err: error, status: "failed" }, "wake loop crashed"))
        .finally(() => {
          running = null;
          release();
        });
    },
    stop() {
      stopped = true;
    },
    idle: () => running ?? Promise.resolve(),
  };
}
