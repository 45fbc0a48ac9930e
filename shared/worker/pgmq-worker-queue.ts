import type { Queryable } from "../db/client.ts";
import { extendWorkerJob, readWorkerJobs } from "../db/rpc/worker-jobs.ts";
import { MessageGoneError, type QueueMessage, type WorkerQueue } from "./lease.ts";

/** pgmq ids are bigint; they stay far below 2^53 in practice, and anything beyond is refused, never rounded. */
export function toSafeMsgId(value: unknown): number {
  const n = typeof value === "bigint" ? Number(value) : typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0 || (typeof value === "string" && String(n) !== value.trim())) {
    throw new Error(`pgmq msg_id ${String(value)} is not a safe positive integer`);
  }
  return n;
}

function toDate(value: unknown): Date {
  const d = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(d.getTime())) throw new Error(`invalid timestamp from pgmq: ${String(value)}`);
  return d;
}

interface MessageRow {
  msg_id: unknown;
  read_ct: unknown;
  enqueued_at: unknown;
  vt: unknown;
  message: unknown;
}

/** Maps one row of `pgmq.read` to a QueueMessage. */
export function toQueueMessage(row: MessageRow): QueueMessage {
  return {
    msg_id: toSafeMsgId(row.msg_id),
    read_ct: Number(row.read_ct),
    enqueued_at: toDate(row.enqueued_at),
    vt: toDate(row.vt),
    // postgres.js parses jsonb; a json-typed column or a text cast would arrive as a string.
    message: typeof row.message === "string" ? JSON.parse(row.message) : row.message,
  };
}

/**
 * WorkerQueue over pgmq (the extension or the project's compatible SQL), through postgres.js.
 * Reads go through mdame.read_worker_jobs, which reads as pgmq.read does but dead-letters a job
 * read more often than its stage allows instead of handing it out: a job that kills its worker
 * every time stops coming back once its attempts are used up. Heartbeats go through
 * mdame.extend_worker_job: the engine role the workers connect as has no access to pgmq itself.
 */
export class PgmqWorkerQueue implements WorkerQueue {
  constructor(private readonly sql: Queryable) {}

  async read(queue: string, vtSeconds: number, qty: number): Promise<QueueMessage[]> {
    return (await readWorkerJobs(this.sql, queue, vtSeconds, qty)).map(toQueueMessage);
  }

  async setVt(queue: string, msgId: number, vtSeconds: number): Promise<void> {
    if (!(await extendWorkerJob(this.sql, queue, msgId, vtSeconds))) throw new MessageGoneError(queue, msgId);
  }
}
