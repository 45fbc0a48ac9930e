/** Reads a corpus of JSON lines (one example a line, blank lines skipped), naming the line of any error. */
import type { z } from "zod";

/** Parses each non-blank line with `schema`; a bad line throws `<name>:<line>: <what was expected>`. */
export function parseJsonLines<T>(source: string, schema: z.ZodType<T>, expected: string, name = "corpus"): T[] {
  return source.split("\n").flatMap((line, i) => {
    if (line.trim() === "") return [];
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${name}:${i + 1}: not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new Error(`${name}:${i + 1}: expected ${expected}`);
    return [parsed.data];
  });
}
