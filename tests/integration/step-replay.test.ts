/**
 * Step tokens against the real Postgres, the real stage runner and the Gemini emulator: a step sent
 * again after it completed returns its stored result without running, a replay that meets the same
 * step's completion in flight waits for it, and two runners racing on one step token leave one
 * result and one transition behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import { createLlmRouter, type LlmProvider } from "../../functions/pipeline/llm-router.ts";
import { drainStageTasks } from "../../functions/pipeline/stage-runner.ts";
import type { Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

const REPLAYED = "step already completed: stored result returned";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let env: Record<string, string>;
let storageDir: string;
const runners: PipelineDeps[] = [];
/** Every log line of every runner in this file, parsed. */
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  emulator = await startTestEmulator();
  storageDir = await mkdtemp(join(tmpdir(), "mdame-it-step-replay-"));
  env = {
    ...localStackEnv(),
    ...emulator.serviceEnv(),
    // These tests are about the stages; the storage backends are proven alike by storage-conformance.
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storageDir,
    LOG_LEVEL: "warn",
  };
}, 60_000);

afterAll(async () => {
  await Promise.all(runners.map((deps) => deps.sql.end({ timeout: 2 })));
  await db.reset({ log: () => {} });
  await emulator?.stop();
  await rm(storageDir, { recursive: true, force: true });
}, 60_000);

/** Holds a runner's provider calls until the test opens it, and tells the test when the first one came. */
interface Gate {
  open(): void;
  arrived: Promise<void>;
}

function gate(): Gate & { arrive(): void; opened: Promise<void> } {
  let open!: () => void;
  let arrive!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  return { open, arrive, opened, arrived };
}

/** Gemini whose every call waits at the gate. */
function gatedProvider(provider: LlmProvider, g: ReturnType<typeof gate>): LlmProvider {
  return {
    defaultModel: provider.defaultModel,
    model(id) {
      const model = provider.model(id);
      return {
        provider: model.provider,
        model: model.model,
        async complete(prompt, params, options) {
          g.arrive();
          await g.opened;
          return model.complete(prompt, params, options);
        },
      };
    },
  };
}

/** A stage runner's dependencies on a connection pool of its own, logging into `lines`. */
function runner(g?: ReturnType<typeof gate>): PipelineDeps {
  const base = createPipelineDeps(env);
  const logger = createLogger("pipeline", { write: (line: string) => void lines.push(JSON.parse(line)) }, "info");
  const llm = g ? createLlmRouter({ sql: base.sql, providers: { ...base.llm.providers, gemini: gatedProvider(base.llm.providers.gemini!, g) } }) : base.llm;
  const deps = { ...base, logger, llm };
  runners.push(deps);
  return deps;
}

/** Runs the stage runner until nothing is visible; totals of what it processed. */
async function drain(deps: PipelineDeps) {
  let processed = 0;
  let failed = 0;
  for (let pass = 0; pass < 10; pass++) {
    const result = await drainStageTasks(deps, { budgetMs: 60_000 });
    processed += result.processed;
    failed += result.failed;
    if (!result.more) break;
  }
  return { processed, failed };
}

function geminiRequests(): number {
  return emulator.logs.filter((entry) => entry.service === "gemini" && entry.method === "POST").length;
}

/** A running run of its own with one unit at the script stage of `tech-explained`. */
async function unitAtScript(sql: Sql, title: string): Promise<{ id: string; run_id: string }> {
  const [run] = await sql`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`it-step-replay-${crypto.randomUUID()}`}, ${env.ENV}, current_date, 'manual') returning id`;
  await sql`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run.id}, 'tech-explained', 'ingested')`;
  const [unit] = await sql`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (${run.id}, 'tech-explained', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${sql.json({ title })})
    returning id, run_id`;
  await sql`select mdame.set_unit_stage(${unit.id}, 'script')`;
  return unit as { id: string; run_id: string };
}

/** Sends the unit's script task as every producer does; its msg_id and step token. */
async function sendScriptTask(sql: Sql, unit: { id: string; run_id: string }) {
  const [sent] = await sql`select mdame.enqueue_stage_task('script', ${unit.run_id}, ${unit.id}) as msg_id`;
  const [queued] = await sql`select message->>'step_token' as token from pgmq.q_stage_tasks where msg_id = ${sent.msg_id}`;
  return { msgId: Number(sent.msg_id), token: queued.token as string };
}

async function unitState(sql: Sql, unitId: string) {
  const [row] = await sql`select stage, script, stage_attempts, stage_deadline, updated_at, error from mdame.work_units where id = ${unitId}`;
  return row;
}

async function scriptTasks(sql: Sql, unitId: string) {
  const [row] = await sql`
    select (select count(*)::int from pgmq.q_stage_tasks where message->>'unit_id' = ${unitId} and message->>'stage' = 'script') as queued,
           (select coalesce(array_agg(msg_id::int order by msg_id), '{}') from pgmq.a_stage_tasks
             where message->>'unit_id' = ${unitId} and message->>'stage' = 'script') as archived`;
  return row as { queued: number; archived: number[] };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function replayLines(msgId: number) {
  return lines.filter((line) => line.msg === REPLAYED && line.msg_id === msgId);
}

describe("step tokens", () => {
  test("a step sent again after it completed returns its stored result without running", async () => {
    const deps = runner();
    const unit = await unitAtScript(admin, "How noise-cancelling headphones work");
    const first = await sendScriptTask(admin, unit);
    expect(await drain(deps)).toEqual({ processed: 4, failed: 0 });

    // The script step completed through the runner and the unit went on to its media stage.
    const before = await unitState(admin, unit.id);
    expect(before.stage).toBe("media");
    const stored = await admin`select result, created_at from mdame.step_results where step_token = ${first.token}`;
    expect(stored).toHaveLength(1);
    expect(stored[0].result.narration).toBe(before.script.narration);

    // The same step comes back, as the recovery pass or a dead-letter retry sends it. With the LLM
    // cache emptied, running the script stage again would show as requests to the provider.
    await admin`delete from mdame.llm_cache`;
    const requestsBefore = geminiRequests();
    const duplicate = await sendScriptTask(admin, unit);
    expect(duplicate.token).toBe(first.token);

    expect(await drain(deps)).toEqual({ processed: 1, failed: 0 });
    expect(geminiRequests() - requestsBefore).toBe(0);
    expect(replayLines(duplicate.msgId)).toEqual([
      expect.objectContaining({ step_token: first.token, stage: "script", unit_id: unit.id }),
    ]);
    expect(await unitState(admin, unit.id)).toEqual(before);
    expect(await scriptTasks(admin, unit.id)).toEqual({ queued: 0, archived: [first.msgId, duplicate.msgId] });
    expect(await admin`select result, created_at from mdame.step_results where step_token = ${first.token}`).toEqual(stored);
  }, 120_000);

  test("a replay that meets the same step's completion in flight waits for it and returns its result", async () => {
    const { sql } = runner();
    const unit = await unitAtScript(admin, "How a lighthouse lens gathers light");
    const m1 = await sendScriptTask(admin, unit);
    const m2 = await sendScriptTask(admin, unit);
    const claims = await sql`select msg_id, lease_holder from mdame.claim_stage_tasks('it-runner', 2, 30) order by msg_id`;
    expect(claims.map((c) => Number(c.msg_id))).toEqual([m1.msgId, m2.msgId]);
    const [h1, h2] = claims.map((c) => c.lease_holder as string);

    // m2's holder is completing the step; its transaction has not committed yet.
    const completing = await sql.reserve();
    await completing`begin`;
    await completing`select mdame.record_script(${m2.msgId}, ${unit.id}, ${m2.token}, ${sql.json({ title: "From m2" })}, ${h2})`;
    const replay = sql`select mdame.replay_step_result(${m1.msgId}, ${m1.token}, ${h1}) as result`.execute();
    await waitFor(async () => {
      const [row] = await admin`
        select count(*)::int as n from pg_stat_activity
         where wait_event_type = 'Lock' and query like '%replay_step_result%' and pid <> pg_backend_pid()`;
      return row.n === 1;
    });
    await completing`commit`;
    completing.release();

    const [replayed] = await replay;
    expect(replayed.result).toEqual({ title: "From m2" });
    expect(await scriptTasks(admin, unit.id)).toEqual({ queued: 0, archived: [m1.msgId, m2.msgId] });
    // The safety task the completion enqueued is not this test's business; the next test's runners must not see it.
    await admin`select mdame.cancel_queued_work(${unit.id})`;
  }, 30_000);

  // Runner a claims first, runner b second, so the unit's lease is b's; both pass the replay check
  // and run the stage at once, then finish in the order given.
  test.each([
    { finishesFirst: "a", title: "Why bridges expand in summer" },
    { finishesFirst: "b", title: "How a refrigerator moves heat outside" },
  ])("two runners racing on one step token leave one result (runner $finishesFirst finishes first)", async ({ finishesFirst, title }) => {
    const gateA = gate();
    const gateB = gate();
    const a = runner(gateA);
    const b = runner(gateB);
    const unit = await unitAtScript(admin, title);
    const m1 = await sendScriptTask(admin, unit);
    const m2 = await sendScriptTask(admin, unit);
    expect(m2.token).toBe(m1.token);

    // A row lock on m2 makes runner a's claim skip it, so each runner claims one of the two.
    const hold = await admin.reserve();
    await hold`begin`;
    await hold`select 1 from pgmq.q_stage_tasks where msg_id = ${m2.msgId} for update`;
    const drainA = drain(a);
    await gateA.arrived;
    await hold`commit`;
    hold.release();
    const drainB = drain(b);
    await gateB.arrived;

    if (finishesFirst === "a") {
      gateA.open();
      expect(await drainA).toEqual({ processed: 1, failed: 0 });
      // b's claim took the unit's lease, so a's result was refused and m1 waits out its lease.
      expect([...await admin`select count(*)::int as n from mdame.events where unit_id = ${unit.id} and kind = 'stale_lease_refused'`])
        .toEqual([{ n: 1 }]);
      expect(await scriptTasks(admin, unit.id)).toEqual({ queued: 2, archived: [] });
      gateB.open();
      expect((await drainB).failed).toBe(0);
    } else {
      gateB.open();
      expect((await drainB).failed).toBe(0);
      gateA.open();
      expect(await drainA).toEqual({ processed: 1, failed: 0 });
      // a's result came after the unit had moved on: m1 was archived by that late call.
      expect(await scriptTasks(admin, unit.id)).toEqual({ queued: 0, archived: [m1.msgId, m2.msgId] });
    }

    // Whatever is still queued for the step becomes visible now rather than after its 30 s lease.
    // With the LLM cache emptied, a stage that ran again would show as requests to the provider.
    await admin`update pgmq.q_stage_tasks set vt = now() where message->>'unit_id' = ${unit.id} and message->>'stage' = 'script'`;
    await admin`delete from mdame.llm_cache`;
    const requestsBefore = geminiRequests();
    const settled = await drain(runner());
    expect(geminiRequests() - requestsBefore).toBe(0);
    expect(settled).toEqual(finishesFirst === "a" ? { processed: 1, failed: 0 } : { processed: 0, failed: 0 });
    expect(replayLines(m1.msgId)).toHaveLength(finishesFirst === "a" ? 1 : 0);

    expect(await scriptTasks(admin, unit.id)).toEqual({ queued: 0, archived: [m1.msgId, m2.msgId] });
    expect([...await admin`select count(*)::int as n from mdame.step_results where step_token = ${m1.token}`]).toEqual([{ n: 1 }]);
    const [transitions] = await admin`
      select (select count(*)::int from pgmq.q_stage_tasks where message->>'unit_id' = ${unit.id} and message->>'stage' = 'safety')
           + (select count(*)::int from pgmq.a_stage_tasks where message->>'unit_id' = ${unit.id} and message->>'stage' = 'safety') as safety_tasks,
             (select count(*)::int from mdame.events where unit_id = ${unit.id} and kind = 'stage_entered' and stage = 'safety') as entered_safety,
             (select count(*)::int from mdame.safety_audit_logs where unit_id = ${unit.id}) as safety_audits`;
    expect(transitions).toEqual({ safety_tasks: 1, entered_safety: 1, safety_audits: 1 });
    expect((await unitState(admin, unit.id)).stage).toBe("media");
  }, 120_000);
});
