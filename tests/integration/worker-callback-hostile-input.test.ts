/**
 * The worker-callback function against hostile deliveries, with the real Postgres behind it:
 * unsigned or oversized bodies are refused before they cost memory, malformed JSON and NUL
 * characters are the caller's mistake (400, never 500), a signed callback cannot store a video key
 * the workers never produce or complete one unit with another unit's message, and no answer echoes
 * a huge input back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWorkerCallbackApp } from "../../functions/worker-callback/app.ts";
import * as db from "../../stack/db.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { generateWebhookSecret, signWebhook, WEBHOOK_MAX_BODY_BYTES } from "../../shared/webhooks/standard-webhooks.ts";
import { countingBody, MB } from "./fixtures/counting-stream.ts";

const URL_ = "http://edge.test/worker-callback";
const secret = generateWebhookSecret();
const logLines: string[] = [];
let sql: Sql;
let app: ReturnType<typeof createWorkerCallbackApp>;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(LOCAL_DB_URL, { max: 2, application: "worker-callback-test" });
  const logger = createLogger("worker-callback", { write: (line: string) => void logLines.push(line) }, "info");
  app = createWorkerCallbackApp({ sql, logger, webhookSecrets: [secret] });
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

/** A running run with one unit at render and its render job queued. */
async function unitAtRender(): Promise<{ unitId: string; msgId: number }> {
  const [run] = await sql`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`callback-test-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  const [unit] = await sql`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${run.id}, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "t"}', 'render',
            '{"title": "A title", "narration": "words", "description": "d", "hashtags": ["#t"]}') returning id`;
  const [sent] = await sql`select pgmq.send('render', ${sql.json({ run_id: run.id, unit_id: unit.id })}) as msg_id`;
  return { unitId: unit.id, msgId: Number(sent.msg_id) };
}

function renderCompleted(msgId: number, unitId: string, overrides: Record<string, unknown> = {}) {
  return {
    kind: "render.completed",
    msg_id: msgId,
    unit_id: unitId,
    video_key: `renders/${"a".repeat(64)}.mp4`,
    duration_s: 41.2,
    width: 1080,
    height: 1920,
    size_bytes: 1234567,
    render_ms: 9000,
    worker_id: "render-runner-test",
    quality: { passed: true, integrated_lufs: -14.1, true_peak_dbtp: -1.6, duration_s: 41.2, checks: [], failures: [] },
    ...overrides,
  };
}

async function signedPost(body: string, id = `wh-${crypto.randomUUID()}`): Promise<Response> {
  const headers = await signWebhook(secret, id, body);
  return await app.request(URL_, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

async function stageAndQueue(unitId: string, msgId: number) {
  const [unit] = await sql`select stage, video from mdame.work_units where id = ${unitId}`;
  const [queued] = await sql`select count(*)::int as n from pgmq.q_render where msg_id = ${msgId}`;
  return { stage: unit.stage, video: unit.video, queued: queued.n === 1 };
}

describe("before the body is read", () => {
  test("an unsigned 200 MB chunked body is refused with 401 without reading a byte of it", async () => {
    const body = countingBody(200 * MB);
    const response = await app.request(new Request(URL_, { method: "POST", body: body.stream, duplex: "half" } as RequestInit));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toContain("missing webhook-id");
    expect(body.pulled()).toBe(0);
  });

  test("malformed or stale Standard Webhooks headers are refused with 401, body unread", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, string>[] = [
      { "webhook-id": "wh-1", "webhook-timestamp": String(now), "webhook-signature": "garbage" },
      { "webhook-id": "wh-1", "webhook-timestamp": "soon", "webhook-signature": "v1,AAAA" },
      { "webhook-id": "wh-1", "webhook-timestamp": String(now - 3600), "webhook-signature": "v1,AAAA" },
      { "webhook-id": "x".repeat(5000), "webhook-timestamp": String(now), "webhook-signature": "v1,AAAA" },
    ];
    for (const headers of cases) {
      const body = countingBody(10 * MB);
      const response = await app.request(new Request(URL_, { method: "POST", headers, body: body.stream, duplex: "half" } as RequestInit));
      expect(response.status).toBe(401);
      expect(body.pulled()).toBe(0);
      expect((await response.text()).length).toBeLessThan(500);
    }
  });
});

describe("the body cap", () => {
  test("a 200 MB chunked body with well-formed headers gets 413 once the cap is passed, the rest unread", async () => {
    const headers = await signWebhook(secret, "wh-big", "{}");
    const body = countingBody(200 * MB);
    const response = await app.request(new Request(URL_, { method: "POST", headers: { ...headers }, body: body.stream, duplex: "half" } as RequestInit));
    expect(response.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(WEBHOOK_MAX_BODY_BYTES + 2 * 64 * 1024);
  });

  test("a declared content-length past the cap gets 413 before anything is read", async () => {
    const headers = await signWebhook(secret, "wh-declared", "{}");
    const body = countingBody(10 * MB);
    const response = await app.request(
      new Request(URL_, {
        method: "POST",
        headers: { ...headers, "content-length": String(10 * MB) },
        body: body.stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(body.pulled()).toBe(0);
  });
});

describe("signed but malformed", () => {
  test("malformed JSON is a 400 with a clear message, not a 500", async () => {
    const response = await signedPost('{"kind": "render.completed", ');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("the body is not valid JSON");
  });

  test("a NUL character in a string is a 400 and reaches no table", async () => {
    const { unitId, msgId } = await unitAtRender();
    const body = JSON.stringify({
      kind: "render.failed",
      msg_id: msgId,
      unit_id: unitId,
      worker_id: "w",
      error: { message: "ffmpeg\u0000crashed", retriable: true },
    });
    const response = await signedPost(body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("NUL");
    expect(await stageAndQueue(unitId, msgId)).toEqual({ stage: "render", video: null, queued: true });
  });

  test("a failure message that is not one plain line (a bidi control, a line break) is a 400 and reaches no table", async () => {
    const { unitId, msgId } = await unitAtRender();
    for (const message of ["ffmpeg \u202eexited 1", "ffmpeg exited 1\nmoov atom not found"]) {
      const body = JSON.stringify({ kind: "render.failed", msg_id: msgId, unit_id: unitId, worker_id: "w", error: { message, retriable: true } });
      const response = await signedPost(body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain("error");
    }
    expect(await stageAndQueue(unitId, msgId)).toEqual({ stage: "render", video: null, queued: true });
  });

  test("a video key the render-runner never produces is refused and the unit stays at render", async () => {
    const { unitId, msgId } = await unitAtRender();
    for (const videoKey of ["../../../../etc/passwd", "renders/../../secrets.json", "scenes/" + "a".repeat(64) + ".mp4", "/renders/x.mp4"]) {
      const response = await signedPost(JSON.stringify(renderCompleted(msgId, unitId, { video_key: videoKey })));
      expect(response.status).toBe(400);
    }
    expect(await stageAndQueue(unitId, msgId)).toEqual({ stage: "render", video: null, queued: true });
  });

  test("oversized strings and unknown keys are refused without echoing them back", async () => {
    const { unitId, msgId } = await unitAtRender();
    const huge = "Z".repeat(100_000);
    for (
      const body of [
        renderCompleted(msgId, unitId, { worker_id: huge }),
        { ...renderCompleted(msgId, unitId), [huge]: 1 },
        { kind: "render.failed", msg_id: msgId, unit_id: unitId, worker_id: "w", error: { message: huge, retriable: false } },
      ]
    ) {
      const response = await signedPost(JSON.stringify(body));
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text.length).toBeLessThan(4000);
      expect(text).not.toContain("Z".repeat(300));
    }
    expect(logLines.some((line) => line.includes("Z".repeat(300)))).toBe(false);
    expect(await stageAndQueue(unitId, msgId)).toEqual({ stage: "render", video: null, queued: true });
  });
});

describe("signed and well-formed", () => {
  test("a callback naming another unit's message is refused (409) and that message stays queued", async () => {
    const mine = await unitAtRender();
    const other = await unitAtRender();
    const response = await signedPost(JSON.stringify(renderCompleted(other.msgId, mine.unitId)));
    expect(response.status).toBe(409);
    expect(await stageAndQueue(mine.unitId, mine.msgId)).toEqual({ stage: "render", video: null, queued: true });
    expect(await stageAndQueue(other.unitId, other.msgId)).toEqual({ stage: "render", video: null, queued: true });
  });

  test("the worker's own completion moves the unit to publish; its replay changes nothing", async () => {
    const { unitId, msgId } = await unitAtRender();
    const body = JSON.stringify(renderCompleted(msgId, unitId));
    const first = await signedPost(body, "wh-own-render");
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, unit_stage: "publish" });
    const state = await stageAndQueue(unitId, msgId);
    expect(state).toMatchObject({ stage: "publish", queued: false });
    const replay = await signedPost(body, "wh-own-render");
    expect(replay.status).toBe(200);
    expect(await stageAndQueue(unitId, msgId)).toEqual(state);
  });
});
