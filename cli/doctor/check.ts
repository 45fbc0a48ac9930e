/**
 * What a doctor check reports, and how a check runs: each with its own time limit, so one
 * provider that never answers cannot hold up the report.
 */

/** ok: nothing to do; warn: works, but worth a look; fail: the engine will not work until fixed. */
type CheckStatus = "ok" | "warn" | "fail";

/** One line of the report. */
export interface CheckResult {
  /** The family the check belongs to: environment, secrets, database, providers. */
  family: string;
  /** Short stable name, e.g. `gemini`, `pg_cron`, `WEBHOOK_SECRET`. */
  name: string;
  status: CheckStatus;
  /** What was found, in one line. Never holds a secret value. */
  message: string;
  /** How to fix it, when status is not ok. */
  fix?: string;
}

export const ok = (family: string, name: string, message: string): CheckResult => ({ family, name, status: "ok", message });
export const warn = (family: string, name: string, message: string, fix?: string): CheckResult => ({ family, name, status: "warn", message, fix });
export const fail = (family: string, name: string, message: string, fix?: string): CheckResult => ({ family, name, status: "fail", message, fix });

/** A check ran out of time. */
class CheckTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms / 1000} s`);
    this.name = "CheckTimeoutError";
  }
}

/**
 * Runs `work` with an AbortSignal that fires after `ms`; rejects with CheckTimeoutError then, even
 * when the work ignores the signal.
 */
export async function withTimeout<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new CheckTimeoutError(ms));
      reject(new CheckTimeoutError(ms));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The message of anything thrown, following `cause` to the network error underneath. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts = [error.message];
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    const code = (cause as { code?: string }).code;
    const text = code && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
    if (text && !parts.some((p) => p.includes(text))) parts.push(text);
    cause = (cause as { cause?: unknown }).cause;
  }
  return parts.join(": ").replace(/\s+/g, " ").trim();
}

/** True when an error says nothing answered: refused, reset, unresolvable host, timeout. */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof CheckTimeoutError) return true;
  const text = describeError(error);
  return /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|Unable to connect|fetch failed|socket|connection (was )?(refused|closed)|getaddrinfo|ConnectionRefused|FailedToOpenSocket|timed? ?out|Was there a typo/i
    .test(text);
}
