/**
 * Runs overlap: a dimension's run starts when it falls due whatever another run has in flight. Here
 * dimension A's run is rendering (its unit at stage render, the render job leased by a worker for
 * ten minutes, and a completion holding the unit and its run in an open transaction) when dimension
 * B falls due: B's run starts at once with its ingest task queued, A's work is untouched, and no
 * lock outlives the pass that started B. A second trigger of B's day finds B's run.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSql, type Sql } from "../../shared/db/client.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv, workerEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();
const A = "tech-explained";
const B = "sains-singkat";
const DAY = "2026-12-10";

let engine: Sql;
/** The render worker's own role: it leases render jobs (docs/reference/roles.md). */
let renderRunner: Sql;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  // The workers. role for their RPCs; the scheduled trigger runs as pg_cron does, as the superuser.
  engine = createSql(localStackEnv().DB_URL, { max: 2, application: "mdame-it-overlap" });
  renderRunner = createSql(workerEnv(localStackEnv(), "render-runner").DB_URL!, { max: 1, application: "mdame-it-overlap-render" });
  await admin`update cron.job set active = false`;
  await admin`update mdame.dimensions set active = id in (${A}, ${B}), created_at = '2026-01-01T00:00:00Z'`;
  await admin`update mdame.dimensions set publishing = publishing || jsonb_build_object('time_zone', 'UTC', 'run_time', case id when ${A} then '05:00' else '06:00' end)
               where id in (${A}, ${B})`;
}, 60_000);

afterAll(async () => {
  await engine?.end({ timeout: 2 });
  await renderRunner?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

test("dimension B's run starts when it falls due while A's render is in flight", async () => {
  const [first] = await admin`select * from mdame.trigger_due_runs(${`${DAY}T05:00:00Z`}::timestamptz)`;
  expect(first.created).toBe(true);
  expect([...await admin`select dimension_id from mdame.run_dimensions where run_id = ${first.run_id}`]).toEqual([{ dimension_id: A }]);

  // A's ingest is done and its one unit renders: the job is leased by a render worker.
  await admin`update mdame.run_dimensions set status = 'ingested' where run_id = ${first.run_id}`;
  await admin`delete from pgmq.q_stage_tasks`;
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, stage_deadline)
    values (${first.run_id}, ${A}, md5(random()::text), md5(random()::text), '{"title": "A topic"}', 'render', now() + interval '1 hour')
    returning id`;
  await admin`select pgmq.send('render', jsonb_build_object('unit_id', ${unit.id}::uuid, 'run_id', ${first.run_id}::uuid))`;
  const leased = await renderRunner`select msg_id, read_ct from mdame.read_worker_jobs('render', 600, 1)`;
  expect(leased).toHaveLength(1);

  // A completion of A's render is under way: it holds the unit and the run, and has not committed.
  const completion = await admin.reserve();
  let secondRun = "";
  try {
    await completion`begin`;
    await completion`select id from mdame.work_units where id = ${unit.id} for update`;
    await completion`select id from mdame.pipeline_runs where id = ${first.run_id} for no key update`;

    const started = Date.now();
    const [second] = await admin`select * from mdame.trigger_due_runs(${`${DAY}T06:00:00Z`}::timestamptz)`;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(second.created).toBe(true);
    expect(second.run_id).not.toBe(first.run_id);
    secondRun = second.run_id;
    expect([...await admin`select dimension_id, status from mdame.run_dimensions where run_id = ${second.run_id}`])
      .toEqual([{ dimension_id: B, status: "ingesting" }]);
    const ingest = await admin`select message->>'dimension_id' as dimension from pgmq.q_stage_tasks
                                where message->>'stage' = 'ingest' and message->>'run_id' = ${second.run_id}`;
    expect([...ingest]).toEqual([{ dimension: B }]);
    expect(await admin`select name from mdame.system_locks`).toHaveLength(0);
  } finally {
    await completion`rollback`;
    completion.release();
  }

  // A's work goes on as it was: the unit renders, its job is still leased, its run still runs.
  const [a] =
    await admin`select u.stage, u.stage_attempts, r.status from mdame.work_units u join mdame.pipeline_runs r on r.id = u.run_id where u.id = ${unit.id}`;
  expect({ ...a }).toEqual({ stage: "render", stage_attempts: 0, status: "running" });
  const [job] = await admin`select read_ct, vt > now() as invisible from pgmq.q_render where msg_id = ${leased[0].msg_id}`;
  expect({ ...job }).toEqual({ read_ct: 1, invisible: true });

  // B's day is started: a later trigger the same day starts nothing, and a manual one finds B's run.
  expect(await admin`select * from mdame.trigger_due_runs(${`${DAY}T06:05:00Z`}::timestamptz)`).toHaveLength(0);
  const [manual] = await engine`select * from mdame.trigger_run('dev', 'manual', ${DAY}::date, ${B}::text)`;
  expect({ ...manual }).toMatchObject({ run_id: secondRun, created: false });
  const [runs] = await admin`select count(*)::int as n from mdame.pipeline_runs`;
  expect(runs.n).toBe(2);
}, 60_000);
