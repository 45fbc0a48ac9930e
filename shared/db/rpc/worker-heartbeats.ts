/**
 * The pull workers' heartbeats (mdame.worker_heartbeats): a beat at start and every interval with
 * the jobs held, and a clean stop. The queues page and mdame.queues_without_workers read them.
 */
import { z } from "zod";
import { OpsQueueWorker } from "../../contracts/ops.ts";
import type { Queryable } from "../client.ts";
import { manyRows, oneRow } from "./query.ts";

/**
 * A row of mdame.worker_heartbeats (database clock): the worker's figures as the queues page shows
 * them (OpsQueueWorker), its queue, its beat interval and its times.
 */
export const WorkerHeartbeatRow = OpsQueueWorker.pick({ worker_id: true, host: true, pid: true, concurrency: true, jobs_held: true }).extend({
  queue_name: z.string(),
  beat_interval_s: z.number().int(),
  started_at: z.date(),
  last_beat_at: z.date(),
  stopped_at: z.date().nullable(),
}).strict();
export type WorkerHeartbeatRow = z.infer<typeof WorkerHeartbeatRow>;

/** What one beat says about its worker. */
export interface WorkerBeat {
  workerId: string;
  queue: string;
  host: string;
  pid: number;
  concurrency: number;
  jobsHeld: number;
  beatIntervalS: number;
}

/**
 * Records a beat; the row as it stands after (unchanged once the worker recorded its stop). An id
 * another process holds is refused with WrongStateError (MDS01).
 */
export function recordWorkerHeartbeat(sql: Queryable, b: WorkerBeat): Promise<WorkerHeartbeatRow> {
  return oneRow(
    "record_worker_heartbeat",
    WorkerHeartbeatRow,
    sql`
    select * from mdame.record_worker_heartbeat(${b.workerId}::text, ${b.queue}::text, ${b.host}::text, ${b.pid}::integer,
      ${b.concurrency}::integer, ${b.jobsHeld}::integer, ${b.beatIntervalS}::integer)`,
  );
}

/** Records a clean stop; NotFoundError (MDN01) for a worker that never beat. */
export function recordWorkerStop(sql: Queryable, workerId: string): Promise<WorkerHeartbeatRow> {
  return oneRow("record_worker_stop", WorkerHeartbeatRow, sql`select * from mdame.record_worker_stop(${workerId}::text)`);
}

/** A worker queue with jobs waiting and no live worker (mdame.queues_without_workers). */
const QueueWithoutWorkers = z.object({
  queue_name: z.string(),
  waiting: z.coerce.number().int(),
  oldest_waiting_s: z.coerce.number().int().nullable(),
  workers_known: z.coerce.number().int(),
  last_beat_at: z.date().nullable(),
}).strict();
type QueueWithoutWorkers = z.infer<typeof QueueWithoutWorkers>;

/** The worker queues with jobs waiting and no worker that beat within `staleAfterS` (default: each worker's three beat intervals). */
export function queuesWithoutWorkers(sql: Queryable, staleAfterS?: number): Promise<QueueWithoutWorkers[]> {
  return manyRows(
    "queues_without_workers",
    QueueWithoutWorkers,
    sql`
    select * from mdame.queues_without_workers(${staleAfterS === undefined ? null : `${staleAfterS} seconds`}::interval)`,
  );
}
