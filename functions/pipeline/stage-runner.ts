import { QUEUES, StageTask } from "../../shared/contracts/queue.ts";
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

const VISIBILITY_TIMEOUT_S = 300;
const BATCH_SIZE = 2;

/**
 * Reads stage tasks and runs them until the queue shows nothing visible or the time budget is
 * spent. Each handler ends in its completion RPC, which archives the message; a failure goes to
 * fail_stage_task, which schedules the retry or dead-letters the task.
 */
export async function drainStageTasks(deps: PipelineDeps, options: { budgetMs: number }) {
  const started = Date.now();
  let processed = 0;
  let failed = 0;
  while (Date.now() - started < options.budgetMs) {
    const rows = await deps.sql`select msg_id, read_ct, message from pgmq.read(${QUEUES.stageTasks}, ${VISIBILITY_TIMEOUT_S}, ${BATCH_SIZE})`;
    if (rows.length === 0) return { processed, failed, more: false };
    const outcomes = await Promise.all(rows.map((row) => runOne(deps, Number(row.msg_id), Number(row.read_ct), row.message)));
    processed += outcomes.length;
    failed += outcomes.filter((ok) => !ok).length;
  }
  return { processed, failed, more: true };
}

async function runOne(deps: PipelineDeps, msgId: number, readCt: number, message: unknown): Promise<boolean> {
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
    const handler = HANDLERS[task.stage] as (deps: PipelineDeps, message: StageMessage, log: typeof deps.logger) => Promise<void>;
    await handler(deps, { msgId, readCt, task }, log);
    log.info({ duration_ms: Date.now() - t0 }, "stage task done");
    return true;
  } catch (thrown) {
    const error = coerceError(mapDbError(thrown));
    const retriable = isRetriable(error) && !(error instanceof ProviderRejectedError);
    const [row] = await deps.sql`
      select mdame.fail_stage_task(${msgId}, ${task.stage}, ${unitId}, ${task.run_id}, ${dimensionId}, ${error.message.slice(0, 2000)}, ${retriable}) as outcome`;
    log.warn({ err: error, retriable, outcome: row.outcome, attempt: readCt }, "stage task failed");
    return false;
  }
}
