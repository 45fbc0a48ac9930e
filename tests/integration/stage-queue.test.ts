/**
 * The engine's own access to the `stage_tasks` queue (claim_stage_tasks, extend_stage_lease,
 * archive_stage_task, enqueue_stage_task) uses static SQL on pgmq's tables instead of pgmq's
 * functions (supabase/migrations/20261129120000_transition_throughput.sql). These tests hold it to
 * the properties tests/integration/pgmq-conformance.test.ts holds pgmq to, and check that it mixes
 * with pgmq's own functions on the same queue. Messages here carry no unit, so no work unit is
 * involved; the pgTAP files cover the unit leases.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import postgres from "postgres";
import * as db from "../../stack/db.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";

const sql = postgres(LOCAL_DB_URL, { max: 4, onnotice: () => {}, types: { bigint: postgres.BigInt } });

interface Claim {
  msg_id: bigint;
  read_ct: number;
  message: Record<string, unknown>;
  lease_holder: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A unit-less stage task, as an ingest task is; `i` tells messages apart. */
const task = (i: number) => ({ stage: "ingest", run_id: crypto.randomUUID(), dimension_id: "tech-explained", step_token: `step:test:${i}`, i });

const send = async (message: postgres.JSONValue) => (await sql<{ id: bigint }[]>`select pgmq.send('stage_tasks', ${sql.json(message)}) as id`)[0]!.id;

const claim = (worker: string, qty: number, vt: number) => sql<Claim[]>`select * from mdame.claim_stage_tasks(${worker}, ${qty}::integer, ${vt}::integer)`;

const vtOf = async (id: bigint) => (await sql<{ vt: Date }[]>`select vt from pgmq.q_stage_tasks where msg_id = ${id}`)[0]?.vt;

beforeAll(async () => {
  await db.ensureRunning(() => {});
});

beforeEach(async () => {
  await sql`delete from pgmq.q_stage_tasks`;
});

afterAll(async () => {
  await sql`delete from pgmq.q_stage_tasks`;
  await sql.end();
}, 60_000);

describe("stage queue: the engine's claim, heartbeat and archive", () => {
  test("claim takes the oldest visible tasks first, at most qty, each read counted once, hidden for the lease", async () => {
    const ids = [await send(task(0)), await send(task(1)), await send(task(2))];
    const first = await claim("runner-a", 2, 30);
    expect(first.map((c) => c.msg_id)).toEqual(ids.slice(0, 2));
    expect(first.map((c) => c.read_ct)).toEqual([1, 1]);
    expect(first[0]!.message.i).toBe(0);
    expect(first[0]!.lease_holder).toBe(`runner-a/${ids[0]}/1`);
    expect((await vtOf(ids[0]!))!.getTime()).toBeGreaterThan(Date.now() + 25_000);
    const second = await claim("runner-b", 5, 30);
    expect(second.map((c) => c.msg_id)).toEqual(ids.slice(2));
    expect(await claim("runner-c", 5, 30)).toHaveLength(0);
  });

  test("a claimed task comes back after its lease with read_ct 2 and a new holder", async () => {
    const id = await send(task(0));
    expect((await claim("runner-a", 1, 1))[0]!.msg_id).toBe(id);
    expect(await claim("runner-b", 1, 1)).toHaveLength(0);
    await sleep(1300);
    const [again] = await claim("runner-b", 1, 30);
    expect(again!.msg_id).toBe(id);
    expect(again!.read_ct).toBe(2);
    expect(again!.lease_holder).toBe(`runner-b/${id}/2`);
  });

  test("a heartbeat keeps the task hidden past its first lease; a holder from an older read is refused and changes nothing", async () => {
    const id = await send(task(0));
    const [first] = await claim("runner-a", 1, 1);
    expect((await sql`select mdame.extend_stage_lease(${id}, ${first!.lease_holder}, 30) as ok`)[0]!.ok).toBe(true);
    expect((await vtOf(id))!.getTime()).toBeGreaterThan(Date.now() + 25_000);
    await sleep(1300);
    expect(await claim("runner-b", 1, 30)).toHaveLength(0);

    // The lease runs out and runner-b takes the task: runner-a's heartbeat no longer counts.
    await sql`update pgmq.q_stage_tasks set vt = clock_timestamp() - interval '1 second' where msg_id = ${id}`;
    const [second] = await claim("runner-b", 1, 30);
    const vtBefore = await vtOf(id);
    expect((await sql`select mdame.extend_stage_lease(${id}, ${first!.lease_holder}, 300) as ok`)[0]!.ok).toBe(false);
    expect(await vtOf(id)).toEqual(vtBefore);
    expect((await sql`select mdame.extend_stage_lease(${id}, ${second!.lease_holder}, 60) as ok`)[0]!.ok).toBe(true);
  }, 10_000);

  test("a heartbeat for an archived task returns false", async () => {
    const id = await send(task(0));
    const [c] = await claim("runner-a", 1, 30);
    await sql`select mdame.archive_stage_task(${id})`;
    expect((await sql`select mdame.extend_stage_lease(${id}, ${c!.lease_holder}, 30) as ok`)[0]!.ok).toBe(false);
  });

  test("archive moves the task to a_stage_tasks with archived_at, as pgmq.archive does; a second archive returns false", async () => {
    const message = task(7);
    const id = await send(message);
    await claim("runner-a", 1, 30);
    expect((await sql`select mdame.archive_stage_task(${id}) as ok`)[0]!.ok).toBe(true);
    expect(await vtOf(id)).toBeUndefined();
    const archived = await sql`select msg_id, read_ct, message, archived_at from pgmq.a_stage_tasks where msg_id = ${id}`;
    expect(archived).toHaveLength(1);
    expect(archived[0]!.read_ct).toBe(1);
    expect(archived[0]!.message).toEqual(message);
    expect(archived[0]!.archived_at).toBeInstanceOf(Date);
    expect((await sql`select mdame.archive_stage_task(${id}) as ok`)[0]!.ok).toBe(false);
  });

  test("mixes with pgmq's functions: pgmq.read sees an enqueued task, pgmq.archive takes a claimed one", async () => {
    const [run] = await sql<{ id: string }[]>`select gen_random_uuid() as id`;
    const enqueued = (await sql<{ id: bigint }[]>`select mdame.enqueue_stage_task('ingest', ${run!.id}::uuid, null, 'tech-explained') as id`)[0]!.id;
    const [read] = await sql<{ msg_id: bigint; read_ct: number; message: Record<string, unknown> }[]>`select * from pgmq.read('stage_tasks', 30, 1)`;
    expect(read!.msg_id).toBe(enqueued);
    expect(read!.read_ct).toBe(1);
    expect(read!.message).toMatchObject({ stage: "ingest", run_id: run!.id, dimension_id: "tech-explained" });
    expect(String(read!.message.step_token)).toMatch(new RegExp(`^step:${run!.id}:tech-explained:0:[0-9a-f]{64}$`));

    const sent = await send(task(1));
    const [claimed] = await claim("runner-a", 1, 30);
    expect(claimed!.msg_id).toBe(sent);
    expect((await sql`select pgmq.archive('stage_tasks', ${sent}::bigint) as ok`)[0]!.ok).toBe(true);
    expect((await sql`select count(*)::int as n from pgmq.a_stage_tasks where msg_id = ${sent}`)[0]!.n).toBe(1);
  });

  test("concurrent claimers on separate connections never receive the same visible task", async () => {
    const total = 240;
    await sql`select * from pgmq.send_batch('stage_tasks', ${sql.array(Array.from({ length: total }, (_, i) => sql.json(task(i))))}::jsonb[])`;
    const clients = Array.from({ length: 8 }, () => postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {}, types: { bigint: postgres.BigInt } }));
    const seen = new Map<bigint, number>();
    try {
      for (let round = 0; round < total; round++) {
        const batches = await Promise.all(clients.map((c, i) => c<Claim[]>`select * from mdame.claim_stage_tasks(${`runner-${i}`}, 2, 60)`));
        const got = batches.flat();
        for (const c of got) seen.set(c.msg_id, (seen.get(c.msg_id) ?? 0) + 1);
        if (got.length === 0) break;
      }
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
    expect(seen.size).toBe(total);
  }, 60_000);
});

describe("stage queue: waking the stage runner", () => {
  /**
   * Enqueues one ingest task and reports whether it woke the runner: whether pg_net (or its
   * stand-in) was given a request (its request id sequence moved). Ticks recorded in flight by
   * earlier tests are cleared first, so the cap on them (mdame.wake_stage_runner) refuses nothing.
   */
  async function enqueueAndListen(): Promise<boolean> {
    await sql`delete from mdame.stage_runner_wakes`;
    const lastRequest = async () => (await sql`select last_value, is_called from net.http_request_queue_id_seq`)[0]!;
    const before = await lastRequest();
    const [run] = await sql<{ id: string }[]>`select gen_random_uuid() as id`;
    await sql`select mdame.enqueue_stage_task('ingest', ${run!.id}::uuid, null, 'tech-explained')`;
    const after = await lastRequest();
    return after.last_value !== before.last_value || after.is_called !== before.is_called;
  }

  test("an enqueue into a queue with nothing visible wakes the runner", async () => {
    expect(await enqueueAndListen()).toBe(true);
  });

  test("an enqueue behind visible work does not: the runner was woken for that work and drains it", async () => {
    await send(task(0));
    expect(await enqueueAndListen()).toBe(false);
  });

  test("an enqueue while every queued task is claimed or delayed wakes the runner", async () => {
    await send(task(0));
    await claim("runner-a", 1, 30);
    await sql`select pgmq.send('stage_tasks', ${sql.json(task(1))}, 60::integer)`;
    expect(await enqueueAndListen()).toBe(true);
  });
});
