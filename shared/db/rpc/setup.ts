/** What `mdame doctor` checks of the database's setup: pgmq and its queues, the pg_cron schedules. */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow } from "./query.ts";

/** Whether pgmq can send, and which of the asked queues exist. */
const QueueSetup = z.object({ send: z.boolean(), queues: z.array(z.string()) }).strict();
type QueueSetup = z.infer<typeof QueueSetup>;

/** A job of `mdame.engine_jobs` and its state in cron.job: `schedule` and `active` null when it is not scheduled. */
const Schedule = z.object({ jobname: z.string(), schedule: z.string().nullable(), active: z.boolean().nullable() }).strict();
type Schedule = z.infer<typeof Schedule>;

export function getQueueSetup(sql: Queryable, queues: readonly string[]): Promise<QueueSetup> {
  return oneRow("get_queue_setup", QueueSetup, sql`select send, queues from mdame.get_queue_setup(${queues as string[]}::text[])`);
}

/** Every engine job, the scheduled ones in the order they were created; none without pg_cron. */
export function listSchedules(sql: Queryable): Promise<Schedule[]> {
  return manyRows("list_schedules", Schedule, sql`select jobname, schedule, active from mdame.list_schedules()`);
}
