/**
 * Several pipeline ticks side by side on one backlog, as the wake-ups start them (up to
 * stage_runner.max_ticks in flight, docs/reference/supabase-wiring.md): their claims use
 * `for update skip locked`, so every task is run by exactly one of them, and the ticks' answers
 * add up to the backlog.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { TickAnswer } from "../../shared/contracts/operator.ts";
import { type InProcessPipeline, startInProcessPipeline } from "../fixtures/in-process-pipeline.ts";

const BACKLOG = 24;
const TICKS = 4;
let pipeline: InProcessPipeline;
/** The backlog is made and checked as the superuser; the ticks run as the engine role. */
const sql = postgres(LOCAL_DB_URL, { max: 2, onnotice: () => {} });

beforeAll(async () => {
  pipeline = await startInProcessPipeline({ name: "concurrent-ticks" });
}, 120_000);

afterAll(async () => {
  await sql.end({ timeout: 2 });
  await pipeline?.close();
}, 60_000);

test(`${TICKS} ticks at once on a backlog of ${BACKLOG} tasks run each task exactly once`, async () => {
  // Tasks the runner refuses at once (no stage): each run of one dead-letters it, so a task run
  // twice would show as a second failure or a second answer counting it.
  const sent = await sql<{ msg_id: string }[]>`
    select pgmq.send('stage_tasks', jsonb_build_object('not_a_stage_task', n)) as msg_id from generate_series(1, ${BACKLOG}) n`;
  const tick = async (): Promise<TickAnswer> => {
    const response = await pipeline.app.request("/pipeline/tick", {
      method: "POST",
      headers: { authorization: pipeline.bearer, "content-type": "application/json" },
      body: JSON.stringify({ reason: "concurrent-ticks" }),
    });
    expect(response.status).toBe(200);
    return TickAnswer.parse(await response.json());
  };
  const answers = await Promise.all(Array.from({ length: TICKS }, tick));

  expect(answers.reduce((sum, a) => sum + a.processed, 0)).toBe(BACKLOG);
  expect(answers.reduce((sum, a) => sum + a.failed, 0)).toBe(BACKLOG);
  expect(answers.every((a) => !a.more)).toBe(true);
  const ids = sent.map((row) => Number(row.msg_id));
  const letters = await sql<{ msg_id: string; read_ct: number }[]>`
    select msg_id, read_ct from mdame.dead_letters where queue_name = 'stage_tasks' and msg_id = any(${ids}::bigint[])`;
  expect(letters.map((row) => Number(row.msg_id)).sort((a, b) => a - b)).toEqual(ids.sort((a, b) => a - b));
  // Claimed once each: a second claim would have read the message a second time.
  expect(letters.filter((row) => row.read_ct !== 1)).toEqual([]);
  const [left] = await sql`select count(*)::int as n from pgmq.q_stage_tasks`;
  expect(left!.n).toBe(0);
}, 120_000);
