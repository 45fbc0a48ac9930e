/** The stage queue's RPCs (claim, lease, failure, step replay, enqueue), each returning its parsed row. */
import { z } from "zod";
import type { Sql } from "../client.ts";
import { manyRows, maybeRow, oneRow } from "./query.ts";

/** A stage task claimed by claim_stage_tasks: the message (parsed by the runner) and its lease. */
export const ClaimedStageTask = z.object({
  msg_id: z.coerce.number().int().positive(),
  read_ct: z.number().int(),
  message: z.unknown(),
  /** This claim's lease; completion RPCs refuse it once another claim has taken the unit. */
  lease_holder: z.string(),
  /** The stored result of the task's step token when that step already completed. */
  completed_result: z.unknown().nullable(),
}).strict();
export type ClaimedStageTask = z.infer<typeof ClaimedStageTask>;

/** Up to `qty` visible stage tasks, each leased to `worker` for `vtSeconds`. */
export function claimStageTasks(sql: Sql, worker: string, qty: number, vtSeconds: number): Promise<ClaimedStageTask[]> {
  return manyRows(
    "claim_stage_tasks",
    ClaimedStageTask,
    sql`select msg_id, read_ct, message, lease_holder, completed_result from mdame.claim_stage_tasks(${worker}, ${qty}, ${vtSeconds})`,
  );
}

const Extended = z.object({ extended: z.boolean().nullable() }).strict();

/** Extends a claimed task's lease; false when the claim is no longer the holder's. */
export async function extendStageLease(sql: Sql, msgId: number, holder: string, vtSeconds: number): Promise<boolean> {
  const row = await maybeRow("extend_stage_lease", Extended, sql`select mdame.extend_stage_lease(${msgId}, ${holder}, ${vtSeconds}) as extended`);
  return row?.extended === true;
}

/** What fail_stage_task did: scheduled a retry, dead-lettered, or left a message gone or no longer the caller's. */
export const StageFailureOutcome = z.enum(["retry", "dead_letter", "gone", "stale"]);
export type StageFailureOutcome = z.infer<typeof StageFailureOutcome>;

/** A failed stage task, as fail_stage_task takes it; `holder` null for a message that never parsed. */
interface StageTaskFailure {
  msgId: number;
  stage: string;
  unitId: string | null;
  runId: string | null;
  dimensionId: string | null;
  error: string;
  retriable: boolean;
  holder: string | null;
}

/** Schedules the task's retry or dead-letters it (and fails its unit or dimension). */
export async function failStageTask(sql: Sql, failure: StageTaskFailure): Promise<StageFailureOutcome> {
  const { msgId, stage, unitId, runId, dimensionId, error, retriable, holder } = failure;
  const row = await oneRow(
    "fail_stage_task",
    z.object({ outcome: StageFailureOutcome }).strict(),
    sql`
    select mdame.fail_stage_task(${msgId}, ${stage}, ${unitId}, ${runId}, ${dimensionId}, ${error}, ${retriable}, ${holder}) as outcome`,
  );
  return row.outcome;
}

/** The stored result of a completed step (archiving its message), or null when the step has not completed. */
export async function replayStepResult(sql: Sql, msgId: number, stepToken: string, holder: string): Promise<unknown> {
  const row = await maybeRow(
    "replay_step_result",
    z.object({ result: z.unknown() }).strict(),
    sql`select mdame.replay_step_result(${msgId}, ${stepToken}, ${holder}) as result`,
  );
  return row?.result ?? null;
}

/** Queues a stage task for a unit (or, for ingest, a run's dimension); the message id, null when none was sent. */
export async function enqueueStageTask(
  sql: Sql,
  task: { stage: string; runId: string; unitId: string | null; dimensionId?: string | null },
): Promise<number | null> {
  const row = await maybeRow(
    "enqueue_stage_task",
    z.object({ msg_id: z.coerce.number().int() }).strict(),
    sql`select mdame.enqueue_stage_task(${task.stage}, ${task.runId}::uuid, ${task.unitId}::uuid, ${task.dimensionId ?? null}::text) as msg_id`,
  );
  return row?.msg_id ?? null;
}
