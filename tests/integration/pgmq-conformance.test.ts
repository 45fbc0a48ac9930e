/**
 * pgmq conformance: holds whatever pgmq the local cluster has (the real extension, or
 * supabase/pgmq-compat/pgmq.sql) to pgmq 1.4's documented semantics. Every test uses its own
 * throwaway queue, dropped afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";

// Not DB_URL: that is the engine role, which may not use pgmq directly (docs/roles.md).
const DB_URL = process.env.PGMQ_TEST_DB_URL ?? LOCAL_DB_URL;
const sql = postgres(DB_URL, { max: 4, onnotice: () => {}, types: { bigint: postgres.BigInt } });

const RUN = `conf_${Math.random().toString(36).slice(2, 8)}`;
const created: string[] = [];

interface Message {
  msg_id: bigint;
  read_ct: number;
  enqueued_at: Date;
  vt: Date;
  message: unknown;
}

async function newQueue(label: string): Promise<string> {
  const name = `${RUN}_${label}`;
  await sql`select pgmq.create(${name})`;
  created.push(name);
  return name;
}

const send = async (q: string, msg: postgres.JSONValue, delay = 0) =>
  (await sql<{ send: bigint }[]>`select * from pgmq.send(${q}, ${sql.json(msg)}, ${delay}::integer) as send`)[0]!.send;

const read = (q: string, vt: number, qty: number) =>
  sql<Message[]>`select * from pgmq.read(${q}, ${vt}::integer, ${qty}::integer)`;

const liveCount = async (q: string) => Number((await sql.unsafe(`select count(*)::int as n from pgmq."q_${q}"`))[0]!.n);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  const [impl] = await sql<{ impl: string }[]>`
    select coalesce((select 'extension ' || extversion from pg_extension where extname = 'pgmq'),
                    case when to_regprocedure('pgmq.read(text, integer, integer, jsonb)') is not null then 'compat SQL' end,
                    'none') as impl`;
  console.log(`pgmq under test: ${impl!.impl}`);
});

afterAll(async () => {
  for (const name of created) await sql`select pgmq.drop_queue(${name})`.catch(() => {});
  await sql.end();
});

describe("pgmq conformance", () => {
  test("send then read returns the message once, with read_ct 1", async () => {
    const q = await newQueue("send_read");
    const id = await send(q, { hello: "world", n: 1 });
    const [msg, ...rest] = await read(q, 30, 10);
    expect(rest).toHaveLength(0);
    expect(msg!.msg_id).toBe(id);
    expect(msg!.read_ct).toBe(1);
    expect(msg!.message).toEqual({ hello: "world", n: 1 });
    expect(msg!.vt.getTime()).toBeGreaterThan(Date.now() + 20_000);
  });

  test("a read message is hidden for its visibility timeout, then reappears with read_ct incremented", async () => {
    const q = await newQueue("vt");
    const id = await send(q, { job: 1 });
    expect((await read(q, 1, 1))[0]!.msg_id).toBe(id);
    expect(await read(q, 1, 1)).toHaveLength(0);
    await sleep(1300);
    const [again] = await read(q, 30, 1);
    expect(again!.msg_id).toBe(id);
    expect(again!.read_ct).toBe(2);
  });

  test("read takes the oldest visible messages first and at most qty", async () => {
    const q = await newQueue("order");
    const ids = [await send(q, { i: 0 }), await send(q, { i: 1 }), await send(q, { i: 2 })];
    const first = await read(q, 30, 2);
    expect(first.map((m) => m.msg_id)).toEqual(ids.slice(0, 2));
    const second = await read(q, 30, 2);
    expect(second.map((m) => m.msg_id)).toEqual(ids.slice(2));
  });

  test("send with a delay keeps the message invisible until the delay passes", async () => {
    const q = await newQueue("delay");
    const id = await send(q, { later: true }, 1);
    expect(await read(q, 30, 1)).toHaveLength(0);
    await sleep(1300);
    expect((await read(q, 30, 1))[0]!.msg_id).toBe(id);
  });

  test("set_vt extends a lease past the original timeout and returns the message", async () => {
    const q = await newQueue("set_vt");
    const id = await send(q, { long: "job" });
    await read(q, 1, 1);
    const [extended] = await sql<Message[]>`select * from pgmq.set_vt(${q}, ${id}::bigint, 30)`;
    expect(extended!.msg_id).toBe(id);
    expect(extended!.read_ct).toBe(1);
    expect(extended!.vt.getTime()).toBeGreaterThan(Date.now() + 20_000);
    await sleep(1300);
    expect(await read(q, 30, 1)).toHaveLength(0);
  });

  test("set_vt to 0 makes a message visible again at once; unknown ids return nothing", async () => {
    const q = await newQueue("set_vt_zero");
    const id = await send(q, { retry: true });
    await read(q, 300, 1);
    await sql`select * from pgmq.set_vt(${q}, ${id}::bigint, 0)`;
    const [again] = await read(q, 300, 1);
    expect(again!.msg_id).toBe(id);
    expect(again!.read_ct).toBe(2);
    expect(await sql`select * from pgmq.set_vt(${q}, ${id + 1000n}::bigint, 10)`).toHaveLength(0);
  });

  test("archive moves a message to a_<name> with archived_at; a second archive returns false", async () => {
    const q = await newQueue("archive");
    const id = await send(q, { keep: "me" });
    await read(q, 30, 1);
    expect((await sql`select pgmq.archive(${q}, ${id}::bigint) as ok`)[0]!.ok).toBe(true);
    expect(await liveCount(q)).toBe(0);
    const archived = await sql.unsafe(`select msg_id, read_ct, message, archived_at from pgmq."a_${q}"`);
    expect(archived).toHaveLength(1);
    expect(archived[0]!.msg_id).toBe(id);
    expect(archived[0]!.read_ct).toBe(1);
    expect(archived[0]!.message).toEqual({ keep: "me" });
    expect(archived[0]!.archived_at).toBeInstanceOf(Date);
    expect((await sql`select pgmq.archive(${q}, ${id}::bigint) as ok`)[0]!.ok).toBe(false);
  });

  test("archive of several ids returns only the ids that were in the queue", async () => {
    const q = await newQueue("archive_many");
    const a = await send(q, { a: 1 });
    const b = await send(q, { b: 2 });
    const rows = await sql<{ id: bigint }[]>`select * from pgmq.archive(${q}, ${sql.array([a, b, b + 100n])}::bigint[]) as id`;
    expect(rows.map((r) => r.id).sort()).toEqual([a, b]);
    expect(await liveCount(q)).toBe(0);
  });

  test("delete removes a message for good; deleting it again returns false; batch delete returns found ids", async () => {
    const q = await newQueue("delete");
    const a = await send(q, { a: 1 });
    const b = await send(q, { b: 2 });
    const c = await send(q, { c: 3 });
    expect((await sql`select pgmq.delete(${q}, ${a}::bigint) as ok`)[0]!.ok).toBe(true);
    expect((await sql`select pgmq.delete(${q}, ${a}::bigint) as ok`)[0]!.ok).toBe(false);
    const rows = await sql<{ id: bigint }[]>`select * from pgmq.delete(${q}, ${sql.array([a, b, c])}::bigint[]) as id`;
    expect(rows.map((r) => r.id).sort()).toEqual([b, c]);
    expect(await liveCount(q)).toBe(0);
    expect(await sql.unsafe(`select 1 from pgmq."a_${q}"`)).toHaveLength(0);
  });

  test("send_batch enqueues in array order and returns every id", async () => {
    const q = await newQueue("batch");
    const msgs = [{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }];
    const rows = await sql<{ id: bigint }[]>`select * from pgmq.send_batch(${q}, ${sql.array(msgs.map((m) => sql.json(m)))}::jsonb[]) as id`;
    expect(rows).toHaveLength(4);
    const got = await read(q, 30, 10);
    expect(got.map((m) => m.message)).toEqual(msgs);
    expect(got.map((m) => m.msg_id)).toEqual(rows.map((r) => r.id));
  });

  test("pop returns the oldest visible message and deletes it; invisible messages are not popped", async () => {
    const q = await newQueue("pop");
    const a = await send(q, { a: 1 });
    const b = await send(q, { b: 2 });
    await sql`select * from pgmq.set_vt(${q}, ${a}::bigint, 60)`;
    const [popped, ...rest] = await sql<Message[]>`select * from pgmq.pop(${q})`;
    expect(rest).toHaveLength(0);
    expect(popped!.msg_id).toBe(b);
    expect(popped!.message).toEqual({ b: 2 });
    expect(await sql`select * from pgmq.pop(${q})`).toHaveLength(0);
    expect(await liveCount(q)).toBe(1);
    expect(await sql.unsafe(`select 1 from pgmq."a_${q}"`)).toHaveLength(0);
  });

  test("metrics counts the queue and every message ever sent", async () => {
    const q = await newQueue("metrics");
    const [empty] = await sql`select * from pgmq.metrics(${q})`;
    expect(empty!.queue_name).toBe(q);
    expect(Number(empty!.queue_length)).toBe(0);
    expect(empty!.newest_msg_age_sec).toBeNull();
    expect(empty!.oldest_msg_age_sec).toBeNull();
    expect(Number(empty!.total_messages)).toBe(0);

    const a = await send(q, { a: 1 });
    await send(q, { b: 2 });
    await send(q, { c: 3 });
    await sql`select pgmq.delete(${q}, ${a}::bigint)`;
    const [m] = await sql`select * from pgmq.metrics(${q})`;
    expect(Number(m!.queue_length)).toBe(2);
    expect(Number(m!.total_messages)).toBe(3);
    expect(m!.oldest_msg_age_sec).toBeGreaterThanOrEqual(0);
    expect(m!.newest_msg_age_sec).toBeGreaterThanOrEqual(0);
    expect(m!.scrape_time).toBeInstanceOf(Date);
  });

  test("purge_queue deletes every message and returns how many", async () => {
    const q = await newQueue("purge");
    for (let i = 0; i < 5; i++) await send(q, { i });
    expect(Number((await sql`select pgmq.purge_queue(${q}) as n`)[0]!.n)).toBe(5);
    expect(await liveCount(q)).toBe(0);
  });

  test("list_queues lists a created queue; drop_queue removes it and its tables", async () => {
    const q = await newQueue("lifecycle");
    const listed = await sql<{ queue_name: string }[]>`select queue_name from pgmq.list_queues()`;
    expect(listed.map((r) => r.queue_name)).toContain(q);
    expect((await sql`select pgmq.drop_queue(${q}) as ok`)[0]!.ok).toBe(true);
    const tables = await sql`select tablename from pg_tables where schemaname = 'pgmq' and tablename in (${"q_" + q}, ${"a_" + q})`;
    expect(tables).toHaveLength(0);
    const after = await sql<{ queue_name: string }[]>`select queue_name from pgmq.list_queues()`;
    expect(after.map((r) => r.queue_name)).not.toContain(q);
  });

  test("a queue name that is not an identifier is refused before any table is made", async () => {
    const bad = `${RUN}'; drop table pgmq.meta; --`;
    await expect(sql`select pgmq.create(${bad})`).rejects.toThrow();
    await expect(sql`select pgmq.send(${bad}, '{}'::jsonb)`).rejects.toThrow();
    expect((await sql`select to_regclass('pgmq.meta') is not null as ok`)[0]!.ok).toBe(true);
  });

  test("concurrent readers on separate connections never receive the same visible message", async () => {
    const q = await newQueue("concurrent");
    const total = 240;
    const readers = 8;
    await sql`select * from pgmq.send_batch(${q}, ${sql.array(Array.from({ length: total }, (_, i) => sql.json({ i })))}::jsonb[])`;
    const clients = Array.from({ length: readers }, () => postgres(DB_URL, { max: 1, onnotice: () => {}, types: { bigint: postgres.BigInt } }));
    const seen = new Map<bigint, number>();
    try {
      for (let round = 0; round < total; round++) {
        const batches = await Promise.all(clients.map((c) => c<Message[]>`select * from pgmq.read(${q}, 60, 1)`));
        const got = batches.flat();
        for (const m of got) seen.set(m.msg_id, (seen.get(m.msg_id) ?? 0) + 1);
        if (got.length === 0) break;
      }
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    const duplicates = [...seen].filter(([, n]) => n > 1);
    expect(duplicates).toEqual([]);
    expect(seen.size).toBe(total);
  }, 60_000);
});
