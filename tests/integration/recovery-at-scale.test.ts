/**
 * The recovery pass at scale, and deadlines that count work, not waiting. With 100,000 messages in
 * each of the stage_tasks, visual_generation and render queues and 50,000 finished units, every
 * statement mdame.recover_overdue_work runs (and the tick's scan of worker queues for jobs read past
 * their limit) is planned through an index: auto_explain, at notice level, hands each nested plan to
 * this session, and none has a Seq Scan on a queue table or on work_units. A burst of 200 units
 * whose render jobs wait far past the render deadline neither fails nor spends an attempt; once a
 * worker leases some of them and they overrun, those (and only those) spend attempts and then fail,
 * as before.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { LOCAL_STACK } from "../../shared/config/local-stack.ts";
import * as db from "../../stack/db.ts";

const BURST = 200;
const LEASED = 20;
const QUEUES = ["q_stage_tasks", "q_visual_generation", "q_render"];
const SCANNED = new Set([...QUEUES, "work_units"]);

let notices: string[] = [];
let sql: postgres.Sql;
let burstRun = "";

type PlanNode = { "Node Type": string; "Relation Name"?: string; Plans?: PlanNode[] };

/** Every (node type, relation) of the plans auto_explain reported since the last call. */
function takePlans(): { query: string; nodes: { type: string; relation?: string }[] }[] {
  const plans = notices.flatMap((text) => {
    const at = text.indexOf("{");
    if (!text.includes("plan:") || at < 0) return [];
    const plan = JSON.parse(text.slice(at)) as { "Query Text": string; Plan: PlanNode };
    const nodes: { type: string; relation?: string }[] = [];
    const walk = (node: PlanNode) => {
      nodes.push({ type: node["Node Type"], relation: node["Relation Name"] });
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan.Plan);
    return [{ query: plan["Query Text"], nodes }];
  });
  notices = [];
  return plans;
}

const seqScans = (plans: ReturnType<typeof takePlans>) =>
  plans.flatMap((p) => p.nodes.filter((n) => n.type === "Seq Scan" && SCANNED.has(n.relation ?? "")).map((n) => `${n.relation}: ${p.query}`));

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = postgres({
    host: LOCAL_STACK.host,
    port: LOCAL_STACK.dbPort,
    user: "postgres",
    password: "postgres",
    database: "postgres",
    max: 1,
    onnotice: (notice) => notices.push(String(notice.message)),
  });
  await sql`update cron.job set active = false`;
  // 1,000 finished runs of 50 published units each.
  await sql`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, status, finished_at)
    select 'scale-' || i, 'dev', date '2026-01-01' + (i % 300), 'manual', 'completed', now() from generate_series(1, 1000) i`;
  await sql`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage)
    select r.id, 'tech-explained', 'scale-' || r.idempotency_key || '-' || i, md5(r.idempotency_key || ':' || i), '{}', 'published'
      from mdame.pipeline_runs r cross join generate_series(1, 50) i`;
  // The burst: one running run, 200 units at render whose jobs have waited ten hours (the render
  // deadline is one hour), sent before the crowd so a worker's read takes them first.
  [{ id: burstRun }] = await sql`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind) values ('burst', 'dev', current_date, 'manual') returning id`;
  await sql`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${burstRun}, 'tech-explained', 'ingested')`;
  await sql`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, stage_deadline, created_at)
    select ${burstRun}, 'tech-explained', 'burst-' || i, md5('burst' || i), '{}', 'render', now() - interval '9 hours', now() - interval '10 hours'
      from generate_series(1, ${BURST}) i`;
  await sql`
    insert into pgmq.q_render (vt, enqueued_at, message)
    select now() - interval '10 hours', now() - interval '10 hours', jsonb_build_object('unit_id', id, 'run_id', run_id)
      from mdame.work_units where run_id = ${burstRun} order by unit_key`;
  // The crowd: 100,000 messages in each queue, for other units, none of them visible yet.
  for (const queue of QUEUES) {
    await sql.unsafe(`
      insert into pgmq.${queue} (vt, message)
      select now() + interval '1 day', jsonb_build_object('unit_id', gen_random_uuid(), 'run_id', gen_random_uuid(), 'stage', 'script')
        from generate_series(1, 100000)`);
  }
  await sql`analyze mdame.work_units`;
  for (const queue of QUEUES) await sql.unsafe(`analyze pgmq.${queue}`);
  await sql`load 'auto_explain'`;
  await sql`set auto_explain.log_min_duration = 0`;
  await sql`set auto_explain.log_nested_statements = on`;
  await sql`set auto_explain.log_format = 'json'`;
  await sql`set auto_explain.log_level = 'notice'`;
}, 240_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

test("a burst waiting in the queue far past the old deadline neither fails nor spends attempts, through indexes only", async () => {
  // Overdue by the old rule, whatever a tick that ran before pg_cron was paused did with them.
  await sql`update mdame.work_units set stage_deadline = now() - interval '9 hours' where run_id = ${burstRun}`;
  notices = [];
  const [{ result }] = await sql`select mdame.recover_overdue_work() as result`;
  const plans = takePlans();
  expect(result).toEqual({ requeued: 0, failed: 0 });
  // The pass looked at every overdue unit (200 lookups per queue kind) without scanning any table.
  expect(plans.filter((p) => /queued_work_state|unit_id/.test(p.query)).length).toBeGreaterThanOrEqual(BURST);
  expect(seqScans(plans)).toEqual([]);

  const [units] = await sql`
    select count(*) filter (where stage = 'render')::int as rendering, max(stage_attempts)::int as attempts,
           bool_and(stage_deadline > now()) as next_check_ahead
      from mdame.work_units where run_id = ${burstRun}`;
  expect({ ...units }).toEqual({ rendering: BURST, attempts: 0, next_check_ahead: true });
  const [queued] = await sql`select count(*)::int as n from pgmq.q_render where message->>'run_id' = ${burstRun}`;
  expect(queued.n).toBe(BURST);
}, 120_000);

test("the tick's scan for worker jobs read past their limit goes through the read count index", async () => {
  notices = [];
  await sql`select mdame.tick()`;
  const plans = takePlans();
  const scans = plans.filter((p) => p.query.includes("read_ct >="));
  expect(scans.length).toBe(2);
  expect(seqScans(scans)).toEqual([]);
  expect(seqScans(plans.filter((p) => !p.query.includes("q_stage_tasks where vt")))).toEqual([]);
}, 120_000);

test("once leased and overrunning, attempts count as before", async () => {
  await sql`set auto_explain.log_min_duration = -1`;
  const leased = await sql`select message->>'unit_id' as unit_id from mdame.read_worker_jobs('render', 3600, ${LEASED})`;
  expect(leased).toHaveLength(LEASED);
  const ids = leased.map((row) => row.unit_id as string);
  const [fresh] =
    await sql`select bool_and(stage_deadline > now() + interval '3500 seconds') as restarted from mdame.work_units where id = any (${ids}::uuid[])`;
  expect(fresh.restarted).toBe(true);

  // The leased renders overrun the deadline their lease started; the waiting ones are due a check too.
  await sql`update mdame.work_units set stage_deadline = now() - interval '1 second' where run_id = ${burstRun}`;
  expect((await sql`select mdame.recover_overdue_work() as r`)[0].r).toEqual({ requeued: 0, failed: 0 });
  const attempts = await sql`select stage_attempts as n, count(*)::int as units from mdame.work_units where run_id = ${burstRun} group by 1 order by 1`;
  expect([...attempts]).toEqual([{ n: 0, units: BURST - LEASED }, { n: 1, units: LEASED }]);

  // Their last attempt overruns too: they fail with the reason; the waiting ones still wait.
  await sql`update mdame.work_units set stage_deadline = now() - interval '1 second', stage_attempts = 3 where id = any (${ids}::uuid[])`;
  expect((await sql`select mdame.recover_overdue_work() as r`)[0].r).toEqual({ requeued: 0, failed: LEASED });
  const stages = await sql`select stage, count(*)::int as units from mdame.work_units where run_id = ${burstRun} group by 1 order by 1`;
  expect([...stages]).toEqual([{ stage: "failed", units: LEASED }, { stage: "render", units: BURST - LEASED }]);
  const [reason] = await sql`select error from mdame.work_units where id = ${ids[0]}::uuid`;
  expect(reason.error).toBe("render: deadline passed after 3 attempt(s)");
}, 120_000);
