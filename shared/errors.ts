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

/**
 * The one retry rule of every runner (the stage runner and the pull workers): a NonRetriableError,
 * or any error that carries `retriable: false` (a provider's refusal, shared/providers/errors.ts),
 * is final; everything else may be retried within the task's bounded attempts.
 */
export function isRetriable(error: Error): boolean {
  if (error instanceof NonRetriableError) return false;
  return (error as { retriable?: unknown }).retriable !== false;
}
