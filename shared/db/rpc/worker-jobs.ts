/**
 * The Bun workers' queue RPCs (read and heartbeat) and the completions their callbacks end in
 * (functions/worker-callback): each records the result, archives the job and queues what follows,
 * in one transaction that also records the webhook id, so a replayed delivery changes nothing.
 */
import { z } from "zod";
import type { Queryable } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";
import { WorkUnitStage } from "../../contracts/work-unit.ts";
import { Scene } from "./work-units.ts";

/** A pgmq id: postgres.js gives a bigint as text (or as a BigInt when the pool is set up so). */
const PgBigint = z.union([z.string().regex(/^[0-9]+$/), z.bigint()]);

/** A message of a worker queue as mdame.read_worker_jobs hands it out. */
const WorkerJob = z.object({
  msg_id: PgBigint,
  read_ct: z.number().int(),
  enqueued_at: z.date(),
  vt: z.date(),
  message: z.unknown(),
}).strict();
type WorkerJob = z.infer<typeof WorkerJob>;

/** Up to `qty` visible jobs of `queue`, each hidden for `vtSeconds`; jobs out of attempts are dead-lettered instead. */
export function readWorkerJobs(sql: Queryable, queue: string, vtSeconds: number, qty: number): Promise<WorkerJob[]> {
  return manyRows(
    "read_worker_jobs",
    WorkerJob,
    sql`
    select msg_id, read_ct, enqueued_at, vt, message
      from mdame.read_worker_jobs(${queue}::text, ${vtSeconds}::integer, ${qty}::integer)`,
  );
}

/**
 * Whose job a worker message is: a render job's unit, or a visual_generation job's unit and scene.
 * The RPCs refuse (WrongStateError, MDS01) a message that is the job of another.
 */
type WorkerJobOwner = { unitId: string; sceneId?: string };

/**
 * A worker's heartbeat: hides the job `vtSeconds` more; false when the job is gone (completed or
 * dead-lettered). Given its owner, a job of another unit or scene is refused and keeps its timeout.
 */
export async function extendWorkerJob(sql: Queryable, queue: string, msgId: number, vtSeconds: number, owner?: WorkerJobOwner): Promise<boolean> {
  const rows = await manyRows(
    "extend_worker_job",
    z.object({ msg_id: PgBigint }).strict(),
    sql`
    select msg_id from mdame.extend_worker_job(${queue}::text, ${String(msgId)}::bigint, ${vtSeconds}::integer,
      ${owner?.unitId ?? null}::uuid, ${owner?.sceneId ?? null}::uuid) as msg_id`,
  );
  return rows.length > 0;
}

/** One scene, or null. */
export function getScene(sql: Queryable, sceneId: string): Promise<Scene | null> {
  return maybeRow("get_scene", Scene, sql`select * from mdame.get_scene(${sceneId}::uuid)`);
}

/** Records a generated scene; returns the scene as it stands after the call (unchanged on a replay or a late call). */
export function completeVisualJob(
  sql: Queryable,
  p: { msgId: number; sceneId: string; sceneHash: string; assetKey: string; backend: string; cacheHit: boolean; webhookId: string },
): Promise<Scene> {
  return oneRow(
    "complete_visual_job",
    Scene,
    sql`
    select * from mdame.complete_visual_job(${String(p.msgId)}::bigint, ${p.sceneId}::uuid, ${p.sceneHash}::text, ${p.assetKey}::text,
      ${p.backend}::text, ${p.cacheHit}::boolean, ${p.webhookId}::text)`,
  );
}

/**
 * The unit after a render completion: its stage (`publish` when it moved on, else where it already
 * was), and its run and dimension, the fields the callback logs.
 */
const CompletedRender = z.object({ id: z.string().uuid(), stage: WorkUnitStage, run_id: z.string().uuid(), dimension_id: z.string() }).strict();
type CompletedRender = z.infer<typeof CompletedRender>;

/** Records a rendered video and its quality report, and queues the publication. */
export function completeRenderJob(
  sql: Queryable,
  p: { msgId: number; unitId: string; video: Record<string, unknown>; webhookId: string; quality: Record<string, unknown> | null },
): Promise<CompletedRender> {
  return oneRow(
    "complete_render_job",
    CompletedRender,
    sql`
    select id, stage, run_id, dimension_id from mdame.complete_render_job(${String(p.msgId)}::bigint, ${p.unitId}::uuid, ${sql.json(p.video as never)}::jsonb,
      ${p.webhookId}::text, ${p.quality === null ? null : sql.json(p.quality as never)}::jsonb)`,
  );
}

/**
 * What became of a failed job: `retry` (again after the backoff), `dead_letter` (attempts used up,
 * the unit failed), `duplicate` (a replayed delivery) or `gone` (the job or its unit is over).
 */
export const WorkerFailureOutcome = z.enum(["retry", "dead_letter", "duplicate", "gone"]);
export type WorkerFailureOutcome = z.infer<typeof WorkerFailureOutcome>;

/** What became of a failed job, with the unit's run and dimension: the fields its callback logs. */
const FailedJob = z.object({ outcome: WorkerFailureOutcome, run_id: z.string().uuid(), dimension_id: z.string() }).strict();
export type FailedJob = z.infer<typeof FailedJob>;

/**
 * A worker reported a failed job: a render job names its unit, a visual_generation job its unit and
 * scene. A message that is the job of another unit or scene is refused (WrongStateError) untouched.
 */
export function failWorkerJob(
  sql: Queryable,
  p:
    & { msgId: number; error: string; retriable: boolean; webhookId: string }
    & (
      | { queue: "render"; unitId: string }
      | { queue: "visual_generation"; unitId: string; sceneId: string }
    ),
): Promise<FailedJob> {
  const sceneId = p.queue === "visual_generation" ? p.sceneId : null;
  return oneRow(
    "fail_worker_job",
    FailedJob,
    sql`
    select * from mdame.fail_worker_job(${p.queue}::text, ${String(p.msgId)}::bigint, ${p.unitId}::uuid, ${p.error}::text,
      ${p.retriable}::boolean, ${p.webhookId}::text, ${sceneId}::uuid)`,
  );
}
