/**
 * What the development scripts with numeric options (the soak, the scale bench) share when they
 * read their arguments: the error a wrong argument raises (the script prints it with its usage
 * and exits 2) and the whole-number reading with bounds.
 */

export class UsageError extends Error {}

/** `--name`'s whole number from `min` to `max`; `fallback` when it is absent, else it is required. */
export function wholeNumber(name: string, raw: string | undefined, min: number, max: number, fallback?: number): number {
  if (raw === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError(`--${name} is required`);
  }
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new UsageError(`--${name} must be from ${min} to ${max}, got ${value}`);
  return value;
}
