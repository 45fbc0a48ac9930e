/**
 * Error classes shared by every provider module. Callers decide whether to retry from the class,
 * never from the message (docs/conventions.md, "Errors and logs").
 */

/** Common base: which provider failed and, for HTTP providers, the status it answered. */
export class ProviderError extends Error {
  readonly provider: string;
  readonly status?: number;
  /** True when the same call may succeed later (outage, overload, dropped connection). */
  readonly retriable: boolean;
  /** The provider's own reason code when its answer names one (YouTube's `quotaExceeded`, OAuth's `invalid_grant`). */
  readonly apiReason?: string;

  constructor(provider: string, message: string, options: { status?: number; retriable: boolean; cause?: unknown; reason?: string }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProviderError";
    this.provider = provider;
    this.status = options.status;
    this.retriable = options.retriable;
    this.apiReason = options.reason;
  }
}

/**
 * The provider could not be reached or answered 429/5xx, or a stream ended early. Retriable: a
 * bounded retry with backoff is the right response.
 */
export class ProviderUnavailableError extends ProviderError {
  constructor(provider: string, message: string, options: { status?: number; cause?: unknown; reason?: string } = {}) {
    super(provider, message, { ...options, retriable: true });
    this.name = "ProviderUnavailableError";
  }
}

/**
 * The provider refused the request (4xx other than 429: bad credentials, invalid input). Repeating
 * the same call will fail the same way.
 */
export class ProviderRejectedError extends ProviderError {
  constructor(provider: string, message: string, options: { status?: number; cause?: unknown; reason?: string } = {}) {
    super(provider, message, { ...options, retriable: false });
    this.name = "ProviderRejectedError";
  }
}

/** Maps an HTTP status of a failed call to the matching class. */
export function errorForStatus(provider: string, status: number, message: string, cause?: unknown, reason?: string): ProviderError {
  if (status === 429 || status >= 500) return new ProviderUnavailableError(provider, message, { status, cause, reason });
  return new ProviderRejectedError(provider, message, { status, cause, reason });
}
