/**
 * The SQLSTATE codes the RPCs raise (see the migrations), mapped once to error classes callers act on.
 */
class DbRuleError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = new.target.name;
  }
}
export class EnvironmentMismatchError extends DbRuleError {}
export class LockBusyError extends DbRuleError {}
/**
 * The account cannot make a YouTube call now; `notBefore` is when it may try again (the refusal's
 * DETAIL carries it). Never a failure of the work: publishing defers and retries after that time.
 */
export class QuotaExhaustedError extends DbRuleError {
  constructor(code: string, message: string, readonly notBefore: Date | null = null) {
    super(code, message);
  }
}
/** MDQ02: the Google project's bucket (upload calls or units) is spent until the next Pacific midnight. */
export class QuotaBucketSpentError extends QuotaExhaustedError {}
/** MDQ03: the channel's rolling 24-hour upload cap is reached until its oldest upload ages out. */
export class ChannelCapReachedError extends QuotaExhaustedError {}
/** MDQ04: the account's TikTok rate window for the call is full until its oldest call ages out. */
export class RateWindowFullError extends QuotaExhaustedError {}
export class NotFoundError extends DbRuleError {}
export class WrongStateError extends DbRuleError {}
/** A setting the database cannot take although its contract did (a time zone its zone list lacks). */
export class InvalidSettingError extends DbRuleError {}

const BY_CODE: Record<string, new (code: string, message: string, notBefore?: Date | null) => DbRuleError> = {
  MDE01: EnvironmentMismatchError,
  MDL01: LockBusyError,
  MDQ02: QuotaBucketSpentError,
  MDQ03: ChannelCapReachedError,
  MDQ04: RateWindowFullError,
  MDN01: NotFoundError,
  MDS01: WrongStateError,
  MDV01: InvalidSettingError,
};

/** Maps a postgres.js error with one of the engine's codes to its class; anything else is returned as is. */
export function mapDbError(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && code in BY_CODE) {
    return new BY_CODE[code](code, (error as Error).message, notBeforeOf((error as { detail?: unknown }).detail));
  }
  return error;
}

/** The `not_before` of a refusal's DETAIL (`{"not_before": "<timestamptz>", ...}`), or null. */
function notBeforeOf(detail: unknown): Date | null {
  if (typeof detail !== "string") return null;
  try {
    const value = (JSON.parse(detail) as { not_before?: unknown }).not_before;
    const at = typeof value === "string" ? new Date(value) : null;
    return at && !Number.isNaN(at.getTime()) ? at : null;
  } catch {
    return null;
  }
}

/** Runs a database call and rethrows engine errors as their classes. */
export async function rpc<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw mapDbError(error);
  }
}
