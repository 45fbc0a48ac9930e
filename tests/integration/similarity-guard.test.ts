/**
 * The channel-standing guard in the pipeline (docs/reference/similarity.md), run by the stage runner
 * against the Gemini emulator: a unit whose script is a copy of a video the dimension published is
 * sent back to its script stage, written again under new step tokens, and rejected as too_similar
 * when the new script is still too close; a unit on another topic passes and its signature is stored.
 */
import { expect, test } from "bun:test";
import { UnitSimilarity } from "../../shared/contracts/similarity.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const admin = adminSql();
const pipeline = withPipeline({ storagePrefix: "mdame-it-similarity-" });

/** A unit of the run waiting at the script stage. */
async function unitAtScript(runId: string, key: string, title: string): Promise<string> {
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (${runId}, 'tech-explained', ${key}, ${key}, ${admin.json({ title, context: ["The moon pulls the oceans and the land."] })})
    returning id`;
  await admin`select mdame.enqueue_stage_task('script', ${runId}, ${unit.id})`;
  return unit.id;
}

async function unitRow(id: string) {
  const [row] = await admin`select stage, error, script, similarity from mdame.work_units where id = ${id}`;
  const { stage, error, script } = row as { stage: string; error: string | null; script: { title: string; narration: string } };
  return { stage, error, script, checks: UnitSimilarity.parse(row.similarity).checks };
}

test("a copy of a published video is written again, then rejected as too_similar; another topic passes", async () => {
  // The dimension's guard as the run takes it: one rewrite, and a threshold the emulator's rewrite of the same topic still reaches.
  await admin`update mdame.dimensions set similarity = '{"threshold": 0.3, "compare_last": 60, "max_regenerations": 1}' where id = 'tech-explained'`;
  const [run] = await admin`select run_id from mdame.start_run('it-similarity-run', 'dev', 'manual', current_date, 'tech-explained')`;
  await admin`select pgmq.archive('stage_tasks', msg_id) from pgmq.q_stage_tasks where message->>'stage' = 'ingest'`;
  await admin`update mdame.run_dimensions set status = 'ingested' where run_id = ${run.run_id}`;

  // The first video of the topic has nothing to compare with: it passes and its signature is stored.
  const first = await unitAtScript(run.run_id, "it-sim-first", "How tides work");
  await pipeline.drain(20);
  const passed = await unitRow(first);
  expect(passed.stage).toBe("media");
  expect(passed.checks).toHaveLength(1);
  expect(passed.checks[0]).toMatchObject({ action: "passed", verdict: "passed", compared: 0, closest: null });
  const [stored] =
    await admin`select title, cardinality(script_minhash) as n, cardinality(scene_hashes) as scenes from mdame.content_signatures where unit_id = ${first}`;
  expect(stored).toMatchObject({ title: passed.script.title, n: 128 });
  expect(stored.scenes).toBeGreaterThanOrEqual(5);
  await admin`update mdame.work_units set stage = 'published' where id = ${first}`;

  // The same topic again: the same prompt writes the same script, a copy of the published video.
  const copy = await unitAtScript(run.run_id, "it-sim-copy", "How tides work");
  await pipeline.drain(30);
  const rejected = await unitRow(copy);
  expect(rejected.checks.map((c) => c.action)).toEqual(["regenerated", "rejected"]);
  const [again, last] = rejected.checks;
  expect(again.closest).toMatchObject({ unit_id: first, figures: { combined: 1, script: 1, hook: 1, title: 1, scenes: 1 } });
  // The rewrite is another script, still over the dimension's threshold.
  expect(rejected.script.title === passed.script.title && rejected.script.narration === passed.script.narration).toBe(false);
  expect(last.closest!.figures.combined).toBeLessThan(1);
  expect(last.closest!.figures.combined).toBeGreaterThanOrEqual(0.3);
  expect(rejected.stage).toBe("rejected");
  expect(rejected.error).toStartWith(`too_similar: ${last.closest!.figures.combined} to "${passed.script.title}"`);
  expect(rejected.error).toEndWith("after 1 regeneration(s)");
  // The second pass ran under its own step tokens: each stage of the unit has one result per pass.
  const steps = await admin`select message->>'stage' as stage, message->'regeneration' as regeneration
                              from pgmq.a_stage_tasks where message->>'unit_id' = ${copy} order by msg_id`;
  expect(steps.map((s) => `${s.stage}:${s.regeneration ?? 0}`)).toEqual(["script:0", "safety:0", "plan:0", "script:1", "safety:1", "plan:1"]);
  expect(await admin`select 1 from mdame.content_signatures where unit_id = ${copy}`).toHaveLength(0);

  // Another topic of the same dimension: compared with the published video, and passes.
  await admin`update mdame.dimensions set similarity = '{"threshold": 0.5, "compare_last": 60, "max_regenerations": 1}' where id = 'tech-explained'`;
  const [run2] = await admin`select run_id from mdame.start_run('it-similarity-run-2', 'dev', 'manual', current_date, 'tech-explained')`;
  await admin`select pgmq.archive('stage_tasks', msg_id) from pgmq.q_stage_tasks where message->>'stage' = 'ingest'`;
  await admin`update mdame.run_dimensions set status = 'ingested' where run_id = ${run2.run_id}`;
  const other = await unitAtScript(run2.run_id, "it-sim-other", "Why volcanoes erupt");
  await pipeline.drain(20);
  const honest = await unitRow(other);
  expect(honest.stage).toBe("media");
  expect(honest.checks).toHaveLength(1);
  expect(honest.checks[0]).toMatchObject({ action: "passed", compared: 1, threshold: 0.5, closest: { unit_id: first } });
  expect(honest.checks[0].closest!.figures.combined).toBeLessThan(0.5);
}, 180_000);
