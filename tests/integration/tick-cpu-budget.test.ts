/**
 * A tick keeps within the Edge runtime's CPU limit however large the backlog: it stops claiming
 * stage tasks at TICK_CPU_SHARE of EDGE_CPU_LIMIT_MS, finishes what it holds, and answers
 * more=true, leaving the rest for the next tick. Run through the real edge host, which ends a
 * request past the limit with 546, on a limit small enough that 1,000 trivial tasks do not fit in
 * one tick. The tasks are messages no stage can read: each is dead-lettered, one RPC apiece.
 * Each dead letter raises an alert; alert delivery is left unconfigured here (no bot token), as
 * its own cost is paced by Telegram's one message a second, not by the backlog.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { TickAnswer } from "../../shared/contracts/operator.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type EdgeHostProcess, startEdgeHost } from "../fixtures/edge-host-process.ts";

// Larger than one tick's CPU budget can take, so the first tick stops at its budget with work left.
// The edge host ticks only when asked; no net sender runs here, so every tick is the test's.
const BACKLOG = 2_000;
const CPU_LIMIT_MS = 1_200;
const sql = postgres(LOCAL_DB_URL, { max: 2, onnotice: () => {} });
let edgeHost: EdgeHostProcess;
let serviceRoleKey: string;

const visibleTasks = async () => Number((await sql<{ n: string }[]>`select count(*) as n from pgmq.q_stage_tasks`)[0]!.n);

async function tick(): Promise<TickAnswer> {
  const response = await fetch(`${edgeHost.functionsUrl}/pipeline/tick`, {
    method: "POST",
    headers: { authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ reason: "test" }),
  });
  expect(response.status).toBe(200);
  return TickAnswer.parse(await response.json());
}

const tickLines = () =>
  edgeHost.output().split("\n").filter((line) => line.includes('"path":"/functions/v1/pipeline/tick"')).map((line) =>
    JSON.parse(line) as Record<string, unknown>
  );

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const { TELEGRAM_BOT_TOKEN: _unconfigured, ...env } = localStackEnv();
  serviceRoleKey = env.SERVICE_ROLE_KEY!;
  // One worker: each tick runs alone on it, so its CPU reading is its own.
  edgeHost = await startEdgeHost({ ...env, MDAME_EDGE_WORKERS: "1", EDGE_CPU_LIMIT_MS: String(CPU_LIMIT_MS), TICK_CPU_SHARE: "0.5", LOG_LEVEL: "info" });
}, 120_000);

afterAll(async () => {
  await edgeHost?.stop();
  await sql.end();
}, 60_000);

describe("tick CPU budget", () => {
  test("a backlog larger than one tick's CPU is drained over several ticks, each under the limit", async () => {
    await sql`select pgmq.send_batch('stage_tasks', array(select jsonb_build_object('trivial', i) from generate_series(1, ${BACKLOG}) as i))`;

    const first = await tick();
    expect(first.more).toBe(true);
    expect(first.processed).toBeGreaterThan(0);
    expect(first.processed).toBeLessThan(BACKLOG);
    expect(await visibleTasks()).toBeGreaterThan(0);

    let processed = first.processed;
    for (let i = 0; i < 100 && (await visibleTasks()) > 0; i++) processed += (await tick()).processed;
    expect(await visibleTasks()).toBe(0);
    // Every task ran once.
    expect(processed).toBeLessThanOrEqual(BACKLOG);
    const lines = tickLines();
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line.http_status).toBe(200);
      expect(line.cpu_ms as number).toBeLessThan(CPU_LIMIT_MS);
    }
    expect(edgeHost.output()).not.toContain("WORKER_LIMIT");
  }, 180_000);
});
