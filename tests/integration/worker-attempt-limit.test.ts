/**
 * A job that kills its worker every time: the real gpu-worker process reads it, and a failpoint
 * (MDAME_FAILPOINTS=worker.visual_generation.before-task, no failpoint dir, so it fires in every
 * process) kills the worker with SIGKILL before the task reports anything. The worker is started
 * again after each death, as the supervisor does. The job must stop coming back once its stage's
 * attempts (stage_policies.visual_generation.max_attempts = 3) are used up: the next read
 * dead-letters it with the reason, its unit fails, the rest of the run goes on, and the run closes
 * once its other unit is done.
 *
 * The dead worker's lease is ended by moving the message's vt to now, instead of waiting out the
 * 30 s visibility timeout of each attempt; pg_cron's jobs are paused so the minutely tick cannot
 * dead-letter the job in the worker's place.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv, workerEnv } from "../../stack/stack-env.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";

const LIMIT = 3;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let sql: Sql;
let storageDir: string;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(LOCAL_DB_URL, { max: 2, application: "worker-attempt-limit-test" });
  await sql`update cron.job set active = false`;
  storageDir = mkdtempSync(join(tmpdir(), "mdame-attempt-limit-storage-"));
}, 60_000);

afterAll(async () => {
  if (sql) {
    await sql`update cron.job set active = true`;
    await sql.end({ timeout: 2 });
  }
  await db.reset({ log: () => {} });
  rmSync(storageDir, { recursive: true, force: true });
}, 60_000);

function spawnGpuWorker(attempt: number) {
  return Bun.spawn([process.execPath, join(paths.root, "gpu-worker", "main.ts")], {
    cwd: paths.root,
    env: {
      // As the supervisor starts it: its own database role, none of the publisher's secrets.
      ...workerEnv(localStackEnv(), "gpu-worker"),
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      STORAGE_BACKEND: "local",
      STORAGE_LOCAL_DIR: storageDir,
      WORKER_ID: `attempt-limit-worker-${attempt}`,
      LOG_LEVEL: "info",
      MDAME_FAILPOINTS: "worker.visual_generation.before-task",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** A running run of two units: A waits for one scene (the killing job), B is at plan. */
async function seedRun() {
  const [run] = await sql`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`attempt-limit-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  await sql`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run.id}, 'tech-explained', 'ingested')`;
  const units = await sql`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    select ${run.id}, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "A topic"}', stage,
           '{"title": "A title", "narration": "words", "description": "d", "hashtags": ["#t"]}'
      from unnest(array['media', 'plan']) as stage
    returning id, stage`;
  const unitA = units.find((u) => u.stage === "media")!.id as string;
  const unitB = units.find((u) => u.stage === "plan")!.id as string;
  const sceneHash = "c".repeat(64);
  const [scene] = await sql`
    insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status)
    values (${unitA}, 0, 'a slow pan over a circuit board', 'words', 0, 3, ${sceneHash}, 'queued') returning id`;
  const job = {
    run_id: run.id,
    unit_id: unitA,
    scene_id: scene.id,
    scene_index: 0,
    scene_hash: sceneHash,
    dimension_id: "tech-explained",
    prompt: "a slow pan over a circuit board",
    style: { palette: ["#112233", "#445566"], motion: "drift", caption_font: "DejaVu Sans" },
    duration_s: 3,
    width: 720,
    height: 1280,
    fps: 30,
    step_token: `step:${unitA}:5:${sceneHash}`,
  };
  const [sent] = await sql`select pgmq.send('visual_generation', ${sql.json(job)}) as msg_id`;
  return { runId: run.id as string, unitA, unitB, msgId: Number(sent.msg_id) };
}

test("a job that kills its worker on every attempt is dead-lettered at its limit; its run goes on, then closes", async () => {
  const { runId, unitA, unitB, msgId } = await seedRun();
  const evidence: string[] = [];

  for (let attempt = 1; attempt <= LIMIT; attempt++) {
    const worker = spawnGpuWorker(attempt);
    const exited = await Promise.race([worker.exited.then(() => true), sleep(30_000).then(() => false)]);
    if (!exited) worker.kill("SIGKILL");
    evidence.push(await new Response(worker.stderr).text());
    expect(exited).toBe(true);
    expect(worker.signalCode).toBe("SIGKILL");
    const [row] = await sql`select read_ct, vt > now() as leased from pgmq.q_visual_generation where msg_id = ${msgId}`;
    expect(Number(row.read_ct)).toBe(attempt);
    expect(row.leased).toBe(true);
    // The dead worker never renews its lease: end it now rather than waiting out the 30 s.
    await sql`update pgmq.q_visual_generation set vt = now() where msg_id = ${msgId}`;
  }

  // Started once more, the worker must not be handed the job again: it stays up, and the job is
  // dead-lettered by its read.
  const worker = spawnGpuWorker(LIMIT + 1);
  let deadLetter: { read_ct: number; last_error: string } | undefined;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && worker.exitCode === null && worker.signalCode === null;) {
    [deadLetter] = await sql<{ read_ct: number; last_error: string }[]>`
      select read_ct, last_error from mdame.dead_letters where queue_name = 'visual_generation' and msg_id = ${msgId}`;
    if (deadLetter) break;
    await sleep(200);
  }
  const stillUp = worker.exitCode === null && worker.signalCode === null;
  worker.kill("SIGTERM");
  await worker.exited;
  if (!stillUp || !deadLetter) console.error(evidence.join("\n---\n"), await new Response(worker.stderr).text());
  expect(stillUp).toBe(true);
  expect(deadLetter?.read_ct).toBe(LIMIT + 1);
  expect(deadLetter?.last_error).toBe(`read ${LIMIT + 1} times without a result (limit ${LIMIT}): the worker stopped before reporting each time`);

  const [queued] = await sql`select count(*)::int as n from pgmq.q_visual_generation where msg_id = ${msgId}`;
  expect(queued.n).toBe(0);
  const units = Object.fromEntries((await sql`select id, stage, error from mdame.work_units where run_id = ${runId}`).map((u) => [u.id, u]));
  expect(units[unitA].stage).toBe("failed");
  expect(units[unitA].error).toContain("the worker stopped before reporting each time");
  expect(units[unitB].stage).toBe("plan");
  const [running] = await sql`select status from mdame.pipeline_runs where id = ${runId}`;
  expect(running.status).toBe("running");

  // The other unit finishes; the next tick closes the run.
  await sql`update mdame.work_units set stage = 'published' where id = ${unitB}`;
  await sql`select mdame.tick()`;
  const [closed] = await sql`select status from mdame.pipeline_runs where id = ${runId}`;
  expect(closed.status).toBe("completed");
}, 120_000);
