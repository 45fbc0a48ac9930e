/**
 * The real pg_net when the wake-up fails: the functions URL refuses the connection, answers an
 * error, or never answers (pg_net's timeout). The enqueue that woke it stands, its stage task waits
 * in the queue, pg_net records each failure in net._http_response, and pg_cron's minutely
 * `mdame-tick` job (`select mdame.tick()`, supabase/migrations) wakes the stage runner again until a
 * tick is answered; then the work drains.
 *
 * The pipeline function runs in-process behind a front this test controls, with no edge host
 * polling beside it: every tick it serves is one that pg_net delivered.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TickAnswer } from "../../shared/contracts/operator.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { servePipeline } from "../fixtures/pipeline-server.ts";
import { freePort, startTestEmulator } from "../integration/fixtures/emulator-harness.ts";
import { missingExtensions, superuser, waitFor } from "./fixtures.ts";

type Mode = "fail" | "hang" | "pass";

interface Delivered {
  reason: string;
  authorization: string | null;
  answered: number | "held";
  processed?: number;
}

describe.skipIf(missingExtensions !== null)("pg_net failures (the extension)", () => {
  const sql = superuser();
  const env = localStackEnv();
  let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
  let pipeline: ReturnType<typeof servePipeline>;
  let front: ReturnType<typeof Bun.serve>;
  let mode: Mode = "fail";
  const delivered: Delivered[] = [];
  const held: (() => void)[] = [];

  beforeAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
    emulator = await startTestEmulator();
    pipeline = servePipeline({ ...env, ...emulator.serviceEnv(), SUPABASE_URL: emulator.url, LOG_LEVEL: "warn" });
    front = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const text = await request.text();
        const entry: Delivered = { reason: JSON.parse(text || "{}").reason ?? "", authorization: request.headers.get("authorization"), answered: "held" };
        delivered.push(entry);
        if (mode === "hang") {
          // Held until pg_net gives up (its timeout) or the test ends.
          await new Promise<void>((resolve) => held.push(resolve));
          entry.answered = 503;
          return new Response("released", { status: 503 });
        }
        if (mode === "fail") {
          entry.answered = 503;
          return Response.json({ error: "unavailable" }, { status: 503 });
        }
        const url = new URL(request.url);
        const response = await fetch(`${pipeline.functionsUrl}${url.pathname.replace(/^\/functions\/v1/, "")}`, {
          method: "POST",
          headers: { authorization: request.headers.get("authorization") ?? "", "content-type": "application/json" },
          body: text,
        });
        const body = await response.text();
        entry.answered = response.status;
        if (response.ok) entry.processed = TickAnswer.parse(JSON.parse(body)).processed;
        return new Response(body, { status: response.status, headers: { "content-type": "application/json" } });
      },
    });
  }, 120_000);

  afterAll(async () => {
    // Wakes still queued in pg_net are refused from now on, not forwarded to a stopped pipeline.
    mode = "fail";
    for (const release of held.splice(0)) release();
    front?.stop(true);
    await pipeline?.stop();
    await emulator?.stop();
    await db.storeVaultSecrets(() => {});
    await sql.end({ timeout: 2 });
  });

  const useFunctionsUrl = (url: string) => db.storeVaultSecrets(() => {}, { ...env, FUNCTIONS_URL: url });
  const lastResponseId = async () => (await sql`select coalesce(max(id), 0)::int as id from net._http_response`)[0].id as number;

  test("a refused connection is recorded as pg_net's error, and the wake's caller is not failed", async () => {
    const closed = await freePort();
    await useFunctionsUrl(`http://127.0.0.1:${closed}/functions/v1`);
    const before = await lastResponseId();
    await sql`select mdame.wake_stage_runner('refused-probe')`;
    const response = await waitFor("pg_net's record of the refused request", async () => {
      const [row] = await sql`select status_code, error_msg from net._http_response where id > ${before} order by id limit 1`;
      return row as { status_code: number | null; error_msg: string | null } | undefined;
    }, 30_000);
    expect(response.status_code).toBeNull();
    expect(response.error_msg ?? "").not.toBe("");
  }, 60_000);

  test("errors and a timeout leave the work queued; pg_cron's minutely tick wakes again until it drains", async () => {
    await useFunctionsUrl(`http://127.0.0.1:${front.port}/functions/v1`);
    const before = await lastResponseId();

    // The run's ingest wake is held past pg_net's timeout.
    mode = "hang";
    const [{ run_id: runId }] =
      await sql`select run_id from mdame.start_run(${`pg-net-failures-${Date.now()}`}, 'dev', 'manual', current_date, 'tech-explained')`;
    await waitFor("the ingest wake to reach the functions URL", () => (delivered.some((d) => d.reason === "ingest") ? true : undefined), 30_000);
    expect(delivered.find((d) => d.reason === "ingest")!.authorization).toBe(`Bearer ${env.SERVICE_ROLE_KEY}`);

    // Meanwhile the functions URL answers errors. pg_net sends a batch of requests to its end, so
    // the minutely tick's wakes wait behind the held one until pg_net gives up on it (120 s), then
    // go out and are refused too.
    mode = "fail";
    await waitFor("pg_net to record the timed-out ingest wake", async () => {
      const [row] = await sql`select count(*)::int as n from net._http_response where id > ${before} and timed_out`;
      return row.n > 0 ? true : undefined;
    }, 180_000);
    await waitFor(
      "pg_cron's tick to wake the stage runner",
      () => (delivered.some((d) => d.reason === "tick" && d.answered === 503) ? true : undefined),
      120_000,
    );
    const failures = await sql`select status_code, timed_out from net._http_response where id > ${before} order by id`;
    expect(failures.some((r) => r.status_code === 503)).toBe(true);
    expect(failures.some((r) => r.timed_out === true)).toBe(true);
    expect(failures.some((r) => r.status_code === 200)).toBe(false);

    // Nothing was lost: the ingest task still waits, and the dimension has not moved.
    const [queued] = await sql`select count(*)::int as n from pgmq.q_stage_tasks where message->>'run_id' = ${runId}`;
    expect(queued.n).toBeGreaterThanOrEqual(1);
    const [waiting] = await sql`select status from mdame.run_dimensions where run_id = ${runId} and dimension_id = 'tech-explained'`;
    expect(waiting.status).toBe("ingesting");

    // Once the functions URL answers, the next minutely wake drains the work.
    mode = "pass";
    const drained = await waitFor(
      "a tick through pg_net to process the ingest",
      () => delivered.find((d) => d.answered === 200 && (d.processed ?? 0) >= 1),
      150_000,
    );
    expect(drained.reason).toBe("tick");
    const [moved] = await sql`select status from mdame.run_dimensions where run_id = ${runId} and dimension_id = 'tech-explained'`;
    expect(moved.status).not.toBe("ingesting");
    const [recorded] = await sql`select count(*)::int as n from net._http_response where id > ${before} and status_code = 200`;
    expect(recorded.n).toBeGreaterThanOrEqual(1);
  }, 600_000);
});
