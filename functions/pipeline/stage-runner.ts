import { VoiceTrack } from "../../shared/contracts/media.ts";
import { StageTask } from "../../shared/contracts/queue.ts";
import type { Sql } from "../../shared/db/client.ts";
import { mapDbError } from "../../shared/db/errors.ts";
import { completePublication, deferUnitPublish } from "../../shared/db/rpc/publications.ts";
import {
  type ClaimedStageTask,
  claimStageTasks,
  extendStageLease,
  failStageTask,
  replayStepResult,
  type StageFailureOutcome,
} from "../../shared/db/rpc/stage-tasks.ts";
import {
  getWorkUnit,
  recordSafetyVerdict,
  recordScenePlan,
  recordScript,
  recordTopics,
  recordVoice,
  rejectScript,
  rejectUnsafeOutput,
} from "../../shared/db/rpc/work-units.ts";
import { recordTooSimilar } from "../../shared/db/rpc/similarity.ts";
import { coerceError, isRetriable } from "../../shared/errors.ts";
import { deferStageTaskForBudget } from "../../shared/db/rpc/spend.ts";
import { BudgetDeferralError, withSpendScope } from "../../shared/spend/metered.ts";
import type { LogStatus } from "../../shared/logging/logger.ts";
import { heartbeatIntervalMs } from "../../shared/worker/lease.ts";
import type { PipelineDeps } from "./deps.ts";
import { runPool, startCpuMeter } from "./stage-pool.ts";
import type { Stage, StageContext, StageLease, StageOutcome, StageOutcomeKind, StageTypes } from "./stage-task.ts";
import { runIngest } from "./stages/ingest.ts";
import { runPlan } from "./stages/plan.ts";
import { runPublish } from "./stages/publish.ts";
import { runSafety } from "./stages/safety.ts";
import { runScript } from "./stages/script.ts";
import { runVoice } from "./stages/voice.ts";

type StageName = keyof StageTypes;

const STAGES: { [S in StageName]: Stage<S> } = {
  ingest: runIngest,
  script: runScript,
  safety: runSafety,
  plan: runPlan,
  voice: runVoice,
  publish: runPublish,
};

/** Runs the stage a task names, with that stage's own payload type. */
function runStage<S extends StageName>(stage: S, task: StageTypes[S]["task"], ctx: StageContext): Promise<StageTypes[S]["outcome"]> {
  return STAGES[stage](task, ctx);
}

type OutcomeOf<K extends StageOutcomeKind> = Extract<StageOutcome, { kind: K }>;
/** The task of every stage that can end in an outcome of kind K. */
type TaskOf<K extends StageOutcomeKind> = { [S in StageName]: K extends StageTypes[S]["outcome"]["kind"] ? StageTypes[S]["task"] : never }[StageName];
/** A finished task as its completion RPC takes it: the claim (archived by the RPC) and the task. */
type Finished<K extends StageOutcomeKind> = { lease: StageLease; task: TaskOf<K> };
type Completion<K extends StageOutcomeKind> = (sql: Sql, done: Finished<K>, outcome: OutcomeOf<K>) => Promise<unknown>;

function claimOf({ lease, task }: Finished<StageOutcomeKind>) {
  return { msgId: lease.msgId, holder: lease.holder, stepToken: task.step_token };
}

/**
 * Each outcome's completion RPC: it records the result, archives the message and queues the next
 * stage in one transaction, and refuses a lease another claim has taken since.
 */
const COMPLETIONS: { [K in StageOutcomeKind]: Completion<K> } = {
  "topics.recorded": (sql, done, o) =>
    recordTopics(sql, claimOf(done), { runId: done.task.run_id, dimensionId: done.task.dimension_id, topics: o.topics, rejected: o.rejected }),
  "script.recorded": (sql, done, o) => recordScript(sql, claimOf(done), done.task.unit_id, o.script),
  "script.rejected": (sql, done, o) => rejectScript(sql, claimOf(done), done.task.unit_id, o.reason, o.audits),
  "unsafe_output": (sql, done, o) =>
    rejectUnsafeOutput(sql, claimOf(done), { unitId: done.task.unit_id, stage: done.task.stage, subject: o.subject, text: o.text, verdict: o.verdict }),
  "safety.judged": (sql, done, { verdict }) =>
    recordSafetyVerdict(sql, claimOf(done), {
      unitId: done.task.unit_id,
      allowed: verdict.allowed,
      reasons: verdict.reasons,
      classifier: verdict.classifier,
      details: { category: verdict.category, model: verdict.model, confidence: verdict.confidence },
    }),
  "plan.recorded": (sql, done, o) =>
    recordScenePlan(sql, claimOf(done), { unitId: done.task.unit_id, scenes: o.scenes, visual: o.visual, similarity: o.similarity }),
  "plan.too_similar": (sql, done, o) => recordTooSimilar(sql, claimOf(done), done.task.unit_id, o.check, o.maxRegenerations),
  "voice.recorded": (sql, done, o) =>
    recordVoice(sql, claimOf(done), { unitId: done.task.unit_id, voice: VoiceTrack.parse(o.voice), sceneFirstWords: o.sceneFirstWords }),
  "publish.completed": (sql, done, o) => completePublication(sql, claimOf(done), o.publicationId, o.externalId),
  "publish.deferred": (sql, done) => deferUnitPublish(sql, claimOf(done), done.task.unit_id),
};

/** Records an outcome through its kind's completion. */
function complete<K extends StageOutcomeKind>(kind: K, sql: Sql, done: Finished<K>, outcome: OutcomeOf<K>): Promise<unknown> {
  return COMPLETIONS[kind](sql, done, outcome);
}

const RUNNER_ID = `pipeline-${crypto.randomUUID().slice(0, 8)}`;

interface DrainOptions {
  /** Wall time after which no task is claimed; the tasks in flight still finish. */
  budgetMs: number;
  /** CPU time after which no task is claimed. Default: TICK_CPU_SHARE of EDGE_CPU_LIMIT_MS. */
  cpuBudgetMs?: number;
  /** The CPU used so far by the request that drains (the tick starts it first). Default: since the drain started. */
  cpuUsedMs?: () => number;
  /** Tasks in flight at most. Default: STAGE_CONCURRENCY. */
  concurrency?: number;
}

/** The CPU a tick may spend before it stops claiming: the rest of the limit finishes what it holds. */
export function tickCpuBudgetMs(env: Pick<PipelineDeps["env"], "EDGE_CPU_LIMIT_MS" | "TICK_CPU_SHARE">): number {
  return env.EDGE_CPU_LIMIT_MS * env.TICK_CPU_SHARE;
}

/**
 * Runs stage tasks, several at once (runPool), until the queue shows nothing visible or the wall
 * or CPU budget is spent; then waits for the tasks in flight before answering. A task whose step
 * already completed (its step token has a stored result) is archived without running its stage.
 * Otherwise the stage returns its outcome and the runner records it through the outcome's
 * completion RPC, which archives the message; a failure goes to fail_stage_task, which schedules
 * the retry or dead-letters the task.
 */
export async function drainStageTasks(deps: PipelineDeps, options: DrainOptions) {
  const started = Date.now();
  const cpuUsedMs = options.cpuUsedMs ?? startCpuMeter();
  const cpuBudgetMs = options.cpuBudgetMs ?? tickCpuBudgetMs(deps.env);
  return await runPool<ClaimedStageTask>({
    concurrency: options.concurrency ?? deps.env.STAGE_CONCURRENCY,
    claim: (n) => claimStageTasks(deps.sql, RUNNER_ID, n, deps.env.LEASE_S),
    run: (row) => runLeased(deps, row),
    mayClaim: () => Date.now() - started < options.budgetMs && cpuUsedMs() < cpuBudgetMs,
  });
}

/**
 * Runs one claimed task under its lease of LEASE_S (30 s by default), extended by a heartbeat while
 * the stage works: a crashed runner's task is back within the lease.
 */
async function runLeased(deps: PipelineDeps, row: ClaimedStageTask): Promise<boolean> {
  const lease: StageLease = { msgId: row.msg_id, readCt: row.read_ct, holder: row.lease_holder };
  const heartbeat = () =>
    extendStageLease(deps.sql, lease.msgId, lease.holder, deps.env.LEASE_S).then(
      () => undefined,
      (error) => deps.logger.warn({ err: error, msg_id: lease.msgId, status: "failed" }, "lease heartbeat failed"),
    );
  const timer = setInterval(heartbeat, heartbeatIntervalMs(deps.env.LEASE_S));
  // Never aborted today: a claim that lost its lease finds out at completion, whose RPC refuses it.
  const controller = new AbortController();
  try {
    return await runOne(deps, lease, row.message, row.completed_result !== null, { signal: controller.signal, heartbeat });
  } finally {
    clearInterval(timer);
  }
}

/**
 * The dimension of a unit task's unit, for its log lines (a unit task names only its unit). A read
 * that fails leaves the field out: the stage reads the unit itself and fails the task properly.
 */
async function unitDimension(sql: Sql, unitId: string | null): Promise<string | undefined> {
  if (unitId === null) return undefined;
  try {
    return (await getWorkUnit(sql, unitId))?.dimension_id;
  } catch {
    return undefined;
  }
}

/** The `status` of a finished task's log line (docs/reference/logs.md). */
function outcomeStatus(kind: StageOutcomeKind): LogStatus {
  if (kind === "publish.deferred") return "deferred";
  if (kind === "script.rejected" || kind === "unsafe_output" || kind === "plan.too_similar") return "refused";
  return "succeeded";
}

/** The `status` of a failed task's log line, from what fail_stage_task made of the failure. */
const FAILURE_STATUS: Record<StageFailureOutcome, LogStatus> = { retry: "retrying", dead_letter: "dead_lettered", gone: "skipped", stale: "skipped" };

/** `completed`: the claim found a stored result for the task's step token. */
async function runOne(
  deps: PipelineDeps,
  lease: StageLease,
  message: unknown,
  completed: boolean,
  control: Pick<StageContext, "signal" | "heartbeat">,
): Promise<boolean> {
  const { msgId, readCt, holder } = lease;
  const parsed = StageTask.safeParse(message);
  if (!parsed.success) {
    deps.logger.error({ msg_id: msgId, issues: parsed.error.issues, status: "dead_lettered" }, "invalid stage task: dead-lettered");
    await failStageTask(deps.sql, {
      msgId,
      stage: "ingest",
      unitId: null,
      runId: null,
      dimensionId: null,
      error: "invalid stage task: " + parsed.error.message,
      retriable: false,
      holder: null,
    });
    return false;
  }
  const task = parsed.data;
  const unitId = "unit_id" in task ? task.unit_id : null;
  const dimensionId = "dimension_id" in task ? task.dimension_id : null;
  const taskDimension = dimensionId ?? await unitDimension(deps.sql, unitId);
  const log = deps.logger.child({
    execution_id: task.run_id,
    stage: task.stage,
    step_token: task.step_token,
    msg_id: msgId,
    unit_id: unitId ?? undefined,
    dimension_id: taskDimension,
  });
  const t0 = Date.now();
  try {
    // Before any paid work: a step sent again (recovery, dead-letter retry, duplicate delivery)
    // that already completed gets its stored result back, and its message is archived. The claim
    // says when there is one to ask for; a completion still in flight when the claim looked is
    // settled by the completion RPCs, which accept one result.
    if (completed && await replayStepResult(deps.sql, msgId, task.step_token, holder) !== null) {
      log.info({ duration_ms: Date.now() - t0, status: "skipped" }, "step already completed: stored result returned");
      return true;
    }
    // Every paid call the stage makes is checked against its dimension's budget and recorded (shared/spend/metered.ts).
    const scope = { sql: deps.sql, log, dimensionId: taskDimension ?? null, runId: task.run_id, unitId, stage: task.stage };
    const outcome = await withSpendScope(scope, () => runStage(task.stage, task, { deps, logger: log, lease, ...control }));
    await complete(outcome.kind, deps.sql, { lease, task }, outcome);
    log.info({ duration_ms: Date.now() - t0, outcome: outcome.kind, status: outcomeStatus(outcome.kind) }, "stage task done");
    return true;
  } catch (thrown) {
    if (thrown instanceof BudgetDeferralError) {
      // Nothing of the stage was recorded: the unit waits at its stage, whole, and the task comes back later.
      const deferral = await deferStageTaskForBudget(deps.sql, { msgId, holder, delayS: thrown.delayS, reason: thrown.message });
      log.warn({ period: thrown.period, delay_s: thrown.delayS, outcome: deferral, status: "deferred" }, thrown.message);
      return false;
    }
    const error = coerceError(mapDbError(thrown));
    const retriable = isRetriable(error);
    const outcome = await failStageTask(deps.sql, {
      msgId,
      stage: task.stage,
      unitId,
      runId: task.run_id,
      dimensionId,
      error: error.message.slice(0, 2000),
      retriable,
      holder,
    });
    log.warn({ err: error, retriable, outcome, attempt: readCt, status: FAILURE_STATUS[outcome] }, "stage task failed");
    return false;
  }
}
