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
    values (${run!.run_id}, 'tech-explained', ${`${key}-unit`}, ${`${key}-fp`}, ${admin.json(topic)}) returning id`;
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
