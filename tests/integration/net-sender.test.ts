/**
 * The local stack's pg_net sender (stack/net-sender.ts) against the pg_net stand-in
 * (supabase/pg-net-compat/pg_net.sql) on the real Postgres, sending to a local HTTP server: it
 * sends committed requests only, records each answer in net._http_response as pg_net does (a
 * timeout as timed_out, a refused connection as error_msg), runs many at once, wakes on the
 * stand-in's notification, and prunes old answers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import * as db from "../../stack/db.ts";
import { createNetSender, type NetSender } from "../../stack/net-sender.ts";
import { pgBinDir, serverExtensions } from "../../stack/pg-server.ts";
import { freePort } from "./fixtures/emulator-harness.ts";

const realPgNet = serverExtensions(pgBinDir()).pgNet;
const sql = postgres(LOCAL_DB_URL, { max: 4, onnotice: () => {} });
const listener = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
const silent = createLogger("net", { write: () => {} }, "fatal");

let server: ReturnType<typeof Bun.serve>;
let base: string;
/** /slow requests the server is holding open right now, and the most it ever held at once. */
let open = 0;
let mostOpen = 0;
const received: { path: string; body: string; authorization: string | null }[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

const post = async (path: string, timeoutMs = 5_000, body: Record<string, string> = {}) =>
  Number(
    (await sql`select net.http_post(${base + path}, ${sql.json(body)}, '{}'::jsonb, ${
      sql.json({ Authorization: "Bearer k", "Content-Type": "application/json" })
    }, ${timeoutMs}) as id`)[0]!.id,
  );

const response = (id: number) =>
  sql`select status_code, content_type, headers, content, timed_out, error_msg from net._http_response where id = ${id}`.then(([row]) => row);

describe.skipIf(realPgNet)("net sender on the pg_net stand-in", () => {
  beforeAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = Bun.serve({
      hostname: "127.0.0.1",
      port,
      async fetch(request) {
        const path = new URL(request.url).pathname;
        received.push({ path, body: await request.text(), authorization: request.headers.get("authorization") });
        const slow = path === "/slow";
        if (slow) mostOpen = Math.max(mostOpen, ++open);
        try {
          if (slow) await sleep(400);
          if (path === "/hang") await sleep(5_000);
          if (path === "/teapot") return new Response("short and stout", { status: 418, headers: { "content-type": "text/plain" } });
          return Response.json({ ok: true, path });
        } finally {
          if (slow) open -= 1;
        }
      },
    });
  }, 120_000);

  afterAll(async () => {
    server?.stop(true);
    await listener.end({ timeout: 2 });
    await sql.end({ timeout: 2 });
    await db.reset({ log: () => {} });
  }, 60_000);

  let sender: NetSender | null = null;
  beforeEach(async () => {
    await sender?.stop();
    sender = null;
    await sql`delete from net.http_request_queue`;
    await sql`delete from net._http_response`;
    received.length = 0;
    mostOpen = 0;
  });

  test("a committed request is sent with its headers and body, its answer recorded and its queue row gone", async () => {
    const id = await post("/tick", 5_000, { reason: "voice" });
    sender = createNetSender({ sql, logger: silent, pollMs: 50 });
    await sender.start();
    const row = await waitFor("the answer", () => response(id));
    expect(row.status_code).toBe(200);
    expect(row.content_type).toContain("application/json");
    expect(JSON.parse(row.content)).toEqual({ ok: true, path: "/tick" });
    expect(row.headers["content-type"]).toContain("application/json");
    expect(row.timed_out).toBe(false);
    expect(row.error_msg).toBeNull();
    expect(received).toEqual([{ path: "/tick", body: '{"reason": "voice"}', authorization: "Bearer k" }]);
    expect((await sql`select count(*)::int as n from net.http_request_queue`)[0]!.n).toBe(0);
  });

  test("a request of a transaction that rolled back is never sent; one still open waits for its commit", async () => {
    sender = createNetSender({ sql, listener, logger: silent, pollMs: 50 });
    await sender.start();
    await sql.begin(async (tx) => {
      await tx`select net.http_post(${base + "/rolled-back"})`;
      throw new Error("roll back");
    }).catch(() => {});
    let committedId = 0;
    await sql.begin(async (tx) => {
      committedId = Number((await tx`select net.http_post(${base + "/committed"}) as id`)[0]!.id);
      await sleep(300);
      // The sender polls every 50 ms: an uncommitted request is invisible to it.
      expect(received).toEqual([]);
    });
    await waitFor("the committed request's answer", () => response(committedId));
    expect(received.map((r) => r.path)).toEqual(["/committed"]);
  });

  test("an error status is recorded as pg_net records it, not retried", async () => {
    sender = createNetSender({ sql, logger: silent, pollMs: 50 });
    await sender.start();
    const id = await post("/teapot");
    const row = await waitFor("the answer", () => response(id));
    expect(row.status_code).toBe(418);
    expect(row.content).toBe("short and stout");
    await sleep(200);
    expect(received.length).toBe(1);
  });

  test("past timeout_milliseconds the request is recorded as timed out", async () => {
    sender = createNetSender({ sql, logger: silent, pollMs: 50 });
    await sender.start();
    const id = await post("/hang", 200);
    const row = await waitFor("the timeout", () => response(id));
    expect(row.timed_out).toBe(true);
    expect(row.status_code).toBeNull();
    expect(row.error_msg).toBe("Timeout of 200 ms reached");
  });

  test("a refused connection is recorded with its error", async () => {
    sender = createNetSender({ sql, logger: silent, pollMs: 50 });
    await sender.start();
    const closed = await freePort();
    const [{ id }] = await sql`select net.http_post(${`http://127.0.0.1:${closed}/tick`}) as id`;
    const row = await waitFor("the error", () => response(Number(id)));
    expect(row.status_code).toBeNull();
    expect(row.timed_out).toBe(false);
    expect(row.error_msg).toBeTruthy();
  });

  test("many requests run at once, never more than the concurrency", async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => post("/slow")));
    sender = createNetSender({ sql, logger: silent, pollMs: 50, concurrency: 5 });
    const started = Date.now();
    await sender.start();
    await waitFor("every answer", async () => {
      const [row] = await sql`select count(*)::int as n from net._http_response where id = any(${ids}::bigint[])`;
      return row!.n === ids.length ? true : undefined;
    });
    expect(mostOpen).toBe(5);
    // Twelve requests of 400 ms, five at a time: three rounds, far less than twelve one by one.
    expect(Date.now() - started).toBeLessThan(12 * 400);
  });

  test("the stand-in's notification wakes it without waiting for the poll", async () => {
    sender = createNetSender({ sql, listener, logger: silent, pollMs: 60_000 });
    await sender.start();
    await sender.idle();
    const id = await post("/notified");
    const row = await waitFor("the answer", () => response(id), 5_000);
    expect(row.status_code).toBe(200);
  });

  test("answers older than the ttl are pruned", async () => {
    await sql`insert into net._http_response (id, status_code, created) values (900001, 200, now() - interval '7 hours'), (900002, 200, now())`;
    sender = createNetSender({ sql, logger: silent, pollMs: 50, pruneEveryMs: 50 });
    await sender.start();
    await waitFor("the prune", async () => ((await response(900001)) === undefined ? true : undefined));
    expect(await response(900002)).toBeDefined();
  });

  test("stop aborts the requests in flight and records them", async () => {
    sender = createNetSender({ sql, logger: silent, pollMs: 50 });
    await sender.start();
    const id = await post("/hang", 10_000);
    await waitFor("the request to reach the server", async () => (received.length === 1 ? true : undefined));
    await sender.stop();
    sender = null;
    const row = await response(id);
    expect(row.error_msg).toBe("the net sender stopped before the answer came");
    expect(row.timed_out).toBe(false);
  });
});
