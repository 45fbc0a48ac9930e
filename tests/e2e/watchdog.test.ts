/**
 * The watchdog pages when the Edge Function stops, through the database alone: on the whole local
 * stack (Postgres with pg_cron and the pg_net stand-in's sender, the Deno edge host, the emulators),
 * the edge host is frozen with SIGSTOP. pg_cron's mdame-watchdog finds the tick failing and sends
 * the Telegram emulator a message naming the tick and how long it has failed, through pg_net, while
 * the edge host is still frozen. After SIGCONT the ticks succeed again and a recovery message
 * follows. Every setting is the deployed default (a 2-minute grace for the tick, a probe after 45 s
 * without one), so the message comes within about four minutes of the freeze.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { LOCAL_DB_URL, LOCAL_EMULATOR_URL } from "../../shared/config/local-stack.ts";
import { createSql } from "../../shared/db/client.ts";
import * as db from "../../stack/db.ts";
import { pidFile } from "../../stack/paths.ts";
import { type StackHandle, startStack, supervisorPid } from "../../stack/stack-control.ts";

interface TelegramMessage {
  chat_id: string | number;
  text: string;
  date: number;
}

let stack: StackHandle | undefined;
let frozenGroup: number | null = null;
const sql = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-watchdog-e2e" });
const t0 = Date.now();
const say = (line: string) => process.stderr.write(`[watchdog +${Math.round((Date.now() - t0) / 1000)}s] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function messages(): Promise<TelegramMessage[]> {
  const response = await fetch(`${LOCAL_EMULATOR_URL}/_emulator/telegram/messages`, { signal: AbortSignal.timeout(10_000) });
  expect(response.status).toBe(200);
  return await response.json() as TelegramMessage[];
}

/** `read()` again every 5 s until `done` holds of its value or `ms` have passed; the last value read. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(5_000);
    value = await read();
  }
  return value;
}

/** The first message whose text matches, waiting up to `ms`; null when none came. */
const waitForMessage = (pattern: RegExp, ms: number) =>
  poll(async () => (await messages()).find((m) => pattern.test(m.text)) ?? null, (found) => found !== null, ms);

/** When the last tick that did its work ended (mdame.record_tick_ok). */
async function lastTickOk(): Promise<Date | null> {
  const [row] = await sql<{ ok_at: Date | null }[]>`select ok_at from mdame.watchdog_checks where name = 'tick_liveness'`;
  return row?.ok_at ?? null;
}

const watchdogAlerts = () =>
  sql<{ kind: string; status: string }[]>`
    select kind, status from mdame.alerts where kind in ('engine_stopped', 'engine_recovered') order by created_at`;

beforeAll(async () => {
  const other = supervisorPid();
  if (other !== null) throw new Error(`a stack supervisor (pid ${other}) is already running; this test needs a stack of its own`);
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  await db.stop(() => {});
  stack = await startStack({ quiet: true, timeoutMs: 180_000 });
}, 300_000);

afterAll(async () => {
  // Never leave a frozen process behind, whatever failed.
  if (frozenGroup !== null) process.kill(-frozenGroup, "SIGCONT");
  await stack?.stop();
  await sql.end();
}, 120_000);

test("a frozen edge host is paged from the database, and its recovery after", async () => {
  // The watchdog's probe keeps an idle engine ticking: wait for a tick that ended well.
  expect(await poll(lastTickOk, (at) => at !== null, 150_000)).not.toBeNull();
  const before = (await messages()).length;

  const pid = Number(readFileSync(pidFile("edge"), "utf8").trim());
  expect(Number.isInteger(pid) && pid > 0).toBe(true);
  say(`SIGSTOP to the edge host's process group ${pid}`);
  process.kill(-pid, "SIGSTOP");
  frozenGroup = pid;
  const frozenAt = Date.now();

  const stopped = await waitForMessage(/has stopped[\s\S]*The pipeline tick has failed for \d+ min/, 360_000);
  say(`stopped message after ${Math.round((Date.now() - frozenAt) / 1000)} s: ${JSON.stringify(stopped?.text)}`);
  expect(stopped).not.toBeNull();
  expect(stopped!.text).toMatch(
    /^🛑 MD-AME has stopped \(dev\)\nThe pipeline tick has failed for \d+ min: no tick requested since \d{4}-\d\d-\d\d \d\d:\d\d UTC has finished/,
  );
  expect(String(stopped!.chat_id)).toBe(
    String((await sql`select decrypted_secret from vault.decrypted_secrets where name = 'mdame_telegram_chat_id'`)[0]!.decrypted_secret),
  );
  // It came while the edge host was frozen: nothing went through the process it watches.
  expect((await messages()).length).toBeGreaterThan(before);
  const [stoppedAlert] = await sql<{ delivered_by: string }[]>`
    select delivered_by from mdame.alerts where kind = 'engine_stopped' and details->>'check' = 'tick'`;
  expect(stoppedAlert?.delivered_by).toBe("database");

  // Frozen for at least as long again, then thawed.
  await sleep(Math.max(0, 150_000 - (Date.now() - frozenAt)));
  say("SIGCONT");
  process.kill(-pid, "SIGCONT");
  frozenGroup = null;
  const thawedAt = new Date();

  const recovered = await waitForMessage(/recovered[\s\S]*Recovered: the pipeline tick works again after \d+ min/, 240_000);
  say(`recovery message after ${Math.round((Date.now() - thawedAt.getTime()) / 1000)} s: ${JSON.stringify(recovered?.text)}`);
  expect(recovered).not.toBeNull();
  expect(recovered!.text).toMatch(/^✅ MD-AME recovered \(dev\)\nRecovered: the pipeline tick works again after \d+ min \(.* UTC to .* UTC\)\./);
  // The engine ticks again: a tick ended after the thaw, and both alerts were recorded as sent.
  expect((await lastTickOk())!.getTime()).toBeGreaterThan(thawedAt.getTime());
  const rows = await poll(watchdogAlerts, (alerts) => alerts.every((a) => a.status === "sent"), 90_000);
  expect(rows.map((r) => `${r.kind} ${r.status}`)).toEqual(["engine_stopped sent", "engine_recovered sent"]);
}, 900_000);
