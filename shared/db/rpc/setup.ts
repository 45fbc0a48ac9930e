/** What `mdame doctor` checks of the database's setup: pgmq and its queues, the pg_cron schedules. */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow } from "./query.ts";

/** Whether pgmq can send, and which of the asked queues exist. */
export const QueueSetup = z.object({ send: z.boolean(), queues: z.array(z.string()) }).strict();
export type QueueSetup = z.infer<typeof QueueSetup>;

/** A pg_cron job of the engine (`mdame-*`). */
export const Schedule = z.object({ jobname: z.string(), schedule: z.string(), active: z.boolean() }).strict();
export type Schedule = z.infer<typeof Schedule>;

export function getQueueSetup(sql: Queryable, queues: readonly string[]): Promise<QueueSetup> {
  return oneRow("get_queue_setup", QueueSetup, sql`select send, queues from mdame.get_queue_setup(${queues as string[]}::text[])`);
}

/** The engine's schedules in the order they were created; none without pg_cron. */
export function listSchedules(sql: Queryable): Promise<Schedule[]> {
  return manyRows("list_schedules", Schedule, sql`select jobname, schedule, active from mdame.list_schedules()`);
}
