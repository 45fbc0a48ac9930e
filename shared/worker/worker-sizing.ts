import process from "node:process";
import { z } from "zod";

/**
 * The sizing variables of the pull workers (GPU_CONCURRENCY, RENDER_CONCURRENCY,
 * RENDER_FFMPEG_THREADS): one parser, so each refuses a bad value with the same clear message,
 * and a blank variable means its default.
 */

/** A whole number from 1 to `max` read from the variable `name`; undefined when unset. */
export function sizingVariable(name: string, max: number) {
  const range = `${name} must be 1 to ${max}`;
  return z.coerce.number({ error: `${name} must be a whole number` }).int(`${name} must be a whole number`).min(1, range).max(max, range).optional();
}

/** Parses the named variables of `env` with `schema`; unset or blank ones are left out. */
export function parseSizingEnv<S extends z.ZodObject>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const present = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, env[key]?.trim() || undefined]));
  return schema.parse(present);
}

/** The sizing of a worker at start, or exit 1 with `<component>: cannot start: <what is wrong>`. */
export function sizingOrExit<T>(component: string, size: () => T): T {
  try {
    return size();
  } catch (error) {
    const message = error instanceof z.ZodError ? error.issues.map((i) => i.message).join("; ") : String(error);
    process.stderr.write(`${component}: cannot start: ${message}\n`);
    process.exit(1);
  }
}
