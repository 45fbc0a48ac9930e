/** Retry intent, expressed with types rather than string matching. */

/** Retrying will not help: the input or the outcome is final. */
export class NonRetriableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NonRetriableError";
  }
}

/** Worth retrying, not before `retryAfterS` seconds. */
export class RetryAfterError extends Error {
  constructor(message: string, readonly retryAfterS: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RetryAfterError";
  }
}

/** Normalises anything thrown into an Error, once, at the edge of a task. */
export function coerceError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  if (typeof thrown === "string") return new Error(thrown);
  try {
    return new Error(JSON.stringify(thrown));
  } catch {
    return new Error(String(thrown));
  }
}

/** Whether a failure should be retried: everything is, unless it says otherwise. */
export function isRetriable(error: Error): boolean {
  return !(error instanceof NonRetriableError);
}
