import type { z } from "zod";

/**
 * An answer parsed by its contract before it leaves, as the clients parse it on arrival. A mismatch
 * is the engine's fault, not the caller's: a plain Error (500 with an id in the log), never the
 * ZodError the onError turns into 400.
 */
export function answer<T extends z.ZodType>(schema: T, value: z.input<T>, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} broke its contract: ${parsed.error.message}`);
  return parsed.data;
}
