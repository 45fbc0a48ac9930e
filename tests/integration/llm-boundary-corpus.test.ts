/**
 * The malformed-output corpus through the real Gemini client, the emulator and the pipeline's
 * router and cache: every entry is stopped at the boundary (repaired, or dead-lettered with its
 * issues), a repair costs at most two extra calls (counted by the emulator), a repaired answer is
 * cached under the original call's key, and the stage runner dead-letters a contract failure at
 * once with the last issues in the reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import { drainStageTasks } from "../../functions/pipeline/stage-runner.ts";
import { llmCallKey } from "../../shared/hashing.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { loadCorpus, replayEntry, type ReplayResult, taskCall } from "../../scripts/eval/llm-boundary-corpus.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let deps: PipelineDeps;
const corpus = loadCorpus();
const geminiCalls = () => emulator.logs.filter((e) => e.service === "gemini" && e.method === "POST").length;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  emulator = await startTestEmulator();
  deps = createPipelineDeps({ ...localStackEnv(), ...emulator.serviceEnv(), STORAGE_BACKEND: "local", LOG_LEVEL: "silent" });
}, 60_000);

afterAll(async () => {
  await deps?.sql.end({ timeout: 2 });
  // The runs and units made here are left mid-way: leave an empty engine behind.
  await db.reset({ log: () => {} });
  await emulator?.stop();
}, 60_000);

describe("the malformed-output corpus", () => {
  const results: ReplayResult[] = [];

  test("has at least 50 entries over the three tasks and every kind of breakage", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(50);
    expect(new Set(corpus.map((e) => e.task))).toEqual(new Set(["script", "hook_audit", "plan"]));
    for (const kind of ["cut_json", "wrong_type", "extra_keys", "missing_fields", "prose", "markdown_fence", "safety", "empty", "unicode"]) {
      expect(corpus.some((e) => e.kind === kind)).toBe(true);
    }
    expect(new Set(corpus.map((e) => e.id)).size).toBe(corpus.length);
  });

  test("every entry is stopped at the boundary, within two extra calls", async () => {
    const ctx = {
      router: deps.llm,
      dimensionId: "tech-explained",
      log: deps.logger,
      nonce: crypto.randomUUID().slice(0, 8),
      geminiCalls,
      armFault: emulator.armFault,
    };
    for (const entry of corpus) results.push(await replayEntry(ctx, entry));
    expect(results.filter((r) => !r.stopped)).toEqual([]);
    expect(results.filter((r) => r.outcome === "crash")).toEqual([]);
    expect(Math.max(...results.map((r) => r.calls))).toBe(3);
    for (const r of results.filter((r) => r.outcome === "dead_letter")) {
      expect(r.detail.length).toBeGreaterThan(0);
      expect(r.reason).toContain(r.detail[0]!.slice(0, 40));
    }
    for (const r of results.filter((r) => r.expected === "none")) expect([r.outcome, r.calls]).toEqual(["safety_stop", 1]);
  }, 120_000);

  test("a repaired answer is cached under the original call's key, a dead-lettered one not at all", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const ctx = { router: deps.llm, dimensionId: "tech-explained", log: deps.logger, nonce, geminiCalls, armFault: emulator.armFault };
    const repaired = corpus.find((e) => e.id === "script-fence-json")!;
    const failed = corpus.find((e) => e.id === "script-extra-several")!;
    expect((await replayEntry(ctx, repaired)).outcome).toBe("repaired");
    expect((await replayEntry(ctx, failed)).outcome).toBe("dead_letter");
    const keyOf = async (entry: typeof repaired) => {
      const call = taskCall(entry, nonce);
      return llmCallKey("gemini-2.5-flash", call.prompt, call.params);
    };
    const [hit] = await admin`select response from mdame.llm_cache where cache_key = ${await keyOf(repaired)}`;
    expect(Object.keys(hit!.response).sort()).toEqual(["description", "hashtags", "hook", "narration", "title"]);
    expect(await admin`select 1 from mdame.llm_cache where cache_key = ${await keyOf(failed)}`).toHaveLength(0);
    // Asked again, the repaired answer comes from the cache: no request reaches the model.
    const before = geminiCalls();
    const call = taskCall(repaired, nonce);
    await deps.llm.generate({ task: "script", dimensionId: "tech-explained", ...call, log: deps.logger });
    expect(geminiCalls()).toBe(before);
  }, 30_000);
});

describe("through the stage runner", () => {
  async function unitAtScript(title: string) {
    const [run] = await admin`
      insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
      values (${`it-llm-boundary-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
    await admin`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run!.id}, 'tech-explained', 'ingested')`;
    const [unit] = await admin`
      insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
      values (${run!.id}, 'tech-explained', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${admin.json({ title })})
      returning id`;
    await admin`select mdame.enqueue_stage_task('script', ${run!.id}, ${unit!.id})`;
    return unit!.id as string;
  }

  async function drain() {
    for (let pass = 0; pass < 5; pass++) if (!(await drainStageTasks(deps, { budgetMs: 30_000 })).more) return;
  }

  test("a draft still broken after two repairs dead-letters the task at once, with the last issues", async () => {
    const entry = corpus.find((e) => e.id === "script-empty-object")!;
    const unitId = await unitAtScript(`Why octopuses have three hearts ${crypto.randomUUID()}`);
    await emulator.armFault({ service: "gemini", kind: "serve", count: 3, answer: entry.answer });
    const before = geminiCalls();
    await drain();
    expect(geminiCalls() - before).toBe(3);
    const [unit] = await admin`select stage, error from mdame.work_units where id = ${unitId}`;
    expect(unit!.stage).toBe("failed");
    const [letter] = await admin`select read_ct, last_error from mdame.dead_letters where unit_id = ${unitId}`;
    expect(letter!.read_ct).toBe(1);
    expect(letter!.last_error).toContain("after 2 repairs (3 calls)");
    expect(letter!.last_error).toContain("title: required field is missing");
    expect(letter!.last_error).toContain("hashtags: required field is missing");
  }, 60_000);

  test("a safety stop fails the task with the provider's reason, without a repair", async () => {
    const unitId = await unitAtScript(`How volcanoes form islands ${crypto.randomUUID()}`);
    await emulator.armFault({ service: "gemini", kind: "serve", count: 1, answer: { finishReason: "SAFETY" } });
    const before = geminiCalls();
    await drain();
    expect(geminiCalls() - before).toBe(1);
    const [letter] = await admin`select last_error from mdame.dead_letters where unit_id = ${unitId}`;
    expect(letter!.last_error).toBe("gemini stopped the answer for safety (SAFETY)");
  }, 60_000);

  test("every call and repair is logged with the step token", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("pipeline", { write: (line: string) => void lines.push(JSON.parse(line)) }, "info");
    const logged = { ...deps, logger };
    const unitId = await unitAtScript(`How bats see in the dark ${crypto.randomUUID()}`);
    await emulator.armFault({ service: "gemini", kind: "serve", count: 1, answer: corpus.find((e) => e.id === "script-prose-before")!.answer });
    for (let pass = 0; pass < 5; pass++) if (!(await drainStageTasks(logged, { budgetMs: 30_000 })).more) break;
    const [task] =
      await admin`select message->>'step_token' as step_token from pgmq.a_stage_tasks where message->>'unit_id' = ${unitId} and message->>'stage' = 'script'`;
    const calls = lines.filter((l) => l.step_token === task!.step_token && typeof l.kind === "string" && l.provider === "gemini");
    expect(calls[0]).toMatchObject({ kind: "call", attempt: 0, outcome: "invalid", llm_task: "script" });
    expect(calls[1]).toMatchObject({ kind: "repair", attempt: 1, outcome: "valid", llm_task: "script" });
    expect(calls.filter((l) => l.llm_task === "critic").length).toBeGreaterThan(0);
  }, 60_000);
});
