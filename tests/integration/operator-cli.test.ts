/**
 * The operator CLI end to end against the real Postgres: the pipeline app served in-process on a
 * free port, `mdame` spawned as a real process talking to it over HTTP, and the database and the
 * asset store checked afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let deps: PipelineDeps;
let app: ReturnType<typeof createPipelineApp>;
let server: ReturnType<typeof Bun.serve>;
let baseUrl: string;
let serviceRoleKey: string;
let storageDir: string;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  storageDir = await mkdtemp(join(tmpdir(), "mdame-cli-storage-"));
  // The app answers under /functions/v1/<function>, as the edge host and Supabase route it.
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/functions/v1/")) return new Response("not found", { status: 404 });
      url.pathname = url.pathname.slice("/functions/v1".length);
      return app.fetch(new Request(url.href, request));
    },
  });
  baseUrl = `http://127.0.0.1:${server.port}/functions/v1`;
  const env: Record<string, string> = {
    ...localStackEnv(),
    FUNCTIONS_URL: baseUrl,
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storageDir,
    LOG_LEVEL: "warn",
  };
  serviceRoleKey = env.SERVICE_ROLE_KEY;
  deps = createPipelineDeps(env);
  app = createPipelineApp(deps);
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await deps?.sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  await rm(storageDir, { recursive: true, force: true });
}, 60_000);

/** Runs `bun cli/mdame.ts ...` as its own process against the in-process API. */
async function mdame(args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), ...args], {
    cwd: paths.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: baseUrl, SERVICE_ROLE_KEY: serviceRoleKey, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

async function putAsset(key: string, content: string) {
  const path = join(storageDir, key);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

const assetExists = (key: string) => deps.store.exists(key);

let runId: string;
let unitId: string;
let deadLetterId: number;

describe("mdame against the pipeline API", () => {
  test("run creates today's run, then reports the same run again", async () => {
    const first = await mdame(["run"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const created = /^run (\S+) created\n$/.exec(first.stdout);
    expect(created).not.toBeNull();
    runId = created![1]!;
    expect(runId).toMatch(UUID);

    const again = await mdame(["run"]);
    expect(again).toMatchObject({ code: 0, stdout: `run ${runId} already exists (running)\n` });
    const runs = await admin`select id from mdame.pipeline_runs`;
    expect(runs.map((r) => r.id)).toEqual([runId]);
  }, 30_000);

  test("another key for the dimensions this run is running today finds this run (exit 0)", async () => {
    const other = await mdame(["run", "--key", "operator-cli-other-run"]);
    expect(other).toMatchObject({ code: 0, stdout: `run ${runId} already exists (running)\n` });
    expect((await admin`select id from mdame.pipeline_runs`).map((r) => r.id)).toEqual([runId]);
  }, 30_000);

  test("status shows the most recent run by dimension, as JSON or as text", async () => {
    const dimensions = (await admin`select id from mdame.dimensions where active order by id`).map((d) => d.id as string);
    expect(dimensions.length).toBeGreaterThan(0);

    const json = await mdame(["status", "--json"]);
    expect(json.code).toBe(0);
    const status = JSON.parse(json.stdout) as { run: { id: string; status: string }; dimensions: { dimension_id: string }[] };
    expect(status.run).toMatchObject({ id: runId, status: "running" });
    expect(status.dimensions.map((d) => d.dimension_id)).toEqual(dimensions);

    const text = await mdame(["status", runId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toStartWith(`run ${runId}  running\n`);
    for (const dimension of dimensions) expect(text.stdout).toMatch(new RegExp(`^${dimension}\\s+ingesting`, "m"));

    const list = await mdame(["status", "--list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${runId}\\s+running\\s+manual`, "m"));
  }, 30_000);

  test("dlq list shows a dead letter; dlq retry puts its unit back and queues a new message, once", async () => {
    [{ id: unitId }] = await admin`
      insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, error)
      values (${runId}, 'tech-explained', 'cli-unit', 'cli-unit-fp', '{"title": "Why the sky is blue"}', 'failed',
              'script: the LLM answered 503 three times')
      returning id`;
    const payload = { stage: "script", run_id: runId, unit_id: unitId, step_token: `step:${unitId}:1:${"a".repeat(64)}` };
    [{ id: deadLetterId }] = (await admin`
      insert into mdame.dead_letters (queue_name, msg_id, read_ct, payload, last_error, unit_id)
      values ('stage_tasks', 424242, 3, ${admin.json(payload)}, ${"the LLM answered 503: " + "service unavailable ".repeat(20)}, ${unitId})
      returning id::int as id`) as unknown as { id: number }[];

    const listed = await mdame(["dlq", "list", "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({
      id: deadLetterId,
      queue_name: "stage_tasks",
      msg_id: 424242,
      read_ct: 3,
      unit_id: unitId,
      payload,
      retried_msg_id: null,
    })]);

    const table = await mdame(["dlq", "list"]);
    expect(table.code).toBe(0);
    const [header, row, ...rest] = table.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^id\s+queue\s+unit\s+attempts\s+age\s+retried\s+last error$/);
    expect(row).toMatch(
      new RegExp(`^${deadLetterId}\\s+stage_tasks\\s+${unitId.slice(0, 8)}\\s+3\\s+\\d+s\\s+-\\s+the LLM answered 503: service unavailable.*…$`),
    );
    expect(rest).toEqual([]);

    const retried = await mdame(["dlq", "retry", String(deadLetterId)]);
    expect(retried.stderr).toBe("");
    expect(retried.code).toBe(0);
    const msgId = Number(/message (\d+) queued on stage_tasks/.exec(retried.stdout)?.[1]);
    expect(msgId).toBeGreaterThan(0);

    const [unit] = await admin`select stage, error from mdame.work_units where id = ${unitId}`;
    expect(unit).toEqual({ stage: "script", error: null });
    const [queued] = await admin`select msg_id::int as msg_id, message from pgmq.q_stage_tasks where message->>'unit_id' = ${unitId}`;
    expect(queued).toEqual({ msg_id: msgId, message: payload });
    const [dead] = await admin`select retried_msg_id::int as retried from mdame.dead_letters where id = ${deadLetterId}`;
    expect(dead.retried).toBe(msgId);

    const twice = await mdame(["dlq", "retry", String(deadLetterId)]);
    expect(twice.code).toBe(5);
    expect(twice.stderr).toContain("already retried");
    expect((await admin`select count(*)::int as n from pgmq.q_stage_tasks where message->>'unit_id' = ${unitId}`)[0].n).toBe(1);

    const unknown = await mdame(["dlq", "retry", "987654"]);
    expect(unknown).toMatchObject({ code: 4, stderr: "mdame: no dead letter 987654\n" });
  }, 60_000);

  test("run abort rolls the run back and deletes only the assets of its unpublished units", async () => {
    const unpublished = `voice/${"1".repeat(64)}`;
    const published = `voice/${"2".repeat(64)}`;
    const publishedVideo = `renders/${"3".repeat(64)}.mp4`;
    await admin`update mdame.work_units set voice = ${admin.json({ audio_key: `${unpublished}.mp3` })} where id = ${unitId}`;
    await admin`
      insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, voice, video)
      values (${runId}, 'tech-explained', 'cli-published-unit', 'cli-published-fp', '{"title": "Already out"}', 'published',
              ${admin.json({ audio_key: `${published}.mp3` })}, ${admin.json({ video_key: publishedVideo, duration_s: 40 })})`;
    for (const key of [`${unpublished}.mp3`, `${unpublished}.json`, `${published}.mp3`, `${published}.json`, publishedVideo]) await putAsset(key, key);

    const aborted = await mdame(["run", "abort", runId, "--reason", "operator test"]);
    expect(aborted.stderr).toBe("");
    expect(aborted.code).toBe(0);
    expect(aborted.stdout).toBe(`run ${runId} rolled_back\n  1 unit(s) cancelled, 2 asset(s) released, 2 deleted from storage\n`);

    const [run] = await admin`select status, error from mdame.pipeline_runs where id = ${runId}`;
    expect(run.status).toBe("rolled_back");
    expect(run.error).toContain("operator test");
    const units = await admin`select unit_key, stage from mdame.work_units where run_id = ${runId} order by unit_key`;
    expect([...units]).toEqual([{ unit_key: "cli-published-unit", stage: "published" }, { unit_key: "cli-unit", stage: "failed" }]);
    expect((await admin`select count(*)::int as n from pgmq.q_stage_tasks where message->>'run_id' = ${runId}`)[0].n).toBe(0);
    expect((await admin`select count(*)::int as n from mdame.system_locks`)[0].n).toBe(0);

    expect(await assetExists(`${unpublished}.mp3`)).toBe(false);
    expect(await assetExists(`${unpublished}.json`)).toBe(false);
    for (const key of [`${published}.mp3`, `${published}.json`, publishedVideo]) expect(await assetExists(key)).toBe(true);

    // Aborting again changes nothing and still succeeds.
    const again = await mdame(["run", "abort", runId, "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ run: { id: runId, status: "rolled_back" }, cancelled_units: 0, released_assets: [], removed_assets: 0 });
    expect(await assetExists(publishedVideo)).toBe(true);
  }, 60_000);

  test("run --wait on a run that has ended exits 1 for rolled_back and 0 for completed, in plain lines off a terminal", async () => {
    const rolledBack = await mdame(["run", "--wait"]);
    expect(rolledBack.code).toBe(1);
    expect(rolledBack.stdout).not.toContain("\x1b[");
    expect(rolledBack.stdout).toContain(`run ${runId} rolled_back: aborted: operator test`);

    await admin`
      insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, status, finished_at)
      values ('cli-completed-run', 'dev', current_date, 'manual', 'completed', now())`;
    const completed = await mdame(["run", "--key", "cli-completed-run", "--wait"]);
    expect(completed.code).toBe(0);
    expect(completed.stdout).toMatch(/already exists \(completed\)/);
    expect(completed.stdout).toMatch(/\n\[\s*\d+s\] run \S+ completed\n/);
  }, 60_000);

  test("errors end with their documented exit codes", async () => {
    const refused = await mdame(["status", "--list"], { SERVICE_ROLE_KEY: "not-the-key" });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("the service-role key was refused");

    const ghost = "00000000-0000-4000-8000-000000000000";
    expect(await mdame(["status", ghost])).toMatchObject({ code: 4, stderr: `mdame: no run ${ghost}\n` });
    expect(await mdame(["run", "abort", ghost])).toMatchObject({ code: 4, stderr: `mdame: no run ${ghost}\n` });
    expect((await mdame(["run", "--dimension", "no-such-dimension"])).code).toBe(4);

    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const deadUrl = `http://127.0.0.1:${closed.port}/functions/v1`;
    closed.stop(true);
    const unreachable = await mdame(["dlq", "list"], { FUNCTIONS_URL: deadUrl });
    expect(unreachable.code).toBe(6);
    expect(unreachable.stderr).toStartWith(`mdame: cannot reach ${deadUrl}: `);

    const usage = await mdame(["dlq", "purge"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("usage:");
  }, 60_000);

  test("the operator routes need the service-role key and validate their input", async () => {
    const auth = { authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" };
    expect((await app.request("/pipeline/dead-letters")).status).toBe(401);
    expect((await app.request(`/pipeline/runs/${runId}/abort`, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await app.request("/pipeline/runs?limit=0", { headers: auth })).status).toBe(400);
    expect((await app.request("/pipeline/dead-letters?order=asc", { headers: auth })).status).toBe(400);
    expect((await app.request("/pipeline/dead-letters/abc/retry", { method: "POST", headers: auth })).status).toBe(400);
    const badBody = await app.request(`/pipeline/runs/${runId}/abort`, { method: "POST", headers: auth, body: JSON.stringify({ reason: "x", force: true }) });
    expect(badBody.status).toBe(400);
    expect((await app.request(`/pipeline/runs/${runId}/abort`, { method: "POST", headers: auth, body: "{not json" })).status).toBe(400);
    const runs = await (await app.request("/pipeline/runs?limit=1", { headers: auth })).json() as { runs: { id: string }[] };
    expect(runs.runs.length).toBe(1);
  });
});
