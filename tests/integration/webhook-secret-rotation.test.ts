/**
 * Rotating the worker-callback secret without an outage, through the real worker-callback app and
 * Postgres: while the callback holds the new secret and the old one, a worker still signing with
 * the old one completes its render as one on the new secret does; once the old secret is removed,
 * its deliveries are refused (401, named) and change nothing, and the replay rule still holds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWorkerCallbackApp } from "../../functions/worker-callback/app.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { generateWebhookSecret, signWebhook, webhookSecrets } from "../../shared/webhooks/standard-webhooks.ts";
import * as db from "../../stack/db.ts";

const URL_ = "http://edge.test/worker-callback";
const oldSecret = generateWebhookSecret();
const newSecret = generateWebhookSecret();
let sql: Sql;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(LOCAL_DB_URL, { max: 2, application: "webhook-rotation-test" });
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

/** The callback app as deployed with these secrets in WEBHOOK_SECRET / WEBHOOK_SECRETS_PREVIOUS. */
function callbackApp(env: { WEBHOOK_SECRET: string; WEBHOOK_SECRETS_PREVIOUS?: string }) {
  return createWorkerCallbackApp({ sql, logger: createLogger("worker-callback", { write: () => {} }, "fatal"), webhookSecrets: webhookSecrets(env) });
}

/** A running run with one unit at render and its render job queued. */
async function unitAtRender(): Promise<{ unitId: string; msgId: number }> {
  const [run] = await sql`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`rotation-test-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  const [unit] = await sql`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${run.id}, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "t"}', 'render',
            '{"title": "A title", "narration": "words", "description": "d", "hashtags": ["#t"]}') returning id`;
  const [sent] = await sql`select pgmq.send('render', ${sql.json({ run_id: run.id, unit_id: unit.id })}) as msg_id`;
  return { unitId: unit.id, msgId: Number(sent.msg_id) };
}

function renderCompleted(msgId: number, unitId: string): string {
  return JSON.stringify({
    kind: "render.completed",
    msg_id: msgId,
    unit_id: unitId,
    video_key: `renders/${"b".repeat(64)}.mp4`,
    duration_s: 41.2,
    width: 1080,
    height: 1920,
    size_bytes: 1234567,
    render_ms: 9000,
    worker_id: "render-runner-rotation",
    quality: { passed: true, integrated_lufs: -14.1, true_peak_dbtp: -1.6, duration_s: 41.2, checks: [], failures: [] },
  });
}

async function deliver(app: ReturnType<typeof callbackApp>, secret: string, body: string, id = `wh-${crypto.randomUUID()}`) {
  const headers = await signWebhook(secret, id, body);
  const response = await app.request(URL_, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

const stageOf = async (unitId: string) => (await sql`select stage from mdame.work_units where id = ${unitId}`)[0]!.stage as string;

describe("webhook secret rotation", () => {
  test("during the overlap, workers on the old and on the new secret both complete their renders", async () => {
    const overlap = callbackApp({ WEBHOOK_SECRET: newSecret, WEBHOOK_SECRETS_PREVIOUS: oldSecret });
    const onOld = await unitAtRender();
    const onNew = await unitAtRender();
    expect(await deliver(overlap, oldSecret, renderCompleted(onOld.msgId, onOld.unitId))).toEqual({ status: 200, body: { ok: true, unit_stage: "publish" } });
    expect(await deliver(overlap, newSecret, renderCompleted(onNew.msgId, onNew.unitId))).toEqual({ status: 200, body: { ok: true, unit_stage: "publish" } });
    expect(await stageOf(onOld.unitId)).toBe("publish");
    expect(await stageOf(onNew.unitId)).toBe("publish");
  });

  test("once the old secret is removed, its deliveries are refused with 401 and change nothing; the new secret's pass", async () => {
    const after = callbackApp({ WEBHOOK_SECRET: newSecret });
    const late = await unitAtRender();
    const refused = await deliver(after, oldSecret, renderCompleted(late.msgId, late.unitId));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toContain("webhook refused: no matching signature for the accepted secret");
    expect(await stageOf(late.unitId)).toBe("render");
    const [queued] = await sql`select count(*)::int as n from pgmq.q_render where msg_id = ${late.msgId}`;
    expect(queued!.n).toBe(1);
    // The worker, given the new secret, delivers the same event again and it lands.
    expect((await deliver(after, newSecret, renderCompleted(late.msgId, late.unitId))).status).toBe(200);
    expect(await stageOf(late.unitId)).toBe("publish");
  });

  test("the replay and tolerance rules hold with several secrets", async () => {
    const overlap = callbackApp({ WEBHOOK_SECRET: newSecret, WEBHOOK_SECRETS_PREVIOUS: oldSecret });
    const unit = await unitAtRender();
    const body = renderCompleted(unit.msgId, unit.unitId);
    const id = `wh-replay-${crypto.randomUUID()}`;
    expect((await deliver(overlap, oldSecret, body, id)).status).toBe(200);
    // The same delivery again, under the other secret: recorded once, nothing changes.
    expect(await deliver(overlap, newSecret, body, id)).toEqual({ status: 200, body: { ok: true, unit_stage: "publish" } });
    const [receipts] = await sql`select count(*)::int as n from mdame.webhook_receipts where webhook_id = ${id}`;
    expect(receipts!.n).toBe(1);
    const stale = await signWebhook(oldSecret, `wh-${crypto.randomUUID()}`, body, Math.floor(Date.now() / 1000) - 3600);
    const response = await overlap.request(URL_, { method: "POST", headers: { "content-type": "application/json", ...stale }, body });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toContain("tolerance");
  });
});
