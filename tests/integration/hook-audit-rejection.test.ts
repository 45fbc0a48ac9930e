/**
 * The script stage run by the stage runner against a Gemini emulator that scores every hook low:
 * three rounds of three candidates, each audited, then the unit is rejected with the reason and
 * every audit kept.
 */
import { expect, test } from "bun:test";
import { CANDIDATE_TEMPERATURES, HOOK_PASS_THRESHOLD, SCRIPT_ROUNDS } from "../../functions/pipeline/stages/script.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const admin = adminSql();

const pipeline = withPipeline({ storagePrefix: "mdame-it-hook-" });

/** generateContent calls the emulator has answered (its request log). */
const geminiCalls = () => pipeline.emulator.logs.filter((entry) => entry.service === "gemini" && String(entry.path).endsWith(":generateContent")).length;

test("a topic whose hooks all score under the pass mark is rejected at the script stage, its audits stored", async () => {
  const [run] = await admin`select run_id from mdame.start_run('it-hook-audit-run', 'dev', 'manual', current_date, 'tech-explained')`;
  // The run's ingest is not the subject here: its task goes, and one unit waits at script.
  await admin`select pgmq.archive('stage_tasks', msg_id) from pgmq.q_stage_tasks where message->>'stage' = 'ingest'`;
  await admin`update mdame.run_dimensions set status = 'ingested' where run_id = ${run.run_id}`;
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (${run.run_id}, 'tech-explained', 'it-hook-unit', 'it-hook-fp', '{"title": "How tides work", "context": ["The moon pulls the oceans."]}')
    returning id`;
  await admin`select mdame.enqueue_stage_task('script', ${run.run_id}, ${unit.id})`;
  await pipeline.emulator.armFault({ service: "gemini", kind: "low_hook_scores", count: 1000 });

  const before = geminiCalls();
  const response = await pipeline.app.request("/pipeline/tick", { method: "POST", headers: pipeline.auth, body: "{}" });
  expect(response.status).toBe(200);
  const drained = await response.json() as { processed: number; failed: number };
  expect(drained.failed).toBe(0);

  const [rejected] = await admin`select stage, error, script from mdame.work_units where id = ${unit.id}`;
  expect(rejected.stage).toBe("rejected");
  expect(rejected.error).toBe(`no hook reached ${HOOK_PASS_THRESHOLD} in ${SCRIPT_ROUNDS} rounds (best 0.2)`);
  const audits = rejected.script.hook_audits as { round: number; candidate: number; score: number; reasons: string[] }[];
  expect(audits).toHaveLength(SCRIPT_ROUNDS * CANDIDATE_TEMPERATURES.length);
  expect(new Set(audits.map((a) => `${a.round}/${a.candidate}`)).size).toBe(audits.length);
  for (const audit of audits) {
    expect(audit.score).toBe(0.2);
    expect(audit.reasons).toEqual(["the opening does not give a viewer a reason to stay"]);
  }
  // Nine drafts went to the model, and the audits too, but for a hook drafted twice: its audit
  // prompt is the same, so the LLM cache answers the second time.
  const calls = geminiCalls() - before;
  expect(calls).toBeGreaterThan(SCRIPT_ROUNDS * CANDIDATE_TEMPERATURES.length);
  expect(calls).toBeLessThanOrEqual(2 * SCRIPT_ROUNDS * CANDIDATE_TEMPERATURES.length);

  // Nothing goes on to safety; the run closes with the unit rejected.
  const queued = await admin`select message from pgmq.q_stage_tasks where message->>'unit_id' = ${unit.id}`;
  expect(queued).toHaveLength(0);
  const [closed] = await admin`select status from mdame.pipeline_runs where id = ${run.run_id}`;
  expect(closed.status).toBe("completed");
  const [event] = await admin`select detail from mdame.events where unit_id = ${unit.id} and kind = 'script_rejected'`;
  expect(event.detail.audits).toBe(9);
}, 120_000);
