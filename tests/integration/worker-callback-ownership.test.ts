/**
 * Whose job a worker callback may act on, through the worker-callback function with the real
 * Postgres behind it and the engine role the function connects as: a signed callback that names one
 * scene (or unit) but carries the pgmq message of another is refused with 409 and a message naming
 * both, and the other job is left exactly as it was (not rescheduled, not dead-lettered, its unit
 * not failed). A callback carrying its own message goes through.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWorkerCallbackApp } from "../../functions/worker-callback/app.ts";
import * as db from "../../stack/db.ts";
import { loadOrCreateSecrets } from "../../stack/stack-env.ts";
import { LOCAL_DB_URL, localEngineDbUrl } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { generateWebhookSecret, signWebhook } from "../../shared/webhooks/standard-webhooks.ts";

const URL_ = "http://edge.test/worker-callback";
const secret = generateWebhookSecret();
/** The tests' fixtures, as the superuser. */
let admin: Sql;
/** What the function connects as, as deployed. */
let engine: Sql;
let app: ReturnType<typeof createWorkerCallbackApp>;
/** What the function logged, line by line. */
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  admin = createSql(LOCAL_DB_URL, { max: 2, application: "worker-callback-ownership-fixtures" });
  engine = createSql(localEngineDbUrl(loadOrCreateSecrets().ENGINE_DB_PASSWORD), { max: 2, application: "worker-callback-ownership" });
  const write = (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>);
  app = createWorkerCallbackApp({ sql: engine, logger: createLogger("worker-callback", { write }, "info"), webhookSecrets: [secret] });
}, 60_000);

afterAll(async () => {
  await engine?.end({ timeout: 2 });
  await admin?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

interface QueuedScene {
  sceneId: string;
  sceneHash: string;
  msgId: number;
}

/** A running run with one unit at media and `count` queued scenes, each with its job as record_scene_plan sends it. */
async function unitWithScenes(count: number): Promise<{ unitId: string; runId: string; scenes: QueuedScene[] }> {
  const [run] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`ownership-test-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  await admin`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run.id}, 'tech-explained', 'ingested')`;
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage)
    values (${run.id}, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "t"}', 'media') returning id`;
  const scenes: QueuedScene[] = [];
  for (let index = 0; index < count; index++) {
    const [scene] = await admin`
      insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status)
      values (${unit.id}, ${index}, ${`prompt ${index}`}, ${`words ${index}`}, ${index}, 3, encode(sha256(convert_to(${`${unit.id}:${index}`}, 'UTF8')), 'hex'), 'queued')
      returning id, scene_hash`;
    const [sent] = await admin`
      select pgmq.send('visual_generation', jsonb_build_object(
        'run_id', ${run.id}::uuid, 'unit_id', ${unit.id}::uuid, 'scene_id', ${scene.id}::uuid, 'scene_index', ${index}::integer,
        'scene_hash', ${scene.scene_hash}::text, 'dimension_id', 'tech-explained', 'prompt', ${`prompt ${index}`}::text,
        'duration_s', 3, 'width', 1080, 'height', 1920, 'fps', 30)) as msg_id`;
    // The scene keeps its job, as record_scene_plan stores it.
    await admin`update mdame.scenes set msg_id = ${sent.msg_id}, job = (select message from pgmq.q_visual_generation where msg_id = ${sent.msg_id}) where id = ${scene.id}`;
    scenes.push({ sceneId: scene.id, sceneHash: scene.scene_hash, msgId: Number(sent.msg_id) });
  }
  return { unitId: unit.id, runId: run.id, scenes };
}

/** A running run with one unit at render and its render job queued, as mdame.render_job builds it. */
async function unitAtRender(): Promise<{ unitId: string; msgId: number }> {
  const [run] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`ownership-test-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  await admin`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run.id}, 'tech-explained', 'ingested')`;
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${run.id}, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "t"}', 'render',
            '{"title": "A title", "narration": "words", "description": "d", "hashtags": ["#t"]}') returning id`;
  const [sent] = await admin`select pgmq.send('render', mdame.render_job(${unit.id}::uuid)) as msg_id`;
  return { unitId: unit.id, msgId: Number(sent.msg_id) };
}

async function signedPost(body: unknown, id = `wh-${crypto.randomUUID()}`): Promise<Response> {
  const text = JSON.stringify(body);
  const headers = await signWebhook(secret, id, text);
  return await app.request(URL_, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: text });
}

/** Everything a callback could have changed about a job and its unit. */
async function jobState(queue: "visual_generation" | "render", msgId: number, unitId: string) {
  const [job] = await admin.unsafe(`select read_ct, vt from pgmq.q_${queue} where msg_id = $1`, [msgId]);
  const [unit] = await admin`select stage, error, stage_attempts from mdame.work_units where id = ${unitId}`;
  const [dead] = await admin`select count(*)::int as n from mdame.dead_letters where queue_name = ${queue} and msg_id = ${msgId}`;
  const [events] =
    await admin`select count(*)::int as n from mdame.events where unit_id = ${unitId} and kind in ('retry_scheduled', 'dead_lettered', 'scene_ready')`;
  const scenes = await admin`select id, status from mdame.scenes where unit_id = ${unitId} order by scene_index`;
  return { job: job ? { read_ct: job.read_ct, vt: (job.vt as Date).toISOString() } : null, unit, deadLetters: dead.n, events: events.n, scenes };
}

async function receipts(ids: string[]): Promise<number> {
  const [row] = await admin`select count(*)::int as n from mdame.webhook_receipts where webhook_id = any(${ids})`;
  return row.n;
}

const failure = (retriable: boolean) => ({ message: "gpu lost", retriable });

describe("a failure callback acts on its own scene's job only", () => {
  test("naming scene 0 with scene 1's message is a 409 naming both scenes, and scene 1's job is not rescheduled", async () => {
    const { unitId, scenes: [a1, a2] } = await unitWithScenes(2);
    const before = await jobState("visual_generation", a2!.msgId, unitId);
    const response = await signedPost(
      { kind: "visual_generation.failed", msg_id: a2!.msgId, scene_id: a1!.sceneId, worker_id: "gpu-worker-test", error: failure(true) },
      "wh-retry-other",
    );
    expect(response.status).toBe(409);
    const { error } = (await response.json()) as { error: string };
    expect(error).toBe(
      `visual_generation message ${a2!.msgId} is the job of scene ${a2!.sceneId} (index 1) of unit ${unitId}, not of scene ${a1!.sceneId} (index 0)`,
    );
    expect(await jobState("visual_generation", a2!.msgId, unitId)).toEqual(before);
    expect(await receipts(["wh-retry-other"])).toBe(0);
  });

  test("a final failure naming another scene's message dead-letters nothing and fails no unit", async () => {
    const { unitId, scenes: [a1, a2] } = await unitWithScenes(2);
    const before = await jobState("visual_generation", a2!.msgId, unitId);
    const response = await signedPost(
      { kind: "visual_generation.failed", msg_id: a2!.msgId, scene_id: a1!.sceneId, worker_id: "gpu-worker-test", error: failure(false) },
    );
    expect(response.status).toBe(409);
    const after = await jobState("visual_generation", a2!.msgId, unitId);
    expect(after).toEqual(before);
    expect(after.unit).toMatchObject({ stage: "media", error: null });
    expect(after.deadLetters).toBe(0);
  });

  test("a failure naming a scene of another unit with that unit's message is a 409 too", async () => {
    const mine = await unitWithScenes(1);
    const other = await unitWithScenes(1);
    const before = await jobState("visual_generation", other.scenes[0]!.msgId, other.unitId);
    const response = await signedPost(
      {
        kind: "visual_generation.failed",
        msg_id: other.scenes[0]!.msgId,
        scene_id: mine.scenes[0]!.sceneId,
        worker_id: "gpu-worker-test",
        error: failure(false),
      },
    );
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toContain(`is the job of unit ${other.unitId}`);
    expect(await jobState("visual_generation", other.scenes[0]!.msgId, other.unitId)).toEqual(before);
  });

  test("a failure of an unknown scene is a 404 naming the field", async () => {
    const { scenes: [a1] } = await unitWithScenes(1);
    const unknown = crypto.randomUUID();
    const response = await signedPost({
      kind: "visual_generation.failed",
      msg_id: a1!.msgId,
      scene_id: unknown,
      worker_id: "gpu-worker-test",
      error: failure(true),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toBe(`scene_id ${unknown} names no scene`);
  });

  test("the scene's own failure is retried, then dead-lettered, failing its unit", async () => {
    const { unitId, scenes: [, a2] } = await unitWithScenes(2);
    const retried = await signedPost({
      kind: "visual_generation.failed",
      msg_id: a2!.msgId,
      scene_id: a2!.sceneId,
      worker_id: "gpu-worker-test",
      error: failure(true),
    });
    expect(retried.status).toBe(200);
    expect(await retried.json()).toEqual({ ok: true, outcome: "retry" });
    const final = await signedPost({
      kind: "visual_generation.failed",
      msg_id: a2!.msgId,
      scene_id: a2!.sceneId,
      worker_id: "gpu-worker-test",
      error: failure(false),
    });
    expect(await final.json()).toEqual({ ok: true, outcome: "dead_letter" });
    const after = await jobState("visual_generation", a2!.msgId, unitId);
    expect(after.deadLetters).toBe(1);
    expect(after.unit!.stage).toBe("failed");
  });
});

describe("completions hold the same rule", () => {
  test("completing scene 0 with scene 1's message is a 409 and completes neither scene", async () => {
    const { unitId, scenes: [a1, a2] } = await unitWithScenes(2);
    const before = await jobState("visual_generation", a2!.msgId, unitId);
    const response = await signedPost({
      kind: "visual_generation.completed",
      msg_id: a2!.msgId,
      scene_id: a1!.sceneId,
      scene_hash: a1!.sceneHash,
      asset_key: `scenes/${a1!.sceneHash}.mp4`,
      backend: "procedural-ffmpeg/1",
      cache_hit: false,
      worker_id: "gpu-worker-test",
    });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toContain(`not of scene ${a1!.sceneId}`);
    expect(await jobState("visual_generation", a2!.msgId, unitId)).toEqual(before);
  });

  test("a render failure naming another unit's render job is a 409 and that job is not rescheduled", async () => {
    const mine = await unitAtRender();
    const other = await unitAtRender();
    const before = await jobState("render", other.msgId, other.unitId);
    const response = await signedPost({
      kind: "render.failed",
      msg_id: other.msgId,
      unit_id: mine.unitId,
      worker_id: "render-runner-test",
      error: failure(true),
    });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toContain(`render message ${other.msgId} is the job of unit ${other.unitId}`);
    expect(await jobState("render", other.msgId, other.unitId)).toEqual(before);
    expect(await jobState("render", mine.msgId, mine.unitId)).toMatchObject({ unit: { stage: "render" }, deadLetters: 0 });
  });
});

describe("the callback's log lines", () => {
  /** The line logged as `msg` since `from`. */
  const logged = (msg: string, from: number) => logLines.slice(from).find((line) => line.msg === msg);

  test("carry the job's run, dimension, unit and stage, from what the completion RPCs answer", async () => {
    const { unitId, runId, scenes: [scene] } = await unitWithScenes(1);
    const at = logLines.length;
    const completed = await signedPost({
      kind: "visual_generation.completed",
      msg_id: scene!.msgId,
      scene_id: scene!.sceneId,
      scene_hash: scene!.sceneHash,
      asset_key: `scenes/${scene!.sceneHash}.mp4`,
      backend: "procedural-ffmpeg/1",
      cache_hit: false,
      worker_id: "gpu-worker-test",
    });
    expect(completed.status).toBe(200);
    const job = { execution_id: runId, dimension_id: "tech-explained", unit_id: unitId };
    expect(logged("scene completed", at)).toMatchObject({ ...job, stage: "visual_generation", scene_id: scene!.sceneId, status: "succeeded" });

    const render = await unitAtRender();
    const [unit] = await admin`select run_id from mdame.work_units where id = ${render.unitId}`;
    const failed = await signedPost({
      kind: "render.failed",
      msg_id: render.msgId,
      unit_id: render.unitId,
      worker_id: "render-runner-test",
      error: failure(true),
    });
    expect(failed.status).toBe(200);
    expect(logged("worker job failed", at)).toMatchObject({
      execution_id: unit!.run_id,
      dimension_id: "tech-explained",
      unit_id: render.unitId,
      stage: "render",
      outcome: "retry",
    });
  });
});
