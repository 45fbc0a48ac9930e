/** Dead letters: jobs that used up their attempts, kept with their payload until an operator retries them. */
import { z } from "zod";
import { DeadLetterRetry } from "../../contracts/operator.ts";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow } from "./query.ts";

/** A row of mdame.dead_letters (bigint columns as numbers: pgmq ids stay far below 2^53). */
const DeadLetterRow = z.object({
  id: z.coerce.number().int().positive(),
  queue_name: z.string(),
  msg_id: z.coerce.number().int(),
  read_ct: z.number().int(),
  payload: z.unknown(),
  last_error: z.string(),
  unit_id: z.string().uuid().nullable(),
  created_at: z.date(),
  retried_at: z.date().nullable(),
  retried_msg_id: z.coerce.number().int().nullable(),
}).strict();
type DeadLetterRow = z.infer<typeof DeadLetterRow>;

/** The most recent dead letters, newest first (at most 500). */
export function listDeadLetters(sql: Queryable, limit: number): Promise<DeadLetterRow[]> {
  return manyRows("list_dead_letters", DeadLetterRow, sql`select * from mdame.list_dead_letters(${limit}::integer)`);
}

/** Queues a dead letter's payload again, once, putting its unit (and run) back where the work left off. */
export async function retryDeadLetter(sql: Queryable, id: string): Promise<DeadLetterRetry> {
  const row = await oneRow("retry_dead_letter", z.object({ result: DeadLetterRetry }).strict(), sql`select mdame.retry_dead_letter(${id}::bigint) as result`);
  return row.result;
}
