/**
 * pgmq conformance: holds whatever pgmq the local cluster has (the real extension, or
 * supabase/pgmq-compat/pgmq.sql) to pgmq 1.5.1's documented semantics, or to pgmq 1.4.4's where the
 * cluster is in the 1.4 layout (MDAME_PGMQ_SHAPE=1.4, or a pgmq 1.4 extension). The layout is read
 * from the catalog; what the versions share is tested once, what differs is tested as the detected
 * version defines it. Every test uses its own throwaway queue, dropped afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";

// Not DB_URL: that is the engine role, which may not use pgmq directly (docs/reference/roles.md).
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
  headers?: unknown;
}

/** "1.5": pgmq 1.5.1's layout (headers, send overloads); "1.4": pgmq 1.4.4's. Set in beforeAll. */
let shape: "1.4" | "1.5" = "1.5";

async function newQueue(label: string): Promise<string> {
  const name = `${RUN}_${label}`;
  await sql`select pgmq.create(${name}::text)`;
  created.push(name);
  return name;
}

const send = async (q: string, msg: postgres.JSONValue, delay = 0) =>
  (await sql<{ send: bigint }[]>`select * from pgmq.send(${q}::text, ${sql.json(msg)}, ${delay}::integer) as send`)[0]!.send;

const read = (q: string, vt: number, qty: number) => sql<Message[]>`select * from pgmq.read(${q}::text, ${vt}::integer, ${qty}::integer)`;

const columns = async (table: string) =>
  (await sql<{ attname: string }[]>`
    select attname from pg_attribute where attrelid = ${`pgmq.${table}`}::regclass and attnum > 0 and not attisdropped order by attnum`).map((r) => r.attname);

const signatures = async (name: string) =>
  (await sql<{ sig: string }[]>`
    select p.oid::regprocedure::text as sig from pg_proc p where p.pronamespace = 'pgmq'::regnamespace and p.proname = ${name} order by 1`).map((r) => r.sig);

const liveCount = async (q: string) => Number((await sql.unsafe(`select count(*)::int as n from pgmq."q_${q}"`))[0]!.n);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  // pgmq 1.5 added headers to message_record (and to every queue table) with the send overloads.
  const [row] = await sql<{ impl: string; headers: boolean }[]>`
    select coalesce((select 'extension ' || extversion from pg_extension where extname = 'pgmq'),
                    case when to_regtype('pgmq.message_record') is not null then 'pgmq-compatible SQL' end,
                    'none') as impl,
           exists (select 1 from pg_attribute where attrelid = (select typrelid from pg_type where oid = to_regtype('pgmq.message_record'))
                   and attname = 'headers' and not attisdropped) as headers`;
  shape = row!.headers ? "1.5" : "1.4";
  console.log(`pgmq under test: ${row!.impl}, held to pgmq ${shape === "1.5" ? "1.5.1" : "1.4.4"}`);
});

afterAll(async () => {
  for (const name of created) await sql`select pgmq.drop_queue(${name}::text)`.catch(() => {});
  await sql.end();
}, 60_000);

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
    const [extended] = await sql<Message[]>`select * from pgmq.set_vt(${q}::text, ${id}::bigint, 30::integer)`;
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
    await sql`select * from pgmq.set_vt(${q}::text, ${id}::bigint, 0::integer)`;
    const [again] = await read(q, 300, 1);
    expect(again!.msg_id).toBe(id);
    expect(again!.read_ct).toBe(2);
    expect(await sql`select * from pgmq.set_vt(${q}::text, ${id + 1000n}::bigint, 10::integer)`).toHaveLength(0);
  });

  test("archive moves a message to a_<name> with archived_at; a second archive returns false", async () => {
    const q = await newQueue("archive");
    const id = await send(q, { keep: "me" });
    await read(q, 30, 1);
    expect((await sql`select pgmq.archive(${q}::text, ${id}::bigint) as ok`)[0]!.ok).toBe(true);
    expect(await liveCount(q)).toBe(0);
    const archived = await sql.unsafe(`select msg_id, read_ct, message, archived_at from pgmq."a_${q}"`);
    expect(archived).toHaveLength(1);
    expect(archived[0]!.msg_id).toBe(id);
    expect(archived[0]!.read_ct).toBe(1);
    expect(archived[0]!.message).toEqual({ keep: "me" });
    expect(archived[0]!.archived_at).toBeInstanceOf(Date);
    expect((await sql`select pgmq.archive(${q}::text, ${id}::bigint) as ok`)[0]!.ok).toBe(false);
  });

  test("archive of several ids returns only the ids that were in the queue", async () => {
    const q = await newQueue("archive_many");
    const a = await send(q, { a: 1 });
    const b = await send(q, { b: 2 });
    const rows = await sql<{ id: bigint }[]>`select * from pgmq.archive(${q}::text, ${sql.array([a, b, b + 100n])}::bigint[]) as id`;
    expect(rows.map((r) => r.id).sort()).toEqual([a, b]);
    expect(await liveCount(q)).toBe(0);
  });

  test("delete removes a message for good; deleting it again returns false; batch delete returns found ids", async () => {
    const q = await newQueue("delete");
    const a = await send(q, { a: 1 });
    const b = await send(q, { b: 2 });
    const c = await send(q, { c: 3 });
    expect((await sql`select pgmq.delete(${q}::text, ${a}::bigint) as ok`)[0]!.ok).toBe(true);
    expect((await sql`select pgmq.delete(${q}::text, ${a}::bigint) as ok`)[0]!.ok).toBe(false);
    const rows = await sql<{ id: bigint }[]>`select * from pgmq.delete(${q}::text, ${sql.array([a, b, c])}::bigint[]) as id`;
    expect(rows.map((r) => r.id).sort()).toEqual([b, c]);
    expect(await liveCount(q)).toBe(0);
    expect(await sql.unsafe(`select 1 from pgmq."a_${q}"`)).toHaveLength(0);
  });

  test("send_batch enqueues in array order and returns every id", async () => {
    const q = await newQueue("batch");
    const msgs = [{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }];
    const rows = await sql<{ id: bigint }[]>`select * from pgmq.send_batch(${q}::text, ${sql.array(msgs.map((m) => sql.json(m)))}::jsonb[]) as id`;
    expect(rows).toHaveLength(4);
    const got = await read(q, 30, 10);
    expect(got.map((m) => m.message)).toEqual(msgs);
    expect(got.map((m) => m.msg_id)).toEqual(rows.map((r) => r.id));
  });

  test("pop returns the oldest visible message and deletes it; invisible messages are not popped", async () => {
    const q = await newQueue("pop");
    const a = await send(q, { a: 1 });
    const b = await send(q, { b: 2 });
    await sql`select * from pgmq.set_vt(${q}::text, ${a}::bigint, 60::integer)`;
    const [popped, ...rest] = await sql<Message[]>`select * from pgmq.pop(${q}::text)`;
    expect(rest).toHaveLength(0);
    expect(popped!.msg_id).toBe(b);
    expect(popped!.message).toEqual({ b: 2 });
    expect(await sql`select * from pgmq.pop(${q}::text)`).toHaveLength(0);
    expect(await liveCount(q)).toBe(1);
    expect(await sql.unsafe(`select 1 from pgmq."a_${q}"`)).toHaveLength(0);
  });

  test("metrics counts the queue and every message ever sent", async () => {
    const q = await newQueue("metrics");
    const [empty] = await sql`select * from pgmq.metrics(${q}::text)`;
    expect(empty!.queue_name).toBe(q);
    expect(Number(empty!.queue_length)).toBe(0);
    expect(empty!.newest_msg_age_sec).toBeNull();
    expect(empty!.oldest_msg_age_sec).toBeNull();
    expect(Number(empty!.total_messages)).toBe(0);

    const a = await send(q, { a: 1 });
    await send(q, { b: 2 });
    await send(q, { c: 3 });
    await sql`select pgmq.delete(${q}::text, ${a}::bigint)`;
    const [m] = await sql`select * from pgmq.metrics(${q}::text)`;
    expect(Number(m!.queue_length)).toBe(2);
    expect(Number(m!.total_messages)).toBe(3);
    expect(m!.oldest_msg_age_sec).toBeGreaterThanOrEqual(0);
    expect(m!.newest_msg_age_sec).toBeGreaterThanOrEqual(0);
    expect(m!.scrape_time).toBeInstanceOf(Date);
  });

  test("purge_queue deletes every message and returns how many", async () => {
    const q = await newQueue("purge");
    for (let i = 0; i < 5; i++) await send(q, { i });
    expect(Number((await sql`select pgmq.purge_queue(${q}::text) as n`)[0]!.n)).toBe(5);
    expect(await liveCount(q)).toBe(0);
  });

  test("list_queues lists a created queue; drop_queue removes it and its tables", async () => {
    const q = await newQueue("lifecycle");
    const listed = await sql<{ queue_name: string }[]>`select queue_name from pgmq.list_queues()`;
    expect(listed.map((r) => r.queue_name)).toContain(q);
    expect((await sql`select pgmq.drop_queue(${q}::text) as ok`)[0]!.ok).toBe(true);
    const tables = await sql`select tablename from pg_tables where schemaname = 'pgmq' and tablename in (${"q_" + q}, ${"a_" + q})`;
    expect(tables).toHaveLength(0);
    const after = await sql<{ queue_name: string }[]>`select queue_name from pgmq.list_queues()`;
    expect(after.map((r) => r.queue_name)).not.toContain(q);
  });

  test("a queue name that is not an identifier is refused before any table is made", async () => {
    const bad = `${RUN}'; drop table pgmq.meta; --`;
    await expect(sql`select pgmq.create(${bad}::text)`).rejects.toThrow();
    await expect(sql`select pgmq.send(${bad}::text, '{}'::jsonb)`).rejects.toThrow();
    expect((await sql`select to_regclass('pgmq.meta') is not null as ok`)[0]!.ok).toBe(true);
  });

  test("concurrent readers on separate connections never receive the same visible message", async () => {
    const q = await newQueue("concurrent");
    const total = 240;
    const readers = 8;
    await sql`select * from pgmq.send_batch(${q}::text, ${sql.array(Array.from({ length: total }, (_, i) => sql.json({ i })))}::jsonb[])`;
    const clients = Array.from({ length: readers }, () => postgres(DB_URL, { max: 1, onnotice: () => {}, types: { bigint: postgres.BigInt } }));
    const seen = new Map<bigint, number>();
    try {
      for (let round = 0; round < total; round++) {
        const batches = await Promise.all(clients.map((c) => c<Message[]>`select * from pgmq.read(${q}::text, 60::integer, 1::integer)`));
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

/** The SQLSTATE a statement fails with, or "ok". */
const sqlState = (query: Promise<unknown>) => query.then(() => "ok", (error: { code?: string }) => error.code ?? String(error));

describe("pgmq conformance: what pgmq 1.4 and 1.5 share beyond the basics", () => {
  test("read_with_poll waits for a message to become visible, and returns nothing once the poll runs out", async () => {
    const q = await newQueue("poll");
    expect(await sql`select * from pgmq.read_with_poll(${q}::text, 30::integer, 1::integer, 1::integer, 50::integer)`).toHaveLength(0);
    const id = await send(q, { soon: true }, 1);
    const [got] = await sql<Message[]>`select * from pgmq.read_with_poll(${q}::text, 30::integer, 1::integer, 5::integer, 50::integer)`;
    expect(got!.msg_id).toBe(id);
    expect(got!.read_ct).toBe(1);
  });

  test("create_unlogged makes a queue list_queues reports as unlogged and not partitioned", async () => {
    const name = `${RUN}_unlogged`;
    await sql`select pgmq.create_unlogged(${name}::text)`;
    created.push(name);
    const [row] = await sql`select * from pgmq.list_queues() where queue_name = ${name}`;
    expect(row!.is_unlogged).toBe(true);
    expect(row!.is_partitioned).toBe(false);
    expect(row!.created_at).toBeInstanceOf(Date);
    const id = await send(name, { fast: true });
    expect((await read(name, 30, 1))[0]!.msg_id).toBe(id);
  });
});

describe("pgmq conformance: what differs between pgmq 1.4.4 and 1.5.1 (tested as the detected version defines it)", () => {
  test("queue tables, message_record and metrics_result have the version's columns", async () => {
    const q = await newQueue("layout");
    const headers = shape === "1.5" ? ["headers"] : [];
    expect(await columns(`q_${q}`)).toEqual(["msg_id", "read_ct", "enqueued_at", "vt", "message", ...headers]);
    expect(await columns(`a_${q}`)).toEqual(["msg_id", "read_ct", "enqueued_at", "archived_at", "vt", "message", ...headers]);
    expect(await columns("message_record")).toEqual(["msg_id", "read_ct", "enqueued_at", "vt", "message", ...headers]);
    expect(await columns("metrics_result")).toEqual([
      "queue_name",
      "queue_length",
      "newest_msg_age_sec",
      "oldest_msg_age_sec",
      "total_messages",
      "scrape_time",
      ...(shape === "1.5" ? ["queue_visible_length"] : []),
    ]);
  });

  test("send, send_batch and read have the version's signatures", async () => {
    const sorted = (list: string[]) => [...list].sort();
    if (shape === "1.5") {
      expect(sorted(await signatures("send"))).toEqual(sorted([
        "pgmq.send(text,jsonb)",
        "pgmq.send(text,jsonb,jsonb)",
        "pgmq.send(text,jsonb,integer)",
        "pgmq.send(text,jsonb,timestamp with time zone)",
        "pgmq.send(text,jsonb,jsonb,integer)",
        "pgmq.send(text,jsonb,jsonb,timestamp with time zone)",
      ]));
      expect(sorted(await signatures("send_batch"))).toEqual(sorted([
        "pgmq.send_batch(text,jsonb[])",
        "pgmq.send_batch(text,jsonb[],jsonb[])",
        "pgmq.send_batch(text,jsonb[],integer)",
        "pgmq.send_batch(text,jsonb[],timestamp with time zone)",
        "pgmq.send_batch(text,jsonb[],jsonb[],integer)",
        "pgmq.send_batch(text,jsonb[],jsonb[],timestamp with time zone)",
      ]));
      expect(await signatures("read")).toEqual(["pgmq.read(text,integer,integer,jsonb)"]);
    } else {
      expect(await signatures("send")).toEqual(["pgmq.send(text,jsonb,integer)"]);
      expect(await signatures("send_batch")).toEqual(["pgmq.send_batch(text,jsonb[],integer)"]);
      expect(await signatures("read")).toEqual(["pgmq.read(text,integer,integer)"]);
    }
  });

  test("an untyped delay is ambiguous on 1.5 (hence typed calls everywhere) and a plain integer on 1.4", async () => {
    const q = await newQueue("untyped");
    // postgres.js sends a JS number as a parameter of unknown type.
    const untyped = sqlState(sql`select * from pgmq.send(${q}::text, ${sql.json({ a: 1 })}, ${1})`);
    if (shape === "1.5") {
      expect(await untyped).toBe("42725");
    } else {
      expect(await untyped).toBe("ok");
      expect(await read(q, 30, 1)).toHaveLength(0);
    }
  });

  test("headers travel with a message through send, send_batch, read, pop and archive on 1.5; 1.4 has none", async () => {
    const q = await newQueue("headers");
    if (shape === "1.5") {
      const [{ id: a }] = await sql`select * from pgmq.send(${q}::text, ${sql.json({ a: 1 })}, ${sql.json({ trace: "t-a" })}) as id`;
      const [{ id: b }] = await sql`select * from pgmq.send(${q}::text, ${sql.json({ b: 2 })}, ${sql.json({ trace: "t-b" })}, 0::integer) as id`;
      const batch = await sql<{ id: bigint }[]>`
        select * from pgmq.send_batch(${q}::text, array[${sql.json({ c: 3 })}, ${sql.json({ d: 4 })}]::jsonb[],
                                      array[${sql.json({ trace: "t-c" })}, ${sql.json({ trace: "t-d" })}]::jsonb[]) as id`;
      const plain = await send(q, { e: 5 });
      const got = await read(q, 30, 4);
      expect(got.map((m) => m.msg_id)).toEqual([a, b, ...batch.map((r) => r.id)]);
      expect(got.map((m) => m.headers)).toEqual([{ trace: "t-a" }, { trace: "t-b" }, { trace: "t-c" }, { trace: "t-d" }]);
      const [popped] = await sql<Message[]>`select * from pgmq.pop(${q}::text)`;
      expect(popped!.msg_id).toBe(plain);
      expect(popped!.headers).toBeNull();
      expect((await sql`select pgmq.archive(${q}::text, ${a}::bigint) as ok`)[0]!.ok).toBe(true);
      await sql`select * from pgmq.archive(${q}::text, ${sql.array([b, batch[0]!.id])}::bigint[])`;
      const archived = await sql.unsafe(`select msg_id, headers from pgmq."a_${q}" order by msg_id`);
      expect(archived.map((r) => r.headers)).toEqual([{ trace: "t-a" }, { trace: "t-b" }, { trace: "t-c" }]);
    } else {
      const id = await send(q, { a: 1 });
      const [got] = await read(q, 30, 1);
      expect(got!.msg_id).toBe(id);
      expect(Object.keys(got!).sort()).toEqual(["enqueued_at", "message", "msg_id", "read_ct", "vt"]);
      expect(await sqlState(sql`select * from pgmq.send(${q}::text, ${sql.json({ b: 2 })}, ${sql.json({ trace: "t" })})`)).toBe("42883");
    }
  });

  test("send at a timestamp keeps the message invisible until then on 1.5; 1.4 has no such send", async () => {
    const q = await newQueue("at");
    const at = new Date(Date.now() + 1000);
    const sent = sql<{ id: bigint }[]>`select * from pgmq.send(${q}::text, ${sql.json({ at: true })}, ${at}::timestamptz) as id`;
    if (shape === "1.5") {
      const [{ id }] = await sent;
      expect(await read(q, 30, 1)).toHaveLength(0);
      await sleep(1300);
      expect((await read(q, 30, 1))[0]!.msg_id).toBe(id);
      const later = new Date(Date.now() + 60_000);
      await sql`select * from pgmq.send_batch(${q}::text, array[${sql.json({ x: 1 })}]::jsonb[], ${later}::timestamptz)`;
      expect(await read(q, 30, 1)).toHaveLength(0);
    } else {
      expect(await sqlState(sent)).toBe("42883");
    }
  });

  test("read with a condition hands out only the messages containing it on 1.5; 1.4 reads take no condition", async () => {
    const q = await newQueue("conditional");
    await send(q, { kind: "a", n: 1 });
    const b = await send(q, { kind: "b", n: 2 });
    await send(q, { kind: "a", n: 3 });
    const conditional = sql<Message[]>`select * from pgmq.read(${q}::text, 30::integer, 10::integer, ${sql.json({ kind: "b" })})`;
    if (shape === "1.5") {
      expect((await conditional).map((m) => m.msg_id)).toEqual([b]);
      const polled = await sql<Message[]>`
        select * from pgmq.read_with_poll(${q}::text, 30::integer, 10::integer, 1::integer, 50::integer, ${sql.json({ n: 3 })})`;
      expect(polled.map((m) => m.message)).toEqual([{ kind: "a", n: 3 }]);
      expect((await read(q, 30, 10)).map((m) => m.message)).toEqual([{ kind: "a", n: 1 }]);
    } else {
      expect(await sqlState(conditional)).toBe("42883");
      expect(await read(q, 30, 10)).toHaveLength(3);
    }
  });

  test("metrics count the visible messages on 1.5; 1.4 has no visible length", async () => {
    const q = await newQueue("visible");
    await send(q, { a: 1 });
    await send(q, { b: 2 });
    await send(q, { c: 3 }, 60);
    await read(q, 30, 1);
    const [m] = await sql`select * from pgmq.metrics(${q}::text)`;
    expect(Number(m!.queue_length)).toBe(3);
    if (shape === "1.5") expect(Number(m!.queue_visible_length)).toBe(1);
    else expect(m!).not.toHaveProperty("queue_visible_length");
    const all = await sql`select * from pgmq.metrics_all() where queue_name = ${q}`;
    expect(all).toHaveLength(1);
    expect(Number(all[0]!.queue_length)).toBe(3);
  });
});
