/**
 * Alerts end to end against the real Postgres and the Telegram emulator: the producers raise in
 * their event's transaction, the tick delivers (dedupe, pacing, 429 retry_after, an outage then
 * recovery, a permanent refusal, a photo), and no secret reaches a message or an error.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../../emulators/main.ts";
import { createTelegramClient, TelegramRateLimitedError, TelegramUnavailableError } from "../../shared/providers/telegram/bot-api.ts";
import { raiseAlert } from "../../shared/db/rpc/alerts.ts";
import { buildPendingWeeklyReports } from "../../shared/reports/weekly-build.ts";
import { LOCAL_TELEGRAM_BOT_TOKEN } from "../../stack/stack-env.ts";
import { raiseThroughDatabase } from "../../stack/restart-alerts.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const CHAT = "-1009990001";
const OTHER_CHAT = "-1009990002";

const pipeline = withPipeline({
  storagePrefix: "mdame-it-alerts-",
  env: (emulator) => ({ TELEGRAM_BOT_TOKEN: LOCAL_TELEGRAM_BOT_TOKEN, TELEGRAM_API_BASE_URL: emulator.url, TELEGRAM_CHAT_ID: CHAT }),
});

interface EmulatedMessage {
  chat_id: string;
  message_id: number;
  method: string;
  raw: string;
  text: string;
  photo?: { sha256: string; size_bytes: number };
}

async function admin(path: string, init?: RequestInit): Promise<unknown> {
  const response = await fetch(`${pipeline.emulator.url}${path}`, init);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return await response.json();
}
const messages = () => admin("/_emulator/telegram/messages") as Promise<EmulatedMessage[]>;
const alertRows = () => adminSql()`select * from mdame.alerts where delivered_by = 'edge' order by created_at, id` as Promise<Array<Record<string, any>>>;
const setClock = (offset: string) => adminSql()`select mdame.set_engine_clock(${offset}::interval)`;

/** A running run of tech-explained with one unit at `stage`. */
async function unitAt(stage: string): Promise<{ runId: string; unitId: string }> {
  const sql = adminSql();
  const [run] = await sql`insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`it-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  await sql`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run!.id}, 'tech-explained', 'ingested')`;
  const [unit] = await sql`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage)
    values (${run!.id}, 'tech-explained', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${sql.json({ title: "Test topic" })}, ${stage}) returning id`;
  return { runId: run!.id, unitId: unit!.id };
}

async function account(handle: string): Promise<string> {
  const [row] = await adminSql()`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle)
    values ('tech-explained', 'youtube', ${handle}) on conflict (dimension_id, platform, channel_handle) do update set health_state = 'ok' returning id`;
  return row!.id;
}

beforeEach(async () => {
  const sql = adminSql();
  await sql`delete from mdame.alerts`;
  await sql`update mdame.dimensions set alerts = null`;
  await setClock("0");
  await pipeline.emulator.reset();
  await admin(`/_emulator/telegram/chats/${CHAT}`, { method: "PUT", body: "{}" });
  await admin(`/_emulator/telegram/chats/${OTHER_CHAT}`, { method: "PUT", body: "{}" });
});

describe("producers", () => {
  test("a failed run, a dead letter, an account to reconnect and a stale deferral each raise one alert, delivered once", async () => {
    const sql = adminSql();
    const failed = await unitAt("failed");
    await sql`update mdame.work_units set error = 'voice: every provider failed' where id = ${failed.unitId}`;
    await pipeline.tick(); // mdame.tick() closes the run: failed

    const dead = await unitAt("script");
    const [msg] = await sql`select pgmq.send('stage_tasks', ${
      sql.json({ stage: "script", run_id: dead.runId, unit_id: dead.unitId, step_token: "step:it" })
    }) as id`;
    await sql`select mdame.retry_or_dead_letter('stage_tasks', 'script', ${
      msg!.id
    }::bigint, 9, '{"stage":"script"}', ${dead.unitId}::uuid, ${dead.runId}::uuid, 'LLM answer broke its contract', false)`;

    const accountId = await account("@it-alerts-reconnect");
    await pipeline.deps.sql`select mdame.mark_account_needs_reconnect(${accountId}::uuid, 'invalid_grant: Token has been expired or revoked.')`;

    const deferred = await unitAt("deferred");
    const [pub] = await sql`insert into mdame.publications (unit_id, account_id, platform, status, deferred_reason)
      values (${deferred.unitId}, ${await account("@it-alerts-deferred")}, 'youtube', 'deferred', 'quota_spent') returning id`;
    await setClock("25 hours");
    await pipeline.deps.sql`select mdame.check_alerts()`;
    await pipeline.deps.sql`select mdame.check_alerts()`;

    const kinds = (await alertRows()).map((a) => `${a.kind}:${a.dedupe_key}`).sort();
    expect(kinds).toEqual([
      `dead_letter:dead_letter:stage_tasks:${msg!.id}`,
      `needs_reconnect:needs_reconnect:${accountId}`,
      `quota_deferral_stale:quota_deferral_stale:${pub!.id}`,
      `run_failed:run_failed:${failed.runId}`,
    ]);

    // This tick closes the dead letter's run too (its only unit failed): a second run_failed.
    await pipeline.tick();
    const sent = await messages();
    expect(sent.map((m) => m.text.split("\n")[0]).sort()).toEqual([
      "⏳ Publication deferred for over a day · tech-explained",
      "🔌 Account needs reconnecting · tech-explained",
      "🔴 Run failed",
      "🔴 Run failed",
      "🟠 Dead letter · tech-explained",
    ]);
    expect((await alertRows()).filter((a) => a.kind === "run_failed").map((a) => a.details.run_id).sort()).toEqual([failed.runId, dead.runId].sort());
    expect(sent.every((m) => m.chat_id === CHAT)).toBe(true);
    const reconnect = sent.find((m) => m.text.startsWith("🔌"))!;
    expect(reconnect.text).toContain("fix: mdame account connect youtube --dimension tech-explained --channel @it-alerts-reconnect");
    expect(sent.find((m) => m.text.startsWith("🔴"))!.text).toContain("voice: every provider failed");
    const rows = await alertRows();
    expect(rows.map((a) => a.status)).toEqual(["sent", "sent", "sent", "sent", "sent"]);
    expect(rows.every((a) => a.message_ids.length === 1 && a.chat_id === CHAT)).toBe(true);
    expect(rows.map((a) => Number(a.message_ids[0])).sort()).toEqual(sent.map((m) => m.message_id).sort());

    // Nothing is due any more: another tick sends nothing.
    await pipeline.tick();
    expect((await messages()).length).toBe(5);
  }, 60_000);
});

describe("delivery", () => {
  test("the same key within the window is one message counting its occurrences", async () => {
    for (let i = 0; i < 3; i++) {
      await raiseAlert(pipeline.deps.sql, { kind: "dead_letter", dimensionId: "tech-explained", dedupeKey: "it:dedupe", summary: "render dead-lettered" });
    }
    await pipeline.tick();
    const sent = await messages();
    expect(sent.length).toBe(1);
    expect(sent[0]!.text).toContain("Happened 3 times");
  }, 30_000);

  test("a dimension's own chat takes its alerts; an unknown chat is a permanent failure with Telegram's words", async () => {
    await adminSql()`update mdame.dimensions set alerts = ${adminSql().json({ telegram_chat_id: OTHER_CHAT })} where id = 'tech-explained'`;
    await adminSql()`update mdame.dimensions set alerts = ${adminSql().json({ telegram_chat_id: "-1000000404" })} where id = 'sains-singkat'`;
    await raiseAlert(pipeline.deps.sql, { kind: "run_failed", dimensionId: "tech-explained", dedupeKey: "it:own-chat", summary: "to its chat" });
    await raiseAlert(pipeline.deps.sql, { kind: "run_failed", dimensionId: "sains-singkat", dedupeKey: "it:no-chat", summary: "nowhere" });
    await pipeline.tick();
    const sent = await messages();
    expect(sent.map((m) => m.chat_id)).toEqual([OTHER_CHAT]);
    const rows = await alertRows();
    const lost = rows.find((a) => a.dedupe_key === "it:no-chat")!;
    expect(lost.status).toBe("failed");
    expect(lost.last_error).toContain("Bad Request: chat not found");
    expect(rows.find((a) => a.dedupe_key === "it:own-chat")!.chat_id).toBe(OTHER_CHAT);
  }, 30_000);

  test("a 429 is waited out for its retry_after, then the alert is sent", async () => {
    await pipeline.emulator.armFault({ service: "telegram", kind: "rate_limited", count: 2 });
    await raiseAlert(pipeline.deps.sql, { kind: "dead_letter", dimensionId: null, dedupeKey: "it:429", summary: "throttled" });
    await pipeline.tick();
    let [row] = await alertRows();
    expect(row!.status).toBe("pending");
    expect(row!.last_error).toContain("429");
    const [{ wait }] = await adminSql()`select extract(epoch from next_attempt_at - mdame.engine_now())::float as wait from mdame.alerts` as any;
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3);
    expect((await messages()).length).toBe(0);

    await setClock("10 seconds");
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await pipeline.tick();
    [row] = await alertRows();
    expect(row!.status).toBe("sent");
    expect((await messages()).length).toBe(1);
  }, 30_000);

  test("the emulator enforces a group's per-minute limit with retry_after", async () => {
    await admin("/_emulator/telegram/settings", { method: "PUT", body: JSON.stringify({ group_per_minute: 1, per_chat_interval_ms: 0 }) });
    const client = createTelegramClient({ token: LOCAL_TELEGRAM_BOT_TOKEN, baseUrl: pipeline.emulator.url, attempts: 1 });
    await client.sendMessage({ chatId: CHAT, text: "one" });
    const refused = await client.sendMessage({ chatId: CHAT, text: "two" }).catch((error) => error);
    expect(refused).toBeInstanceOf(TelegramRateLimitedError);
    expect(refused.retryAfterS).toBeGreaterThan(3);
    expect(refused.retryAfterS).toBeLessThanOrEqual(60);
  });

  test("an outage loses nothing: every alert is delivered exactly once after it", async () => {
    await pipeline.emulator.armFault({ service: "telegram", kind: "unavailable", count: 1000, for_ms: 60_000 });
    for (let i = 0; i < 3; i++) {
      await raiseAlert(pipeline.deps.sql, { kind: "dead_letter", dimensionId: "tech-explained", dedupeKey: `it:outage:${i}`, summary: `alert ${i}` });
    }
    await pipeline.tick();
    let rows = await alertRows();
    expect(rows.map((a) => a.status)).toEqual(["pending", "pending", "pending"]);
    expect(rows.every((a) => String(a.last_error).includes("502"))).toBe(true);

    // Still down at the next attempt: the connection is refused this time.
    await fetch(`${pipeline.emulator.url}/_emulator/faults`, { method: "DELETE" });
    await pipeline.emulator.armFault({ service: "telegram", kind: "refused", count: 1000, for_ms: 60_000 });
    await setClock("1 minute");
    await pipeline.tick();
    rows = await alertRows();
    expect(rows.map((a) => a.status)).toEqual(["pending", "pending", "pending"]);
    expect(rows.every((a) => a.attempts === 2)).toBe(true);

    await fetch(`${pipeline.emulator.url}/_emulator/faults`, { method: "DELETE" });
    await setClock("2 hours");
    await pipeline.tick();
    rows = await alertRows();
    expect(rows.map((a) => a.status)).toEqual(["sent", "sent", "sent"]);
    const sent = await messages();
    expect(sent.map((m) => m.text.split("\n")[1]).sort()).toEqual(["alert 0", "alert 1", "alert 2"]);
  }, 60_000);

  test("a photo alert sends the stored chart with its caption", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    const local = join(pipeline.storageDir, "chart-upload.png");
    await writeFile(local, png);
    await pipeline.deps.store.putFile("reports/it/chart.png", local, "image/png");
    await raiseAlert(pipeline.deps.sql, {
      kind: "weekly_report",
      dimensionId: null,
      dedupeKey: "it:photo",
      summary: "Week 49: 12 videos.",
      photoKey: "reports/it/chart.png",
    });
    await pipeline.tick();
    const [message] = await messages();
    expect(message!.method).toBe("sendPhoto");
    expect(message!.photo!.size_bytes).toBe(png.length);
    expect(message!.text).toContain("Week 49: 12 videos.");
  }, 30_000);
});

describe("secrets", () => {
  test("no bot token or service key in any message, answer or error", async () => {
    const key = pipeline.env.SERVICE_ROLE_KEY!;
    await raiseAlert(pipeline.deps.sql, {
      kind: "dead_letter",
      dimensionId: null,
      dedupeKey: "it:secret",
      summary: `worker said: bad key ${key} for bot ${LOCAL_TELEGRAM_BOT_TOKEN}`,
      details: { error: `Authorization: Bearer ${key}` },
    });
    await pipeline.tick();
    const sent = await messages();
    expect(sent.length).toBe(1);
    for (const m of sent) {
      expect(m.raw).not.toContain(key);
      expect(m.raw).not.toContain(LOCAL_TELEGRAM_BOT_TOKEN.split(":")[1]!);
      expect(m.text).toContain("[redacted]");
    }
    // A connection error names no URL with the token in it.
    const offline = createTelegramClient({ token: LOCAL_TELEGRAM_BOT_TOKEN, baseUrl: "http://127.0.0.1:9", attempts: 1 });
    const error = await offline.getMe().catch((e) => e);
    expect(error).toBeInstanceOf(TelegramUnavailableError);
    expect(String(error.message)).not.toContain(LOCAL_TELEGRAM_BOT_TOKEN.split(":")[1]!);
    expect(JSON.stringify({ ...error, message: error.message, cause: String(error.cause) })).not.toContain(LOCAL_TELEGRAM_BOT_TOKEN.split(":")[1]!);
    // An emulator that issued one token refuses another with 401, and the error does not repeat it.
    const dataDir = await mkdtemp(join(tmpdir(), "mdame-it-telegram-"));
    const strict = await startEmulator({ port: 0, dataDir, telegramBotToken: LOCAL_TELEGRAM_BOT_TOKEN, log: () => {} });
    try {
      expect((await createTelegramClient({ token: LOCAL_TELEGRAM_BOT_TOKEN, baseUrl: strict.url }).getMe()).is_bot).toBe(true);
      const wrong = createTelegramClient({ token: "1000000001:not-the-token-the-emulator-issued", baseUrl: strict.url, attempts: 1 });
      const refused = await wrong.getMe().catch((e) => e);
      expect(refused.status).toBe(401);
      expect(String(refused.message)).not.toContain("not-the-token");
    } finally {
      await strict.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("surfaces and the emulator", () => {
  test("the supervisor's restart alert is raised through the database as the engine role", async () => {
    await raiseThroughDatabase(pipeline.env.DB_URL!)({ component: "render-runner", restarts: 3, windowS: 600, lastExit: "signal SIGKILL" });
    const [row] = await alertRows();
    expect(row!.kind).toBe("component_restarting");
    expect(row!.dedupe_key).toBe("component_restarting:render-runner");
    await pipeline.tick();
    expect((await messages())[0]!.text).toContain("Component keeps restarting");
  }, 30_000);

  test("GET /pipeline/alerts lists recent alerts with their delivery state, never a claim token", async () => {
    await raiseAlert(pipeline.deps.sql, { kind: "needs_reconnect", dimensionId: "tech-explained", dedupeKey: "it:list", summary: "reconnect me" });
    const response = await pipeline.app.request("/pipeline/alerts?limit=5", { headers: pipeline.auth });
    expect(response.status).toBe(200);
    const body = await response.json() as { alerts: Array<Record<string, unknown>>; delivery: { configured: boolean } };
    expect(body.delivery.configured).toBe(true);
    expect(body.alerts.map((a) => [a.kind, a.dimension_id, a.status, a.occurrences])).toEqual([["needs_reconnect", "tech-explained", "pending", 1]]);
    expect(body.alerts[0]).not.toHaveProperty("claim_token");
    expect((await pipeline.app.request("/pipeline/alerts?limit=0", { headers: pipeline.auth })).status).toBe(400);
    expect((await pipeline.app.request("/pipeline/alerts")).status).toBe(401);
  });

  test("the emulator takes JSON, form and multipart parameters and refuses what Telegram refuses", async () => {
    const bot = `${pipeline.emulator.url}/bot${LOCAL_TELEGRAM_BOT_TOKEN}`;
    const post = async (method: string, init: RequestInit) => {
      const response = await fetch(`${bot}/${method}`, { method: "POST", ...init });
      return { status: response.status, body: await response.json() as Record<string, any> };
    };
    await admin("/_emulator/telegram/settings", { method: "PUT", body: JSON.stringify({ per_chat_interval_ms: 0 }) });
    const json = (body: unknown) => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await post("sendMessage", json({ chat_id: CHAT, text: "plain *bold* text\\.", parse_mode: "MarkdownV2" }))).body.result.text).toBe(
      "plain bold text.",
    );
    expect(
      (await post("sendMessage", { headers: { "content-type": "application/x-www-form-urlencoded" }, body: `chat_id=${CHAT}&text=form` })).body.result.text,
    ).toBe("form");
    const form = new FormData();
    form.set("chat_id", CHAT);
    form.set("text", "multipart");
    expect((await post("sendMessage", { body: form })).body.result.text).toBe("multipart");

    expect(await post("sendMessage", json({ chat_id: CHAT, text: "Run failed.", parse_mode: "MarkdownV2" }))).toEqual({
      status: 400,
      body: {
        ok: false,
        error_code: 400,
        description: "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
      },
    });
    expect((await post("sendMessage", json({ chat_id: CHAT, text: "x".repeat(4097) }))).body.description).toBe("Bad Request: message is too long");
    expect((await post("sendMessage", json({ chat_id: "-1000000404", text: "x" }))).body.description).toBe("Bad Request: chat not found");
    expect((await post("sendPhoto", json({ chat_id: CHAT, caption: "no photo" }))).body.description).toBe("Bad Request: there is no photo in the request");
    expect((await post("sendMessage", { headers: { "content-type": "application/json" }, body: "{" })).status).toBe(400);
    const listed = await messages();
    expect(listed.map((m) => m.text)).toEqual(["plain bold text.", "form", "multipart"]);
  });
});

describe("the weekly report", () => {
  test("its alert reaches the chat as the chart with its caption, then the rest of the report, all parsed", async () => {
    await adminSql()`delete from mdame.weekly_reports`;
    const [queued] = await adminSql()`select mdame.queue_weekly_reports('2026-11-22 21:00Z') as added`;
    expect(queued!.added).toBe(2);
    // The render-runner builds them (render-runner/weekly-reports.ts); the tick delivers their alerts.
    expect(await buildPendingWeeklyReports(pipeline.deps)).toEqual({ built: 2, failed: 0 });
    await pipeline.tick();
    const rows = await alertRows();
    expect(rows.filter((a) => a.kind === "weekly_report").map((a) => a.status)).toEqual(["sent", "sent"]);
    const sent = (await messages()).filter((m) => m.chat_id === CHAT);
    const photos = sent.filter((m) => m.method === "sendPhoto");
    expect(photos.length).toBe(2);
    // Each photo is the chart the report stored: its key ends in the first 16 hex digits of the PNG's sha256.
    const keys = (await adminSql()`select chart_key from mdame.weekly_reports where status = 'ready'`).map((r) => r.chart_key as string);
    for (const photo of photos) {
      expect(photo.text.startsWith("📊 Weekly report")).toBe(true);
      expect(photo.photo!.size_bytes).toBeGreaterThan(10_000);
      expect(keys.some((key) => key.endsWith(`-${photo.photo!.sha256.slice(0, 16)}.png`))).toBe(true);
    }
    const all = sent.map((m) => m.text).join("\n");
    expect(all).toContain("Weekly report: Tech Explained");
    expect(all).not.toContain("\\");
  }, 60_000);
});
