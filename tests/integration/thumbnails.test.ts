/**
 * Shorts thumbnails end to end on the engine's side: the real Postgres (the trigger that enqueues a
 * published video's cover, the thumbnail_sets queue, the quota ledger), the real pipeline app's
 * /pipeline/tick and its YouTube calls against the emulator. A video is published through the real
 * publish stage with a cover stored beside its render, then:
 * - the tick asks YouTube about processing (1 unit) and waits while it lasts, then sets the cover
 *   (50 units): the emulator holds it, applied, byte for byte;
 * - the publication is published before any of it, and stays so whatever becomes of the thumbnail;
 * - a channel that may not set custom thumbnails, a cover gone from Storage and a video YouTube no
 *   longer lists are given up with the reason and an event, never looping;
 * - an outage backs off and the ledger releases the unanswered call; a spent units bucket waits for
 *   the reset without calling YouTube.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { addYouTubeAccount, type PublishBench, runStages, startPublishBench, stopPublishBench, tickOnce } from "./fixtures/publish-stage.ts";

const admin = adminSql();
const PROJECT = "thumbs-it.apps.googleusercontent.com";
const CHANNEL = "thumbs-channel";

let bench: PublishBench;
let app: ReturnType<typeof createPipelineApp>;
let coverPath: string;
let scratch: string;

beforeAll(async () => {
  bench = await startPublishBench("thumbnails", randomBytes(200 * 1024));
  app = createPipelineApp(bench.deps);
  scratch = await mkdtemp(join(tmpdir(), "mdame-it-covers-"));
  coverPath = join(scratch, "cover.jpg");
  await runFfmpeg(["-y", "-f", "lavfi", "-i", "color=c=0x884422:s=1080x1920", "-frames:v", "1", coverPath]);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await bench.emulator.reset();
}, 60_000);

afterAll(async () => {
  await stopPublishBench(bench);
  await rm(scratch, { recursive: true, force: true });
}, 60_000);

const tick = () => tickOnce(app, bench.env);

async function emulatorAdmin(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${bench.emulator.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(response.status).toBe(200);
  return await response.json();
}

/**
 * Publishes one video through the real publish stage, its render's cover stored (unless `cover` is
 * false) and recorded as the render-runner reports it.
 */
async function publishOne(options: { cover?: boolean } = {}) {
  const [account] = await admin`select id from mdame.dimension_accounts where channel_handle = ${`@${CHANNEL}`}`;
  if (!account) {
    await addYouTubeAccount(admin, {
      dimension: "tech-explained",
      handle: `@${CHANNEL}`,
      project: PROJECT,
      refreshToken: `emulator-refresh-${CHANNEL}`,
      key: bench.env.CREDENTIALS_KEY!,
    });
  }
  const [run] = await admin<{ id: string }[]>`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind) values (${
    "it-" + crypto.randomUUID()
  }, 'dev', current_date, 'manual') returning id`;
  await admin`insert into mdame.run_dimensions (run_id, dimension_id, status) values (${run!.id}, 'tech-explained', 'ingested')`;
  const [unit] = await admin<{ id: string }[]>`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${run!.id}, 'tech-explained', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${admin.json({ title: "A topic" })}, 'publish',
            ${admin.json({ title: "A title", hook: "A hook", narration: "words here", description: "A description", hashtags: ["#shorts"] })})
    returning id`;
  const hash = randomBytes(32).toString("hex");
  const videoKey = `renders/${hash}.mp4`;
  const coverKey = `renders/${hash}.cover.jpg`;
  await bench.deps.store.putFile(videoKey, bench.videoPath, "video/mp4");
  if (options.cover !== false) await bench.deps.store.putFile(coverKey, coverPath, "image/jpeg");
  await admin`update mdame.work_units set video = ${admin.json({ video_key: videoKey, cover_key: coverKey })} where id = ${unit!.id}`;
  await admin`select mdame.enqueue_stage_task('publish', ${run!.id}::uuid, ${unit!.id}::uuid)`;
  await runStages(bench.deps);
  const [publication] = await admin<{ id: string; external_id: string; status: string }[]>`
    select id, external_id, status from mdame.publications where unit_id = ${unit!.id}`;
  expect(publication?.status).toBe("published");
  return { unitId: unit!.id, publicationId: publication!.id, videoId: publication!.external_id, coverKey };
}

/** Makes every queued thumbnail message visible now (a retry's delay passed). */
const dueNow = () => admin`update pgmq.q_thumbnail_sets set vt = clock_timestamp() - interval '1 second'`;
const setOf = async (publicationId: string) =>
  (await admin<{ status: string; attempts: number; last_error: string | null }[]>`
    select status, attempts, last_error from mdame.thumbnail_sets where publication_id = ${publicationId}`)[0];
const listed = async (videoId: string) =>
  ((await emulatorAdmin("GET", "/_emulator/youtube/videos")) as Array<Record<string, any>>).find((v) => v.id === videoId)!;
const ledger = async (kind: string) =>
  (await admin<
    { status: string; cost: number }[]
  >`select status, cost from mdame.quota_ledger where call_kind = ${kind} and entry = 'call' order by created_at, id`)
    .map(({ status, cost }) => ({ status, cost }));
const events = async (unitId: string, kind: string) =>
  (await admin<{ n: number }[]>`select count(*)::int as n from mdame.events where unit_id = ${unitId} and kind = ${kind}`)[0]!.n;

test("the cover is set once YouTube's processing succeeded, charged to the ledger, and the emulator holds it applied", async () => {
  await emulatorAdmin("PUT", `/_emulator/youtube/channels/${CHANNEL}`, { processing_seconds: 600 });
  const { unitId, publicationId, videoId } = await publishOne();
  expect(await setOf(publicationId)).toMatchObject({ status: "queued", attempts: 0 });

  // The first check waits for thumbnail_first_check: a tick now finds nothing visible.
  await tick();
  expect(await setOf(publicationId)).toMatchObject({ status: "queued", attempts: 0 });

  await dueNow();
  await tick();
  expect(await setOf(publicationId)).toMatchObject({ status: "queued", attempts: 1, last_error: "YouTube is still processing the video" });
  expect(await ledger("videos.list")).toEqual([{ status: "settled", cost: 1 }]);
  expect(await ledger("thumbnails.set")).toHaveLength(0);
  expect((await listed(videoId)).thumbnail).toBeNull();

  await emulatorAdmin("POST", "/_emulator/clock", { offset_ms: 601_000 });
  await dueNow();
  await tick();
  expect(await setOf(publicationId)).toMatchObject({ status: "set", attempts: 2 });
  expect(await ledger("thumbnails.set")).toEqual([{ status: "settled", cost: 50 }]);
  const thumbnail = (await listed(videoId)).thumbnail;
  expect(thumbnail).toMatchObject({ applied: true, mime_type: "image/jpeg", width: 1080, height: 1920 });
  expect(Buffer.from(await readFile(thumbnail.path)).equals(await readFile(coverPath))).toBe(true);
  expect(await events(unitId, "thumbnail_set")).toBe(1);

  // Done is done: another tick sets nothing more.
  await dueNow();
  await tick();
  expect(await ledger("thumbnails.set")).toHaveLength(1);
  const [publication] = await admin<{ status: string }[]>`select status from mdame.publications where id = ${publicationId}`;
  expect(publication!.status).toBe("published");
});

test("refusals that will not pass are given up with the reason and an event; the publication stays published", async () => {
  // A channel that may not set custom thumbnails.
  await emulatorAdmin("PUT", `/_emulator/youtube/channels/${CHANNEL}`, { processing_seconds: 0, custom_thumbnails: false });
  const refused = await publishOne();
  await dueNow();
  await tick();
  expect(await setOf(refused.publicationId)).toMatchObject({ status: "given_up" });
  expect((await setOf(refused.publicationId))!.last_error).toContain("doesn't have permissions to upload and set custom video thumbnails");
  expect(await events(refused.unitId, "thumbnail_set_given_up")).toBe(1);

  // A cover no longer stored: given up before thumbnails.set is called.
  await emulatorAdmin("PUT", `/_emulator/youtube/channels/${CHANNEL}`, { custom_thumbnails: true });
  const missing = await publishOne({ cover: false });
  const calls = (await ledger("thumbnails.set")).length;
  await dueNow();
  await tick();
  expect(await setOf(missing.publicationId)).toMatchObject({ status: "given_up" });
  expect((await setOf(missing.publicationId))!.last_error).toContain("is no longer stored");
  expect(await ledger("thumbnails.set")).toHaveLength(calls);

  // A video YouTube no longer lists (deleted from Studio): given up.
  const gone = await publishOne();
  await bench.emulator.reset();
  await dueNow();
  await tick();
  expect(await setOf(gone.publicationId)).toMatchObject({
    status: "given_up",
    last_error: "YouTube no longer lists the video (deleted, or not the channel's)",
  });

  const statuses = await admin<{ status: string }[]>`select distinct status from mdame.publications`;
  expect(statuses.map((row) => row.status)).toEqual(["published"]);
});

test("an outage backs off with the call released; a spent units bucket waits for its reset without calling YouTube", async () => {
  await emulatorAdmin("PUT", `/_emulator/youtube/channels/${CHANNEL}`, { processing_seconds: 0 });
  const { publicationId, videoId } = await publishOne();
  await emulatorAdmin("POST", "/_emulator/faults", { service: "youtube-data", kind: "http_503" });
  // The processing check passes (videos.list is not a youtube-data call); thumbnails.set meets the outage.
  await dueNow();
  await tick();
  const afterOutage = await setOf(publicationId);
  expect(afterOutage).toMatchObject({ status: "queued", attempts: 1 });
  expect(afterOutage!.last_error).toContain("503");
  expect(await ledger("thumbnails.set")).toEqual([{ status: "released", cost: 50 }]);
  const [message] = await admin<{ vt: Date }[]>`select vt from pgmq.q_thumbnail_sets`;
  expect(message!.vt.getTime()).toBeGreaterThan(Date.now() + 50_000);

  // The units bucket spent: the set waits for the Pacific reset and YouTube is not called.
  await admin`update mdame.youtube_projects set api_units_per_day = 1 where oauth_client_id = ${PROJECT}`;
  await dueNow();
  await tick();
  const waiting = await setOf(publicationId);
  expect(waiting).toMatchObject({ status: "queued", attempts: 2 });
  expect(waiting!.last_error).toContain("quota is spent until");
  expect((await listed(videoId)).thumbnail).toBeNull();

  await admin`update mdame.youtube_projects set api_units_per_day = 10000 where oauth_client_id = ${PROJECT}`;
  await dueNow();
  await tick();
  expect(await setOf(publicationId)).toMatchObject({ status: "set", attempts: 3 });
  expect((await listed(videoId)).thumbnail).toMatchObject({ applied: true });
});
