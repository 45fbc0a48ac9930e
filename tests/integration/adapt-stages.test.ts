/**
 * The stages read the adaptive parameters in force when their run started: the script stage's pass
 * score is the run's hook threshold, and a unit with its own length (the run's exploration) is
 * asked for, and accepted at, a narration of that length.
 */
import { expect, test } from "bun:test";
import { SCRIPT_ROUNDS } from "../../functions/pipeline/stages/script.ts";
import { splitWords } from "../../functions/pipeline/stages/unit.ts";
import { narrationWordsFor } from "../../shared/adapt/apply.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const admin = adminSql();
const pipeline = withPipeline({ storagePrefix: "mdame-it-adapt-" });

/** A run of tech-explained started now, its ingest set aside, with one unit of `topic` waiting at script. */
async function unitAtScript(key: string, topic: Record<string, unknown>) {
  const [run] = await admin`select run_id from mdame.start_run(${key}, 'dev', 'manual', current_date, 'tech-explained')`;
  await admin`select pgmq.archive('stage_tasks', msg_id) from pgmq.q_stage_tasks where message->>'stage' = 'ingest'`;
  await admin`update mdame.run_dimensions set status = 'ingested' where run_id = ${run!.run_id}`;
  const [unit] = await admin`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (${run!.run_id}, 'tech-explained', ${`${key}-unit`}, ${`${key}-fp`}, ${admin.json(topic as never)}) returning id`;
  await admin`select mdame.enqueue_stage_task('script', ${run!.run_id}, ${unit!.id})`;
  return { runId: run!.run_id as string, unitId: unit!.id as string };
}

async function tick() {
  const response = await pipeline.app.request("/pipeline/tick", { method: "POST", headers: pipeline.auth, body: "{}" });
  expect(response.status).toBe(200);
}

test("the script stage's pass score is the run's adapted hook threshold", async () => {
  await admin`select mdame.record_adaptation('tech-explained', 'hook_threshold', '0.72', '0.66', 'operator test', '{}', null)`;
  const { runId, unitId } = await unitAtScript("it-adapt-hook", { title: "How tides work", context: ["The moon pulls the oceans."] });
  const [config] = await admin`select config->'adapt'->'hook_threshold'->'value' as value from mdame.run_dimensions where run_id = ${runId}`;
  expect(config!.value).toBe(0.66);
  await pipeline.emulator.armFault({ service: "gemini", kind: "low_hook_scores", count: 1000 });
  await tick();
  const [unit] = await admin`select stage, error from mdame.work_units where id = ${unitId}`;
  expect(unit).toEqual({ stage: "rejected", error: `no hook reached 0.66 in ${SCRIPT_ROUNDS} rounds (best 0.2)` });
  await pipeline.emulator.reset();
}, 120_000);

test("a unit with its own length is written at that length", async () => {
  await pipeline.emulator.reset();
  // 40 s is 95-105 words: the emulated model writes at least 106 for the dimension's whole 95-150 range.
  const length = { target_s: 44, length_arm: "short", video_length_s: 40 };
  const { unitId } = await unitAtScript("it-adapt-length", { title: "Why the sky is blue", context: ["Sunlight scatters in the air."], adapt: length });
  await tick();
  const [unit] = await admin`select stage, script from mdame.work_units where id = ${unitId}`;
  expect(unit!.stage).not.toBe("rejected");
  const words = splitWords(unit!.script.narration, "en").length;
  const range = narrationWordsFor(40, { min: 95, max: 150 });
  expect(range).toEqual({ min: 95, max: 105 });
  expect(words).toBeGreaterThanOrEqual(range.min);
  expect(words).toBeLessThanOrEqual(range.max);
}, 120_000);

test("with a target length, the ingest gives the run's units alternating short and long lengths", async () => {
  await pipeline.emulator.reset();
  // The global run lock: the earlier tests' runs make way.
  await admin`select mdame.abort_run(id, 'next test') from mdame.pipeline_runs where status = 'running'`;
  await admin`select mdame.record_adaptation('tech-explained', 'video_length', 'null', '47', 'operator test', '{}', null)`;
  await admin`select mdame.record_adaptation('tech-explained', 'daily_volume', '1', '3', 'operator test', '{}', null)`;
  const [run] = await admin`select run_id from mdame.start_run('it-adapt-ingest', 'dev', 'manual', current_date, 'tech-explained')`;
  const [config] = await admin`select config from mdame.run_dimensions where run_id = ${run!.run_id}`;
  expect(config!.config.daily_limit).toBe(3);
  expect(config!.config.adapt.video_length.target_s).toBe(47);
  await tick();
  const units = await admin`select topic->'adapt' as adapt, topic->'categories' as categories from mdame.work_units where run_id = ${
    run!.run_id
  } order by created_at, id`;
  expect(units.length).toBeGreaterThanOrEqual(2);
  const arms = units.map((u) => u.adapt);
  expect(arms.filter((a) => a.length_arm === "short").length).toBe(Math.ceil(units.length / 2));
  expect(new Set(arms.map((a) => a.video_length_s))).toEqual(new Set([43, 51].slice(0, Math.min(2, units.length))));
  for (const u of units) expect(Array.isArray(u.categories)).toBe(true);
}, 120_000);
