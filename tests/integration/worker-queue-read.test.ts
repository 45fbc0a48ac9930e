/**
 * PgmqWorkerQueue reads through mdame.read_worker_jobs; under the attempt limit it must keep
 * pgmq.read's semantics, which the workers rely on: oldest first, at most qty, each message to one
 * reader at a time (concurrent readers skip what another is taking), read_ct counted, the lease
 * extended by set_vt.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as db from "../../stack/db.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { PgmqWorkerQueue } from "../../shared/worker/pgmq-worker-queue.ts";
import { MessageGoneError } from "../../shared/worker/pull-worker.ts";

let sql: Sql;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(LOCAL_DB_URL, { max: 6, application: "worker-queue-read-test" });
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

test("oldest first, at most qty, read_ct counted, hidden for the visibility timeout", async () => {
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [row] = await sql`select pgmq.send('render', ${sql.json({ unit_id: crypto.randomUUID(), n: i })}) as msg_id`;
    ids.push(Number(row.msg_id));
  }
  const queue = new PgmqWorkerQueue(sql);
  const first = await queue.read("render", 30, 2);
  expect(first.map((m) => m.msg_id)).toEqual(ids.slice(0, 2));
  expect(first.every((m) => m.read_ct === 1 && m.vt.getTime() > Date.now() + 25_000)).toBe(true);
  expect(first[0]!.message).toMatchObject({ n: 0 });
  const rest = await queue.read("render", 30, 5);
  expect(rest.map((m) => m.msg_id)).toEqual([ids[2]!]);
  expect(await queue.read("render", 30, 5)).toEqual([]);
  await queue.setVt("render", ids[0]!, 60);
  await sql`select pgmq.archive('render', ${ids[0]!}::bigint)`;
  await expect(queue.setVt("render", ids[0]!, 60)).rejects.toBeInstanceOf(MessageGoneError);
  await sql`select pgmq.archive('render', array[${ids[1]!}, ${ids[2]!}]::bigint[])`;
});

test("concurrent readers never get the same message", async () => {
  for (let i = 0; i < 40; i++) await sql`select pgmq.send('visual_generation', ${sql.json({ unit_id: crypto.randomUUID() })})`;
  const queue = new PgmqWorkerQueue(sql);
  const batches = await Promise.all(Array.from({ length: 5 }, () => queue.read("visual_generation", 30, 10)));
  const seen = batches.flat().map((m) => m.msg_id);
  expect(new Set(seen).size).toBe(seen.length);
  const more = await queue.read("visual_generation", 30, 40);
  expect(new Set([...seen, ...more.map((m) => m.msg_id)]).size).toBe(40);
});
