/**
 * Per-task routing of LLM calls with an ordered fallback, against the real database and both
 * emulators (Gemini and OpenAI-compatible): a dimension's `llm` field picks the provider and model
 * of each task, an unavailable provider hands the task to the next, a contract failure is
 * repaired on the same provider, and the hook critic can run on another model than the writer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import { drainStageTasks } from "../../functions/pipeline/stage-runner.ts";
import { HookAudit, type LlmRouting } from "../../shared/contracts/llm.ts";
import { isRetriable, NonRetriableError } from "../../shared/errors.ts";
import { ProviderUnavailableError } from "../../shared/providers/errors.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { OPENAI_EMULATOR_API_KEY } from "../../emulators/openai/routes.ts";
import { gateTopic } from "../../functions/pipeline/safety/stage-gate.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let deps: PipelineDeps;
let env: Record<string, string>;
const DIMENSION = "tech-explained";

const requests = (service: string) => emulator.logs.filter((e) => e.service === service && e.method === "POST").length;
const hookPrompt = () => `TASK: hook_audit\nLANGUAGE: en\nHOOK: Did you know ${crypto.randomUUID().slice(0, 6)} bees can count to four?`;

async function route(llm: LlmRouting) {
  await admin`select mdame.update_dimension(${DIMENSION}, ${admin.json({ llm } as never)}::jsonb)`;
}

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  emulator = await startTestEmulator();
  env = {
    ...localStackEnv(),
    ...emulator.serviceEnv(),
    OPENAI_COMPAT_BASE_URL: `${emulator.url}/v1`,
    OPENAI_COMPAT_API_KEY: OPENAI_EMULATOR_API_KEY,
    OPENAI_COMPAT_MODEL: "emulated-chat",
    STORAGE_BACKEND: "local",
    LOG_LEVEL: "silent",
  };
  deps = createPipelineDeps(env);
}, 60_000);

afterAll(async () => {
  await deps?.sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  await emulator?.stop();
}, 60_000);

describe("routing", () => {
  test("a task the dimension leaves out runs on Gemini's default model", async () => {
    await route({});
    expect(await deps.llm.routesFor("critic", DIMENSION)).toEqual([{ provider: "gemini" }]);
    const before = { gemini: requests("gemini"), openai: requests("openai") };
    await deps.llm.generate({ task: "critic", dimensionId: DIMENSION, prompt: hookPrompt(), schema: HookAudit, params: { temperature: 0 }, log: deps.logger });
    expect(requests("gemini") - before.gemini).toBe(1);
    expect(requests("openai") - before.openai).toBe(0);
  });

  test("each task goes to the provider and model the dimension names, and the cache key carries the model", async () => {
    await route({ critic: [{ provider: "openai-compat", model: "llama3.1:8b" }] });
    const before = { gemini: requests("gemini"), openai: requests("openai") };
    const prompt = hookPrompt();
    await deps.llm.generate({ task: "critic", dimensionId: DIMENSION, prompt, schema: HookAudit, params: { temperature: 0 }, log: deps.logger });
    expect(requests("openai") - before.openai).toBe(1);
    expect(requests("gemini") - before.gemini).toBe(0);
    const rows = await admin`select model from mdame.llm_cache where model like 'openai-compat/%'`;
    expect(rows.map((r) => r.model)).toContain("openai-compat/llama3.1:8b");
    // Another task of the same dimension still runs on Gemini.
    expect(await deps.llm.routesFor("script", DIMENSION)).toEqual([{ provider: "gemini" }]);
  });

  test("Gemini down: the next provider of the list answers the task", async () => {
    await route({ critic: [{ provider: "gemini" }, { provider: "openai-compat" }] });
    await emulator.armFault({ service: "gemini", kind: "unavailable", count: 1 });
    const before = { gemini: requests("gemini"), openai: requests("openai"), fallbacks: deps.llm.counters.fallbacks };
    const audit = await deps.llm.generate({
      task: "critic",
      dimensionId: DIMENSION,
      prompt: hookPrompt(),
      schema: HookAudit,
      params: { temperature: 0 },
      log: deps.logger,
    });
    expect(audit.score).toBeGreaterThan(0);
    expect(requests("gemini") - before.gemini).toBe(1);
    expect(requests("openai") - before.openai).toBe(1);
    expect(deps.llm.counters.fallbacks - before.fallbacks).toBe(1);
    expect(await admin`select 1 from mdame.llm_cache where model = 'openai-compat/emulated-chat'`).not.toHaveLength(0);
  });

  test("a contract failure is repaired on the same provider, not handed to the next", async () => {
    await route({ critic: [{ provider: "gemini" }, { provider: "openai-compat" }] });
    await emulator.armFault({ service: "gemini", kind: "serve", count: 1, answer: { text: '{"score":"high"}' } });
    const before = { gemini: requests("gemini"), openai: requests("openai") };
    await deps.llm.generate({ task: "critic", dimensionId: DIMENSION, prompt: hookPrompt(), schema: HookAudit, params: { temperature: 0 }, log: deps.logger });
    expect(requests("gemini") - before.gemini).toBe(2);
    expect(requests("openai") - before.openai).toBe(0);
  });

  test("every provider down: the last outage is thrown, retriable", async () => {
    await route({ critic: [{ provider: "gemini" }, { provider: "openai-compat" }] });
    await emulator.armFault({ service: "gemini", kind: "unavailable", count: 1 });
    await emulator.armFault({ service: "openai", kind: "rate_limited", count: 1 });
    const error = await deps.llm.generate({
      task: "critic",
      dimensionId: DIMENSION,
      prompt: hookPrompt(),
      schema: HookAudit,
      params: { temperature: 0 },
      log: deps.logger,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.provider).toBe("openai-compat");
    expect(isRetriable(error)).toBe(true);
  });

  test("a provider the environment does not configure is skipped; none at all is a final error", async () => {
    const { OPENAI_COMPAT_BASE_URL: _unset, ...withoutOpenAi } = env;
    const bare = createPipelineDeps(withoutOpenAi);
    try {
      expect(bare.llm.providers["openai-compat"]).toBeUndefined();
      await route({ critic: [{ provider: "openai-compat" }, { provider: "gemini" }], plan: [{ provider: "openai-compat" }] });
      const audit = await bare.llm.generate({
        task: "critic",
        dimensionId: DIMENSION,
        prompt: hookPrompt(),
        schema: HookAudit,
        params: { temperature: 0 },
        log: bare.logger,
      });
      expect(audit.score).toBeGreaterThan(0);
      const error = await bare.llm.generate({
        task: "plan",
        dimensionId: DIMENSION,
        prompt: hookPrompt(),
        schema: HookAudit,
        params: { temperature: 0 },
        log: bare.logger,
      }).catch((e) => e);
      expect(error).toBeInstanceOf(NonRetriableError);
      expect(error.message).toContain("no configured provider for the plan task of tech-explained");
    } finally {
      await bare.sql.end({ timeout: 1 });
    }
  });
});

test("through the script stage, the hook critic runs on another model than the writer", async () => {
  await route({ script: [{ provider: "gemini" }], critic: [{ provider: "openai-compat", model: "llama3.1:8b" }] });
  const [run] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`it-llm-routing-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  await admin`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run!.id}, ${DIMENSION}, 'ingested')`;
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (${run!.id}, ${DIMENSION}, ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${
    admin.json({ title: `Why the sky is blue ${crypto.randomUUID().slice(0, 6)}` })
  })
    returning id`;
  await admin`select mdame.enqueue_stage_task('script', ${run!.id}, ${unit!.id})`;
  const criticRows = (model: string) => admin`select count(*)::int as n from mdame.llm_cache where model = ${model} and response ? 'score'`;
  const before = { gemini: requests("gemini"), openai: requests("openai"), geminiCritics: (await criticRows("gemini-2.5-flash"))[0]!.n };
  await drainStageTasks(deps, { budgetMs: 30_000 });
  const [done] = await admin`select stage, script from mdame.work_units where id = ${unit!.id}`;
  expect(["safety", "plan", "media"]).toContain(done!.stage);
  const audits = done!.script.hook_audits as { score: number; reasons: string[] }[];
  const scored = audits.filter((a) => !a.reasons.some((r) => r.startsWith("narration has")));
  // The critic's requests all went to the OpenAI-compatible model (two drafts with one hook share
  // a cached audit); the drafts, and the scene plan once the unit got there, to Gemini.
  const critics = requests("openai") - before.openai;
  expect(critics).toBeGreaterThanOrEqual(1);
  expect(critics).toBeLessThanOrEqual(scored.length);
  // Gemini wrote every draft; besides them it answered at most the safety verdict of the script, the
  // scene plan and the plan's safety verdict (an allow is two readings: the text, then its
  // vocabulary), never a hook audit.
  const geminiCalls = requests("gemini") - before.gemini;
  expect(geminiCalls).toBeGreaterThanOrEqual(audits.length);
  expect(geminiCalls).toBeLessThanOrEqual(audits.length + 5);
  expect((await criticRows("gemini-2.5-flash"))[0]!.n).toBe(before.geminiCritics);
  expect((await criticRows("openai-compat/llama3.1:8b"))[0]!.n).toBeGreaterThanOrEqual(critics);
}, 60_000);

test("the safety classifier follows the dimension's safety route: another provider judges the topic", async () => {
  await route({ safety: [{ provider: "openai-compat" }] });
  const [dimension] = await admin`select * from mdame.dimensions where id = ${DIMENSION}`;
  const before = { gemini: requests("gemini"), openai: requests("openai") };
  const verdict = await gateTopic(deps, dimension as never, `Why honeybees dance ${crypto.randomUUID().slice(0, 6)}, explained`);
  expect(verdict).toMatchObject({ allowed: true, model: "openai-compat/emulated-chat" });
  // An allow is confirmed by a second reading of the text's vocabulary, on the same route.
  expect(requests("openai") - before.openai).toBe(2);
  expect(requests("gemini") - before.gemini).toBe(0);
  await route({});
});

test("a run keeps the routing it started with: a change during the day applies from the next run", async () => {
  await route({ script: [{ provider: "openai-compat" }], critic: [{ provider: "openai-compat" }] });
  // The run started under that routing: run_dimensions.config holds it, as start_run stores it.
  const [run] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`it-llm-snapshot-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  await admin`
    insert into mdame.run_dimensions (run_id, dimension_id, status, config, config_hash)
    select ${
    run!.id
  }, d.id, 'ingested', mdame.dimension_config(d), mdame.config_hash(mdame.dimension_config(d)) from mdame.dimensions d where d.id = ${DIMENSION}`;
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (${run!.id}, ${DIMENSION}, ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${
    admin.json({ title: `How tides turn ${crypto.randomUUID().slice(0, 6)}` })
  })
    returning id`;
  // Then the dimension goes back to Gemini for everything, while the unit waits for its script.
  await route({});
  await admin`select mdame.enqueue_stage_task('script', ${run!.id}, ${unit!.id})`;
  const drafts = (model: string) => admin`select count(*)::int as n from mdame.llm_cache where model = ${model} and response ? 'narration'`;
  const before = { openai: (await drafts("openai-compat/emulated-chat"))[0]!.n, gemini: (await drafts("gemini-2.5-flash"))[0]!.n };
  await drainStageTasks(deps, { budgetMs: 30_000 });
  const [done] = await admin`select stage from mdame.work_units where id = ${unit!.id}`;
  expect(["safety", "plan", "media"]).toContain(done!.stage);
  // Every draft was written by the run's model; none by the live routing's.
  expect((await drafts("openai-compat/emulated-chat"))[0]!.n).toBeGreaterThan(before.openai);
  expect((await drafts("gemini-2.5-flash"))[0]!.n).toBe(before.gemini);
}, 60_000);
