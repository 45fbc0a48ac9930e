/**
 * The pipeline Edge Function's stages against the real Postgres and the emulators, in-process:
 * trigger -> ingest -> script + hook audit -> safety -> plan -> voice, checked at the queue
 * boundaries the Bun workers read.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { VisualJob } from "../../shared/contracts/queue.ts";
import { VoiceTrack } from "../../shared/contracts/media.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const admin = adminSql();

const pipeline = withPipeline({ storagePrefix: "mdame-it-storage-" });

const tick = () => pipeline.tick();

describe("pipeline stages", () => {
  test("the trigger needs the service-role key and validates its body", async () => {
    expect((await pipeline.app.request("/pipeline/runs", { method: "POST", body: "{}" })).status).toBe(401);
    const bad = await pipeline.app.request("/pipeline/runs", { method: "POST", headers: pipeline.auth, body: JSON.stringify({ dimension: 5 }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
    const unknown = await pipeline.app.request("/pipeline/runs", { method: "POST", headers: pipeline.auth, body: JSON.stringify({ dimension: "nope" }) });
    expect(unknown.status).toBe(404);
  });

  test("a run goes from trends to visual jobs and a voice track for every dimension", async () => {
    const trigger = await pipeline.app.request("/pipeline/runs", { method: "POST", headers: pipeline.auth, body: "{}" });
    expect(trigger.status).toBe(202);
    const run = await trigger.json() as { run_id: string; created: boolean; status_url: string };
    expect(run.created).toBe(true);
    expect(run.status_url).toEndWith(`/pipeline/runs/${run.run_id}`);

    // The same trigger again is the same run.
    const again = await (await pipeline.app.request("/pipeline/runs", { method: "POST", headers: pipeline.auth, body: "{}" })).json() as {
      run_id: string;
      created: boolean;
    };
    expect(again).toMatchObject({ run_id: run.run_id, created: false });

    for (let i = 0; i < 20; i++) {
      const result = await tick();
      if (result.processed === 0) break;
    }

    const units = await admin`select id, dimension_id, stage, script, voice from mdame.work_units where run_id = ${run.run_id} order by dimension_id`;
    const dimensions = await admin`select id, daily_limit from mdame.dimensions where active order by id`;
    expect(units.map((u) => u.dimension_id)).toEqual(dimensions.map((d) => d.id));
    for (const unit of units) {
      expect(unit.stage).toBe("media");
      expect(unit.script.hook_score).toBeGreaterThanOrEqual(0.72);
      const voice = VoiceTrack.parse(unit.voice);
      expect(voice.duration_ms).toBeGreaterThan(20_000);
      expect(voice.duration_ms).toBeLessThan(75_000);
      expect(await pipeline.deps.store.exists(voice.audio_key)).toBe(true);
      // Scene starts were aligned to the spoken words, in order.
      const scenes = await admin`select scene_index, first_word, status from mdame.scenes where unit_id = ${unit.id} order by scene_index`;
      expect(scenes.length).toBeGreaterThanOrEqual(5);
      expect(scenes.length).toBeLessThanOrEqual(10);
      const firsts = scenes.map((s) => s.first_word as number);
      expect(firsts[0]).toBe(0);
      for (let i = 1; i < firsts.length; i++) expect(firsts[i]).toBeGreaterThan(firsts[i - 1]);
      expect(firsts.at(-1)!).toBeLessThan(voice.words.length);
    }

    // One visual job per scene, each a valid contract for the gpu-worker.
    const jobs = await admin`select message from pgmq.q_visual_generation`;
    const sceneCount = await admin`select count(*)::int as n from mdame.scenes s join mdame.work_units u on u.id = s.unit_id where u.run_id = ${run.run_id}`;
    expect(jobs.length).toBe(sceneCount[0].n);
    for (const job of jobs) VisualJob.parse(job.message);

    // The rejected fixture topics were audited, not turned into units.
    const audits = await admin`select subject, verdict from mdame.safety_audit_logs where run_id = ${run.run_id} and verdict = 'rejected'`;
    expect(audits.length).toBeGreaterThan(0);

    const status = await (await pipeline.app.request(`/pipeline/runs/${run.run_id}`, { headers: pipeline.auth })).json() as {
      run: { status: string };
      units: { stage: string }[];
    };
    expect(status.run.status).toBe("running");
    expect(status.units.every((u) => u.stage === "media")).toBe(true);
  }, 180_000);

  test("another run key for the dimensions today's run is running finds that run", async () => {
    const [open] = await admin`select id from mdame.pipeline_runs where status = 'running'`;
    const trigger = await pipeline.app.request("/pipeline/runs", {
      method: "POST",
      headers: pipeline.auth,
      body: JSON.stringify({ idempotency_key: "it-second-run-key" }),
    });
    expect(trigger.status).toBe(202);
    expect(await trigger.json()).toMatchObject({ run_id: open.id, created: false });
    expect(await admin`select id from mdame.pipeline_runs`).toHaveLength(1);
  });

  test("a failing LLM call is retried after the backoff, not lost", async () => {
    // A fresh unit at the script stage of the open run, with its task enqueued.
    const [run] = await admin`select id from mdame.pipeline_runs where status = 'running'`;
    const [unit] = await admin`
      insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
      values (${run.id}, 'tech-explained', 'it-retry-unit', 'it-retry-fp', '{"title": "How noise-cancelling headphones work"}')
      returning id`;
    await admin`select mdame.enqueue_stage_task('script', ${run.id}, ${unit.id})`;
    await pipeline.emulator.armFault({ service: "gemini", kind: "unavailable", count: 1 });

    const first = await tick();
    expect(first.failed).toBe(1);
    const [afterFailure] = await admin`select stage, error from mdame.work_units where id = ${unit.id}`;
    expect(afterFailure.stage).toBe("script");
    expect(afterFailure.error).toContain("503");
    const [msg] = await admin`select read_ct, vt > now() as hidden from pgmq.q_stage_tasks where message->>'unit_id' = ${unit.id}`;
    expect(msg).toMatchObject({ read_ct: 1, hidden: true });

    // Once the backoff has passed, the same message runs again and succeeds.
    await admin`update pgmq.q_stage_tasks set vt = now() where message->>'unit_id' = ${unit.id}`;
    for (let i = 0; i < 5; i++) if ((await tick()).processed === 0) break;
    const [afterRetry] = await admin`select stage from mdame.work_units where id = ${unit.id}`;
    expect(["safety", "plan", "media"]).toContain(afterRetry.stage);
  }, 60_000);
});
