/**
 * The SQLSTATE codes the RPCs raise (see the migrations), mapped once to error classes callers act on.
 */
export class DbRuleError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = new.target.name;
  }
}
export class EnvironmentMismatchError extends DbRuleError {}
export class LockBusyError extends DbRuleError {}
export class QuotaExhaustedError extends DbRuleError {}
export class NotFoundError extends DbRuleError {}
export class WrongStateError extends DbRuleError {}
/** A setting the database cannot take although its contract did (a time zone its zone list lacks). */
export class InvalidSettingError extends DbRuleError {}

const BY_CODE: Record<string, new (code: string, message: string) => DbRuleError> = {
  MDE01: EnvironmentMismatchError,
  MDL01: LockBusyError,
  MDQ01: QuotaExhaustedError,
  MDN01: NotFoundError,
  MDS01: WrongStateError,
  MDV01: InvalidSettingError,
};

/** Maps a postgres.js error with one of the engine's codes to its class; anything else is returned as is. */
export function mapDbError(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && code in BY_CODE) {
    return new BY_CODE[code](code, (error as Error).message);
  }
  return error;
}

/** Runs a database call and rethrows engine errors as their classes. */
export async function rpc<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw mapDbError(error);
  }
}
