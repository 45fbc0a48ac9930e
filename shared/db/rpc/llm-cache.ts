/** The LLM call cache's RPCs: answers stored under sha256(model + canonical prompt + generation params). */
import { z } from "zod";
import type { Sql } from "../client.ts";
import { maybeRow } from "./query.ts";

/**
 * The answer stored under `key`, or null. It is what a boundary once validated, returned as
 * stored: the caller validates it again against its own schema, since a schema may have changed.
 */
export async function getLlmCache(sql: Sql, key: string): Promise<unknown> {
  const row = await maybeRow("get_llm_cache", z.object({ response: z.unknown() }).strict(), sql`select mdame.get_llm_cache(${key}) as response`);
  return row?.response ?? null;
}

/** Stores a validated answer under its call key, replacing an answer stored before. */
export async function storeLlmCache(sql: Sql, key: string, model: string, response: unknown): Promise<void> {
  await maybeRow(
    "store_llm_cache",
    z.object({ stored: z.unknown() }).strict(),
    sql`select mdame.store_llm_cache(${key}, ${model}, ${sql.json(response as never)}) as stored`,
  );
}
