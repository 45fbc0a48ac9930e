/**
 * A render.completed callback with a music bed, through the real worker-callback app and Postgres:
 * the track and its licence land on the unit's video and in its video_music column; a callback
 * without one (as from a runner that predates beds) records none; a bed without its licence, or a
 * track outside the library the run's dimension names, is refused before anything is stored.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createWorkerCallbackApp } from "../../functions/worker-callback/app.ts";
import * as db from "../../stack/db.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { generateWebhookSecret, signWebhook } from "../../shared/webhooks/standard-webhooks.ts";

const secret = generateWebhookSecret();
let sql: Sql;
let app: ReturnType<typeof createWorkerCallbackApp>;

const TRACK = {
  track_key: "music/calm/calm-a-minor.m4a",
  license_key: "music/calm/calm-a-minor.license.json",
  title: "Calm in A minor",
  author: "MD-AME test track generator (scripts/music/generate-test-tracks.ts)",
  license: "Generated for tests by FFmpeg aevalsrc; no third-party material; CC0-1.0",
  source_url: "https://music-test.invalid/generated/calm-a-minor",
};

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(LOCAL_DB_URL, { max: 2, application: "worker-callback-music-test" });
  app = createWorkerCallbackApp({ sql, logger: createLogger("worker-callback", { write: () => {} }), webhookSecrets: [secret] });
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

async function unitAtRender(): Promise<{ unitId: string; msgId: number }> {
  const [run] = await sql`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`music-callback-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  const [unit] = await sql`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${run.id}, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "t"}', 'render',
            '{"title": "A title", "narration": "words", "description": "d", "hashtags": ["#t"]}') returning id`;
  await sql`
    insert into mdame.run_dimensions (run_id, dimension_id, status, config)
    values (${run.id}, 'tech-explained', 'ingested', ${sql.json({ music: { library: "music/calm" } })})`;
  const [sent] = await sql`select pgmq.send('render', ${sql.json({ run_id: run.id, unit_id: unit.id })}) as msg_id`;
  return { unitId: unit.id, msgId: Number(sent.msg_id) };
}

async function post(msgId: number, unitId: string, extra: Record<string, unknown>): Promise<Response> {
  const body = JSON.stringify({
    kind: "render.completed",
    msg_id: msgId,
    unit_id: unitId,
    video_key: `renders/${"b".repeat(64)}.mp4`,
    duration_s: 41.2,
    width: 1080,
    height: 1920,
    size_bytes: 1234567,
    render_ms: 9000,
    worker_id: "render-runner-test",
    quality: { passed: true, integrated_lufs: -14.1, true_peak_dbtp: -1.6, duration_s: 41.2, checks: [], failures: [] },
    ...extra,
  });
  const headers = await signWebhook(secret, `wh-${crypto.randomUUID()}`, body);
  return await app.request("http://edge.test/worker-callback", { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

test("the bed's track and licence are stored with the video", async () => {
  const { unitId, msgId } = await unitAtRender();
  const response = await post(msgId, unitId, { music: TRACK });
  expect(response.status).toBe(200);
  const [unit] = await sql`select stage, video, video_music from mdame.work_units where id = ${unitId}`;
  expect(unit.stage).toBe("publish");
  expect(unit.video.music).toEqual(TRACK);
  expect(unit.video_music).toEqual(TRACK);
});

test("a callback without music (or with null) records none", async () => {
  for (const extra of [{}, { music: null }]) {
    const { unitId, msgId } = await unitAtRender();
    expect((await post(msgId, unitId, extra)).status).toBe(200);
    const [unit] = await sql`select stage, video_music, video ? 'music' as has_music from mdame.work_units where id = ${unitId}`;
    expect(unit.stage).toBe("publish");
    expect(unit.video_music).toBeNull();
    expect(unit.has_music).toBe(false);
  }
});

test("a bed reported without its licence is refused with 400 and nothing is stored", async () => {
  const { unitId, msgId } = await unitAtRender();
  const { license: _license, ...unlicensed } = TRACK;
  const response = await post(msgId, unitId, { music: unlicensed });
  expect(response.status).toBe(400);
  const [unit] = await sql`select stage, video from mdame.work_units where id = ${unitId}`;
  expect(unit.stage).toBe("render");
  expect(unit.video).toBeNull();
});

test("a track outside the dimension's music library is refused with 409 and nothing is stored", async () => {
  for (const trackKey of ["music/loud/anthem.m4a", "music/calmer/dawn.m4a", "renders/other.m4a"]) {
    const { unitId, msgId } = await unitAtRender();
    const stem = trackKey.slice(0, trackKey.lastIndexOf("."));
    const response = await post(msgId, unitId, { music: { ...TRACK, track_key: trackKey, license_key: `${stem}.license.json` } });
    expect({ trackKey, status: response.status }).toEqual({ trackKey, status: 409 });
    expect(((await response.json()) as { error: string }).error).toContain("music/calm");
    const [unit] = await sql`select stage, video from mdame.work_units where id = ${unitId}`;
    expect(unit.stage).toBe("render");
    expect(unit.video).toBeNull();
  }
});
