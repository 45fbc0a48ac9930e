import type { z } from "zod";
import { llmCallKey } from "../../shared/hashing.ts";
import type { PipelineDeps } from "./deps.ts";

/**
 * An LLM call through the cache: the key is sha256(model + prompt + generation params), so a rerun
 * of a step reuses the answer it already paid for. Cached answers are validated again on the way out.
 */
export async function generateJsonCached<T>(
  deps: Pick<PipelineDeps, "sql" | "llm">,
  prompt: string,
  schema: z.ZodType<T>,
  params: { temperature: number; seed?: number },
): Promise<T> {
  const key = await llmCallKey(deps.llm.model, prompt, params);
  const [cached] = await deps.sql`select response from mdame.llm_cache where cache_key = ${key}`;
  if (cached) {
    const parsed = schema.safeParse(cached.response);
    if (parsed.success) return parsed.data;
  }
  const { value } = await deps.llm.generateJson(prompt, schema, params);
  await deps.sql`insert into mdame.llm_cache (cache_key, model, response) values (${key}, ${deps.llm.model}, ${deps.sql.json(value as never)})
                 on conflict (cache_key) do update set response = excluded.response, created_at = now()`;
  return value;
}
