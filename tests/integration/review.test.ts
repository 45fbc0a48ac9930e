/**
 * Review before publish against the real Postgres, the pipeline app and the YouTube emulator: a
 * unit whose render passed the gate waits at awaiting_review with nothing queued, uploaded or
 * reserved; an approval through the operator route publishes it exactly once, also when the publish
 * stage is killed (SIGKILL) after it stored the upload session and before any byte was sent; a
 * rejection (by the operator or by expiry) is never uploaded and closes the run; an expiry set to
 * publish publishes. The stage runs as its own process for the kill
 * (tests/integration/fixtures/publish-stage-process.ts), as tests/integration/publish-crash.test.ts does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { mp4 } from "./fixtures/meta-client.ts";
import {
  addYouTubeAccount,
  type PublishBench,
  publishStageProcess,
  runStages,
  startPublishBench,
  stopPublishBench,
  uploadedVideos,
} from "./fixtures/publish-stage.ts";

const admin = adminSql();
const MAX_PROCESSES = 6;

let bench: PublishBench;
let deps: PipelineDeps;
let env: Record<string, string>;
let app: ReturnType<typeof createPipelineApp>;
let videoSha: string;

beforeAll(async () => {
  const bytes = mp4({ durationS: 30, padBytes: 3 * 1024 * 1024, seed: "review" });
  videoSha = createHash("sha256").update(bytes).digest("hex");
  bench = await startPublishBench("review", bytes, { MDAME_UPLOAD_CHUNK_BYTES: String(1024 * 1024) });
  ({ deps, env } = bench);
  app = createPipelineApp(deps);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await bench.emulator.reset();
  await addYouTubeAccount(admin, {
    dimension: "tech-explained",
    handle: "@review-channel",
    project: "review.apps.googleusercontent.com",
    refreshToken: "emulator-refresh-review-channel",
    key: env.CREDENTIALS_KEY!,
  });
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

/**
 * A running run of tech-explained whose configuration requires review, with one unit whose render
 * passed the gate: its video stored and complete_render_job called, as the render's callback does.
 */
async function unitAwaitingReview(review: { expires_after?: string; on_expiry?: "reject" | "publish" } = {}) {
  const [run] = await admin<{ id: string }[]>`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${"it-" + crypto.randomUUID()}, 'dev', current_date, 'manual') returning id`;
  // The dimension's configuration as a run stores it, with review required.
  const settings = admin.json({ required: true, expires_after: "24h", on_expiry: "reject", ...review });
  await admin`insert into mdame.run_dimensions (run_id, dimension_id, status, config)
              select ${run!.id}, d.id, 'ingested', mdame.dimension_config(d) || jsonb_build_object('review', ${settings}::jsonb)
                from mdame.dimensions d where d.id = 'tech-explained'`;
  const [unit] = await admin<{ id: string }[]>`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${run!.id}, 'tech-explained', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${admin.json({ title: "A topic" })}, 'render',
            ${admin.json({ title: "A title for review", hook: "A hook", narration: "words here", description: "A description", hashtags: ["#shorts"] })})
    returning id`;
  const videoKey = `renders/${unit!.id}.mp4`;
  await deps.store.putFile(videoKey, bench.videoPath, "video/mp4");
  const [msg] = await admin<{ id: string }[]>`select pgmq.send('render', ${admin.json({ unit_id: unit!.id })}) as id`;
  const [done] = await admin<{ stage: string }[]>`
    select stage from mdame.complete_render_job(${msg!.id}::bigint, ${unit!.id}::uuid, ${admin.json({ video_key: videoKey, duration_s: 30 })},
                                                 ${"wh-" + unit!.id}, '{"passed": true}'::jsonb)`;
  expect(done!.stage).toBe("awaiting_review");
  return { runId: run!.id, unitId: unit!.id };
}

async function call(method: "GET" | "POST", path: string, body?: unknown) {
  const response = await app.request(`http://edge.test/pipeline${path}`, {
    method,
    headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() as Record<string, unknown> };
}

async function stateOf(unitId: string, runId: string) {
  const [row] = await admin<{ stage: string; run: string; publications: number; ledger: number; publish_tasks: number }[]>`
    select u.stage, r.status as run,
           (select count(*)::int from mdame.publications p where p.unit_id = u.id) as publications,
           (select count(*)::int from mdame.quota_ledger l where l.status <> 'released') as ledger,
           (select count(*)::int from pgmq.q_stage_tasks q where q.message->>'unit_id' = u.id::text and q.message->>'stage' = 'publish') as publish_tasks
      from mdame.work_units u join mdame.pipeline_runs r on r.id = u.run_id
     where u.id = ${unitId} and r.id = ${runId}`;
  return row!;
}

/** Runs the stage in its own process with `failpoint` armed until the unit is published; the processes' outcomes. */
async function publishWithKills(unitId: string, failpoint: string) {
  const failpointDir = await mkdtemp(join(bench.workDir, "failpoints-"));
  const runs: { killed: boolean; code: number | null }[] = [];
  for (let n = 0; n < MAX_PROCESSES; n++) {
    const run = await publishStageProcess(env, failpoint, failpointDir);
    runs.push({ killed: run.killed, code: run.code });
    if (!run.killed && run.code !== 0) throw new Error(`the stage process failed (${run.code}):\n${run.output}`);
    const [unit] = await admin<{ stage: string }[]>`select stage from mdame.work_units where id = ${unitId}`;
    if (unit!.stage === "published") break;
    // What the killed attempt's lease expiry would do, at once.
    await admin`select pgmq.set_vt('stage_tasks', msg_id, 0) from pgmq.q_stage_tasks where message->>'unit_id' = ${unitId}`;
  }
  return { runs, fired: existsSync(join(failpointDir, `${failpoint}.hit`)) };
}

describe("review before publish", () => {
  test("a unit awaiting review holds its run open, with nothing queued, reserved or uploaded, and is listed", async () => {
    const { runId, unitId } = await unitAwaitingReview();
    await runStages(deps);
    expect(await stateOf(unitId, runId)).toEqual({ stage: "awaiting_review", run: "running", publications: 0, ledger: 0, publish_tasks: 0 });
    expect(await uploadedVideos(bench.emulator.url)).toEqual([]);
    const list = await call("GET", "/reviews");
    expect(list.status).toBe(200);
    expect((list.json.reviews as { unit_id: string; title: string }[]).map((r) => [r.unit_id, r.title])).toEqual([[unitId, "A title for review"]]);
    const shown = await call("GET", `/reviews/${unitId}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({ stage: "awaiting_review", decision: null, video: { video_key: `renders/${unitId}.mp4` }, quality: { passed: true } });
  }, 60_000);

  test("approve, then kill -9 of the publish stage before the upload: published exactly once, with the edited title", async () => {
    const { runId, unitId } = await unitAwaitingReview();
    const approved = await call("POST", `/reviews/${unitId}/approve`, { title: "An edited title for review" });
    expect(approved.status).toBe(200);
    expect(approved.json.decision).toBe("approved");
    // A second approval (a retried request) changes nothing.
    expect((await call("POST", `/reviews/${unitId}/approve`, {})).json.decided_at).toBe(approved.json.decided_at);
    expect((await stateOf(unitId, runId)).publish_tasks).toBe(1);

    const { runs, fired } = await publishWithKills(unitId, "publish.after-session-stored");
    expect(fired).toBe(true);
    expect(runs[0]!.killed).toBe(true);
    const uploads = await (await fetch(`${bench.emulator.url}/_emulator/youtube/videos`)).json() as { id: string; sha256: string; title?: string }[];
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.sha256).toBe(videoSha);
    // The platform received the edited title.
    expect(uploads[0]!.title).toBe("An edited title for review");
    const [pub] = await admin<{ status: string; external_id: string }[]>`select status, external_id from mdame.publications where unit_id = ${unitId}`;
    expect(pub).toEqual({ status: "published", external_id: uploads[0]!.id });
    const [script] = await admin<{ title: string }[]>`select script->>'title' as title from mdame.work_units where id = ${unitId}`;
    expect(script!.title).toBe("An edited title for review");
    expect(await stateOf(unitId, runId)).toMatchObject({ stage: "published", run: "completed", publications: 1 });
  }, 180_000);

  test("a rejected unit is never uploaded, its reason is kept, and its run closes; approving it afterwards is refused", async () => {
    const { runId, unitId } = await unitAwaitingReview();
    const refused = await call("POST", `/reviews/${unitId}/reject`, { reason: "" });
    expect(refused.status).toBe(400);
    const rejected = await call("POST", `/reviews/${unitId}/reject`, { reason: "wrong facts" });
    expect(rejected.status).toBe(200);
    expect(rejected.json).toMatchObject({ decision: "rejected", decided_by: "operator", reason: "wrong facts" });
    await runStages(deps);
    expect(await stateOf(unitId, runId)).toEqual({ stage: "rejected", run: "completed", publications: 0, ledger: 0, publish_tasks: 0 });
    expect(await uploadedVideos(bench.emulator.url)).toEqual([]);
    expect((await call("POST", `/reviews/${unitId}/approve`, {})).status).toBe(409);
    expect((await call("GET", "/reviews")).json.reviews).toEqual([]);
  }, 60_000);

  test("expiry follows on_expiry: reject is never uploaded, publish is published once", async () => {
    const rejecting = await unitAwaitingReview({ on_expiry: "reject", expires_after: "1h" });
    const publishing = await unitAwaitingReview({ on_expiry: "publish", expires_after: "1h" });
    await admin`update mdame.unit_reviews set expires_at = now() - interval '1 minute'`;
    const [expired] = await admin<{ result: unknown }[]>`select mdame.expire_reviews() as result`;
    expect(expired!.result).toEqual({ published: 1, rejected: 1 });
    await runStages(deps);
    expect(await stateOf(rejecting.unitId, rejecting.runId)).toMatchObject({ stage: "rejected", publications: 0 });
    expect(await stateOf(publishing.unitId, publishing.runId)).toMatchObject({ stage: "published", run: "completed", publications: 1 });
    expect(await uploadedVideos(bench.emulator.url)).toHaveLength(1);
  }, 60_000);

  test("bad requests are 4xx with a clear message, and change nothing", async () => {
    const { runId, unitId } = await unitAwaitingReview();
    const raw = (path: string, body: string) =>
      app.request(`http://edge.test/pipeline${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
        body,
      });
    expect((await call("GET", "/reviews/not-a-uuid")).status).toBe(400);
    expect((await call("GET", `/reviews/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await call("POST", `/reviews/${crypto.randomUUID()}/approve`, {})).status).toBe(404);
    expect((await call("GET", "/reviews?dimension=Not%20A%20Dimension")).status).toBe(400);
    expect((await raw(`/reviews/${unitId}/approve`, "{not json")).status).toBe(400);
    expect((await raw(`/reviews/${unitId}/approve`, JSON.stringify({ title: "x".repeat(200_000) }))).status).toBe(413);
    for (
      const body of [
        { title: "short" },
        { title: "A title\u0000with a NUL inside" },
        { title: "A title with a \u202e bidi control" },
        { description: "" },
        { description: "x".repeat(4001) },
        { title: "A good title", extra: true },
      ]
    ) {
      const answer = await call("POST", `/reviews/${unitId}/approve`, body);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.json)).toContain("issues");
    }
    for (const body of [{}, { reason: "" }, { reason: "two\nlines" }, { reason: "r".repeat(501) }]) {
      expect((await call("POST", `/reviews/${unitId}/reject`, body)).status).toBe(400);
    }
    expect(await stateOf(unitId, runId)).toEqual({ stage: "awaiting_review", run: "running", publications: 0, ledger: 0, publish_tasks: 0 });
    const [review] = await admin<{ decision: string | null }[]>`select decision from mdame.unit_reviews where unit_id = ${unitId}`;
    expect(review!.decision).toBeNull();
  }, 60_000);
});
