import { StageTask } from "../../shared/contracts/queue.ts";
import { mapDbError } from "../../shared/db/errors.ts";
import { coerceError, isRetriable } from "../../shared/errors.ts";
import { ProviderRejectedError } from "../../shared/providers/errors.ts";
import type { PipelineDeps } from "./deps.ts";
import { runIngest } from "./stages/ingest.ts";
import { runPlan } from "./stages/plan.ts";
import { runPublish } from "./stages/publish.ts";
import { runSafety } from "./stages/safety.ts";
import { runScript } from "./stages/script.ts";
import { runVoice } from "./stages/voice.ts";

/** A stage task as read from the queue, with the message id its completion RPC archives. */
export interface StageMessage<T extends StageTask = StageTask> {
  msgId: number;
  readCt: number;
  /** This claim's lease; completion RPCs refuse it once another claim has taken the unit. */
  holder: string;
  task: T;
}

const HANDLERS = {
  ingest: runIngest,
  script: runScript,
  safety: runSafety,
  plan: runPlan,
  voice: runVoice,
  publish: runPublish,
} as const;

/** A short lease, extended by a heartbeat while the stage works: a crashed runner's task is back within seconds. */
const VISIBILITY_TIMEOUT_S = 30;
const HEARTBEAT_MS = 10_000;
const BATCH_SIZE = 2;
const RUNNER_ID = `pipeline-${crypto.randomUUID().slice(0, 8)}`;

/**
 * Reads stage tasks and runs them until the queue shows nothing visible or the time budget is
 * spent. A task whose step already completed (its step token has a stored result) is archived
 * without running its stage. Otherwise the handler ends in its completion RPC, which archives the
 * message; a failure goes to fail_stage_task, which schedules the retry or dead-letters the task.
 */
export async function drainStageTasks(deps: PipelineDeps, options: { budgetMs: number }) {
  const started = Date.now();
  let processed = 0;
  let failed = 0;
  while (Date.now() - started < options.budgetMs) {
    const rows = await deps.sql`select * from mdame.claim_stage_tasks(${RUNNER_ID}, ${BATCH_SIZE}, ${VISIBILITY_TIMEOUT_S})`;
    if (rows.length === 0) return { processed, failed, more: false };
    const outcomes = await Promise.all(rows.map((row) =>
      runLeased(deps, Number(row.msg_id), Number(row.read_ct), row.lease_holder as string, row.message, row.completed_result !== null)
    ));
    processed += outcomes.length;
    failed += outcomes.filter((ok) => !ok).length;
  }
  return { processed, failed, more: true };
}

/** Runs one claimed task while a heartbeat keeps its lease. */
async function runLeased(deps: PipelineDeps, msgId: number, readCt: number, holder: string, message: unknown, completed: boolean): Promise<boolean> {
  const heartbeat = setInterval(() => {
    deps.sql`select mdame.extend_stage_lease(${msgId}, ${holder}, ${VISIBILITY_TIMEOUT_S})`.catch((error) =>
      deps.logger.warn({ err: error, msg_id: msgId }, "lease heartbeat failed")
    );
  }, HEARTBEAT_MS);
  try {
    return await runOne(deps, msgId, readCt, holder, message, completed);
  } finally {
    clearInterval(heartbeat);
  }
}

/** `completed`: the claim found a stored result for the task's step token. */
async function runOne(deps: PipelineDeps, msgId: number, readCt: number, holder: string, message: unknown, completed: boolean): Promise<boolean> {
  const parsed = StageTask.safeParse(message);
  if (!parsed.success) {
    deps.logger.error({ msg_id: msgId, issues: parsed.error.issues }, "invalid stage task: dead-lettered");
    await deps.sql`select mdame.fail_stage_task(${msgId}, 'ingest', null, null, null, ${"invalid stage task: " + parsed.error.message}, false)`;
    return false;
  }
  const task = parsed.data;
  const unitId = "unit_id" in task ? task.unit_id : null;
  const dimensionId = "dimension_id" in task ? task.dimension_id : null;
  const log = deps.logger.child({ execution_id: task.run_id, stage: task.stage, step_token: task.step_token, msg_id: msgId, unit_id: unitId ?? undefined, dimension: dimensionId ?? undefined });
  const t0 = Date.now();
  try {
    // Before any paid work: a step sent again (recovery, dead-letter retry, duplicate delivery)
    // that already completed gets its stored result back, and its message is archived. The claim
    // says when there is one to ask for; a completion still in flight when the claim looked is
    // settled by the completion RPCs, which accept one result.
    if (completed) {
      const [replay] = await deps.sql`select mdame.replay_step_result(${msgId}, ${task.step_token}, ${holder}) as result`;
      if (replay.result !== null) {
        log.info({ duration_ms: Date.now() - t0 }, "step already completed: stored result returned");
        return true;
      }
    }
    const handler = HANDLERS[task.stage] as (deps: PipelineDeps, message: StageMessage, log: typeof deps.logger) => Promise<void>;
    await handler(deps, { msgId, readCt, holder, task }, log);
    log.info({ duration_ms: Date.now() - t0 }, "stage task done");
    return true;
  } catch (thrown) {
    const error = coerceError(mapDbError(thrown));
    const retriable = isRetriable(error) && !(error instanceof ProviderRejectedError);
    const [row] = await deps.sql`
      select mdame.fail_stage_task(${msgId}, ${task.stage}, ${unitId}, ${task.run_id}, ${dimensionId}, ${error.message.slice(0, 2000)}, ${retriable}, ${holder}) as outcome`;
    log.warn({ err: error, retriable, outcome: row.outcome, attempt: readCt }, "stage task failed");
    return false;
  }
}
