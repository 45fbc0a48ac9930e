/**
 * The ops dashboard's JSON API (functions/pipeline/operator/ops-routes.ts) against the real
 * Postgres and the Storage emulator: a day's run with units at several stages, a dead letter,
 * stale leases of each kind, a published video with its render, scenes, quality measures and
 * analytics, quota ledger rows and accounts; each route's content, its refusals (401, 400, 404),
 * the signed render URL (exact bytes, a 206 range, forged and expired tokens refused) and run-now.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmulator } from "../../emulators/main.ts";
import { OpsOverview, OpsQueues, OpsQuota, OpsScheduleList, OpsScheduleRunNow, OpsVideoDetail, OpsVideoList } from "../../shared/contracts/ops.ts";
import type { QualityReport } from "../../shared/contracts/quality.ts";
import { WORK_UNIT_STAGES } from "../../shared/contracts/work-unit.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const STORAGE_KEY = randomBytes(32).toString("hex");
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);
const HASH_STALE = "c".repeat(64);

let storageDir: string;
let storage: Awaited<ReturnType<typeof startEmulator>>;

// Registered before withPipeline's, so the pipeline's store points at a running Storage emulator.
beforeAll(async () => {
  storageDir = await mkdtemp(path.join(tmpdir(), "mdame-it-ops-storage-"));
  storage = await startEmulator({ port: 0, dataDir: storageDir, storageServiceKey: STORAGE_KEY, log: () => {} });
});

const pipeline = withPipeline({
  storagePrefix: "mdame-it-ops-",
  env: () => ({ STORAGE_BACKEND: "supabase", SUPABASE_URL: storage.url, SUPABASE_SERVICE_ROLE_KEY: STORAGE_KEY, STORAGE_BUCKET: "mdame-ops-it" }),
});

afterAll(async () => {
  await storage?.stop();
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
});

const call = (route: string, init: RequestInit = {}) =>
  pipeline.app.request(`/pipeline${route}`, { ...init, headers: { ...pipeline.auth, ...(init.headers ?? {}) } });

async function getJson(route: string): Promise<unknown> {
  const response = await call(route);
  if (response.status !== 200) throw new Error(`GET ${route}: ${response.status} ${await response.text()}`);
  return await response.json();
}

interface Seeded {
  runId: string;
  units: Record<string, string>;
  deadLetterId: string;
  stageMsgId: number;
  renderMsgId: number;
  publicationId: string;
  olderPublicationId: string;
  renderKey: string;
  renderBytes: Uint8Array<ArrayBuffer>;
  youtubeAccount: string;
  brokenAccount: string;
}
let seeded: Seeded;

const QUALITY: QualityReport = {
  passed: true,
  integrated_lufs: -14.2,
  true_peak_dbtp: -1.6,
  duration_s: 41.5,
  checks: [
    { check: "integrated_loudness", passed: true, value: -14.2, unit: "LUFS", bound: "-14 +-1 LUFS", reason: null },
    { check: "true_peak", passed: true, value: -1.6, unit: "dBTP", bound: "<= -1 dBTP", reason: null },
  ],
  failures: [],
};

async function seed(): Promise<Seeded> {
  const sql = adminSql();
  const [{ today }] = await sql`select (mdame.engine_now() at time zone 'UTC')::date::text as today` as [{ today: string }];
  const [run] = await sql`insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`it-ops-${crypto.randomUUID()}`}, 'dev', ${today}::date, 'manual') returning id`;
  const runId = run!.id as string;
  await sql`insert into mdame.run_dimensions (run_id, dimension_id, status, topics_seen, units_created) values (${runId}, 'tech-explained', 'ingested', 9, 7)`;
  // An earlier run of a past day, failed: the overview lists its failure but not its units.
  await sql`insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, status, error, finished_at)
    values (${`it-ops-old-${crypto.randomUUID()}`}, 'dev', ${today}::date - 3, 'cron', 'failed', 'ingest: every source failed', now() - interval '3 days')`;

  const units: Record<string, string> = {};
  const unit = async (name: string, stage: string, extra: { error?: string; video?: unknown; quality?: unknown } = {}) => {
    const [row] = await sql`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script, error, video, quality)
      values (${runId}, 'tech-explained', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${sql.json({ title: `Topic ${name}` })}, ${stage},
              ${sql.json({ title: `Title ${name}`, narration: "words", description: "d", hashtags: ["#t"] })}, ${extra.error ?? null},
              ${extra.video === undefined ? null : sql.json(extra.video as never)}, ${extra.quality === undefined ? null : sql.json(extra.quality as never)})
      returning id`;
    units[name] = row!.id as string;
  };
  const renderBytes = new Uint8Array(randomBytes(50_000));
  await unit("scripting", "script");
  await unit("dead", "script");
  await unit("media", "media");
  await unit("rendering", "render");
  await unit("rejected", "rejected");
  await unit("failed", "failed", { error: "voice: every provider failed" });
  const renderKey = "renders/ops-it-published.mp4";
  await unit("published", "published", {
    video: { video_key: renderKey, duration_s: 41.5, width: 1080, height: 1920, size_bytes: renderBytes.length },
    quality: QUALITY,
  });
  await unit("older", "published", { video: { video_key: "renders/ops-it-older.mp4", duration_s: 30 } });

  // The render in Storage, through the pipeline's own store.
  const file = path.join(pipeline.storageDir, "render.mp4");
  await writeFile(file, renderBytes);
  await pipeline.deps.store.putFile(renderKey, file, "video/mp4");

  // Scenes: a stock clip with its attribution, and a procedural one.
  await sql`insert into mdame.scene_cache (scene_hash, backend, asset_key, credit) values
    (${HASH_A}, 'pexels/12345', 'scenes/a.mp4', ${sql.json({ provider: "Pexels", author: "Jane Doe", source_url: "https://www.pexels.com/video/12345/" })}),
    (${HASH_B}, 'procedural-ffmpeg/gradient', 'scenes/b.mp4', null)`;
  await sql`insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit, backend) values
    (${units.published!}, 0, 'city', 'First words', 0, 20.5, ${HASH_A}, 'ready', 'scenes/a.mp4', false, 'pexels/12345'),
    (${units.published!}, 1, 'abstract', 'Then more', 2, 21, ${HASH_B}, 'ready', 'scenes/b.mp4', true, 'procedural-ffmpeg/gradient')`;

  // Accounts: one connected with a grant lacking the Analytics scope, one Google refused.
  const [yt] = await sql`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, credentials_enc, granted_scopes)
    values ('tech-explained', 'youtube', '@ops-it-channel', 'sealed', ${[
    "https://www.googleapis.com/auth/youtube.upload",
    "https://www.googleapis.com/auth/youtube.readonly",
  ]})
    returning id`;
  const [broken] =
    await sql`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, credentials_enc, health_state, health_reason, health_since)
    values ('sains-singkat', 'youtube', '@ops-it-broken', 'sealed', 'needs_reconnect', 'invalid_grant', now()) returning id`;
  const [tiktok] = await sql`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, oauth_client_id)
    values ('tech-explained', 'tiktok', '@ops-it-tiktok', 'it-tiktok-client') returning id`;
  await sql`insert into mdame.tiktok_calls (account_id, call_kind, created_at) values
    (${tiktok!.id}, 'video.init', mdame.engine_now() - interval '10 seconds'),
    (${tiktok!.id}, 'video.init', mdame.engine_now() - interval '2 hours')`;
  const [pub] = await sql`insert into mdame.publications (unit_id, account_id, platform, status, external_id, video_key, published_at, privacy_status)
    values (${units.published!}, ${
    yt!.id
  }, 'youtube', 'published', 'ytOpsVideo1', ${renderKey}, mdame.engine_now() - interval '1 hour', 'public') returning id`;
  const [older] = await sql`insert into mdame.publications (unit_id, account_id, platform, status, external_id, published_at)
    values (${units.older!}, ${yt!.id}, 'youtube', 'published', 'ytOpsVideo0', mdame.engine_now() - interval '2 days') returning id`;
  await sql`insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                                average_view_duration_s, average_view_percentage, likes, retention) values
    (${pub!.id}, 3, now(), current_date - 3, current_date, 1200, 900, 28.5, 68.7, 40, ${
    sql.json([{ ratio: 0, watch_ratio: 1 }, { ratio: 0.5, watch_ratio: 0.7 }])
  }),
    (${pub!.id}, 7, now(), current_date - 7, current_date, 3400, 2500, 27.1, 65.2, 90, ${sql.json([])})`;

  // The quota ledger of today's quota day: two settled uploads, one reserved, and Data API units.
  const day = sql`mdame.youtube_quota_day(mdame.engine_now())`;
  await sql`insert into mdame.quota_ledger (oauth_client_id, account_id, call_kind, bucket, cost, quota_day, status, created_at) values
    ('default', ${yt!.id}, 'videos.insert', 'uploads', 1, ${day}, 'settled', mdame.engine_now() - interval '2 hours'),
    ('default', ${yt!.id}, 'videos.insert', 'uploads', 1, ${day}, 'settled', mdame.engine_now() - interval '1 hour'),
    ('default', ${yt!.id}, 'videos.insert', 'uploads', 1, ${day}, 'reserved', mdame.engine_now()),
    ('default', ${yt!.id}, 'videos.update', 'units', 50, ${day}, 'settled', mdame.engine_now()),
    ('default', ${yt!.id}, 'videos.list', 'units', 1, ${day}, 'released', mdame.engine_now())`;

  // A dead letter of the stage queue.
  const [dl] = await sql`select pgmq.send('stage_tasks', ${sql.json({ stage: "script", run_id: runId, unit_id: units.dead!, step_token: "step:dl" })}) as id`;
  // The dead letter fails its unit.
  await sql`select mdame.retry_or_dead_letter('stage_tasks', 'script', ${dl!.id}::bigint, 9, '{"stage":"script"}', ${units
    .dead!}::uuid, ${runId}::uuid, 'LLM answer broke its contract', false)`;
  const [dead] = await sql`select id::text from mdame.dead_letters where msg_id = ${dl!.id}`;

  // A stage task claimed by runner-ops whose lease ran out; a render job read and abandoned; a scene claim past its lease.
  const [task] = await sql`select pgmq.send('stage_tasks', ${
    sql.json({ stage: "media", run_id: runId, unit_id: units.media!, step_token: "step:media" })
  }) as id`;
  await sql`select * from mdame.claim_stage_tasks('runner-ops', 10, 30)`;
  await sql`update pgmq.q_stage_tasks set vt = clock_timestamp() - interval '90 seconds' where msg_id = ${task!.id}`;
  // The unit's lease and the message's visibility end together, as claim_stage_tasks sets them.
  await sql`update mdame.work_units set lease_expires_at = (select vt from pgmq.q_stage_tasks where msg_id = ${task!.id}) where id = ${units.media!}`;
  const [job] = await sql`select pgmq.send('render', ${sql.json({ unit_id: units.rendering!, run_id: runId })}) as id`;
  await sql`update pgmq.q_render set read_ct = 1, vt = clock_timestamp() - interval '5 minutes' where msg_id = ${job!.id}`;
  await sql`insert into mdame.scene_generation_claims (scene_hash, backend, holder, lease_until) values
    (${HASH_STALE}, 'pexels', 'gpu-worker-7', clock_timestamp() - interval '10 minutes')`;
  // A render-runner at work and one that crashed while holding a job.
  await sql`select mdame.record_worker_heartbeat('render-runner-ops-a-41-aaaaaa', 'render', 'ops-a', 41, 2, 1, 15)`;
  await sql`select mdame.record_worker_heartbeat('render-runner-ops-b-42-bbbbbb', 'render', 'ops-b', 42, 2, 1, 15)`;
  await sql`update mdame.worker_heartbeats set last_beat_at = clock_timestamp() - interval '5 minutes' where worker_id = 'render-runner-ops-b-42-bbbbbb'`;

  return {
    runId,
    units,
    deadLetterId: dead!.id as string,
    stageMsgId: Number(task!.id),
    renderMsgId: Number(job!.id),
    publicationId: pub!.id as string,
    olderPublicationId: older!.id as string,
    renderKey,
    renderBytes,
    youtubeAccount: yt!.id as string,
    brokenAccount: broken!.id as string,
  };
}

beforeAll(async () => {
  seeded = await seed();
}, 60_000);

describe("refusals", () => {
  test("every ops route needs the service-role bearer", async () => {
    for (
      const [method, route] of [
        ["GET", "/ops/overview"],
        ["GET", "/ops/queues"],
        ["GET", "/ops/videos"],
        ["GET", `/ops/videos/${crypto.randomUUID()}`],
        ["GET", "/ops/quota"],
        ["GET", "/ops/schedules"],
        ["POST", "/ops/schedules/mdame-tick/run"],
      ] as const
    ) {
      expect((await pipeline.app.request(`/pipeline${route}`, { method })).status).toBe(401);
      const wrong = await pipeline.app.request(`/pipeline${route}`, { method, headers: { authorization: "Bearer not-the-key" } });
      expect(wrong.status).toBe(401);
    }
  });

  test("bad limits and ids are 400s naming the parameter; absent things are 404s", async () => {
    for (
      const route of [
        "/ops/videos?limit=0",
        "/ops/videos?limit=501",
        "/ops/videos?limit=abc",
        "/ops/videos?limit=5&extra=1",
        "/ops/overview?failures=0",
        "/ops/overview?failures=999",
        "/ops/queues?x=1",
      ]
    ) {
      const response = await call(route);
      expect(response.status).toBe(400);
    }
    const badId = await call("/ops/videos/not-a-uuid");
    expect(badId.status).toBe(400);
    expect(await badId.text()).toContain("id");
    expect((await call(`/ops/videos/${crypto.randomUUID()}`)).status).toBe(404);
    // Broken percent-encoding and odd names are the caller's mistake, never a 500.
    for (
      const [method, route] of [["GET", "/ops/videos/%ZZ"], ["GET", `/ops/videos/${"9".repeat(5000)}`], ["POST", "/ops/schedules/%ZZ/run"], [
        "POST",
        "/ops/schedules/mdame-%00/run",
      ], ["GET", "/ops/overview?failures=%ZZ"]] as const
    ) {
      const response = await call(route, { method });
      expect([400, 404]).toContain(response.status);
    }
  });
});

describe("GET /ops/overview", () => {
  test("today's run of each active dimension with its units' funnel, counts by state and the latest failures", async () => {
    const overview = OpsOverview.parse(await getJson("/ops/overview"));
    const tech = overview.dimensions.find((d) => d.dimension_id === "tech-explained")!;
    expect(tech.run?.id).toBe(seeded.runId);
    expect(tech.run?.status).toBe("running");
    expect(tech.ingest_status).toBe("ingested");
    expect([tech.topics_seen, tech.units_created]).toEqual([9, 7]);
    const funnel = Object.fromEntries(tech.funnel.map((f) => [f.stage, f.units]));
    expect(funnel).toEqual({
      script: 1,
      safety: 0,
      plan: 0,
      media: 1,
      render: 1,
      awaiting_review: 0,
      publish: 0,
      deferred: 0,
      published: 2,
      rejected: 1,
      failed: 2,
    });
    // The funnel is every stage, in the contract's order.
    expect(tech.funnel.map((f) => f.stage)).toEqual([...WORK_UNIT_STAGES]);
    const sains = overview.dimensions.find((d) => d.dimension_id === "sains-singkat")!;
    expect(sains.run).toBeNull();
    expect(sains.funnel.every((f) => f.units === 0)).toBe(true);

    expect(overview.counts.runs).toEqual([{ state: "running", count: 1 }]);
    expect(overview.counts.work_units.find((c) => c.state === "published")?.count).toBe(2);
    const stageTasks = Object.fromEntries(overview.counts.stage_tasks.map((c) => [c.state, c.count]));
    expect(stageTasks).toEqual({ waiting: 1, leased: 0, retrying: 0, delayed: 0, dead_lettered: 1 });
    const workerJobs = Object.fromEntries(overview.counts.worker_jobs.map((c) => [c.state, c.count]));
    expect(workerJobs).toEqual({ waiting: 1, leased: 0, delayed: 0, dead_lettered: 0 });

    const byKind = (kind: string) => overview.failures.filter((f) => f.kind === kind);
    expect(byKind("unit").map((f) => f.id).sort()).toEqual([seeded.units.failed!, seeded.units.dead!].sort());
    expect(byKind("unit").find((f) => f.id === seeded.units.failed!)).toMatchObject({
      reason: "voice: every provider failed",
      dimension_id: "tech-explained",
      run_id: seeded.runId,
    });
    expect(byKind("run").map((f) => f.reason)).toEqual(["ingest: every source failed"]);
    expect(byKind("dead_letter").map((f) => [f.id, f.reason, f.stage, f.unit_id, f.retried])).toEqual([
      [seeded.deadLetterId, "LLM answer broke its contract", "stage_tasks", seeded.units.dead!, false],
    ]);
    const times = overview.failures.map((f) => Date.parse(f.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(overview.failures.at(-1)?.kind).toBe("run"); // three days old: the oldest

    const one = OpsOverview.parse(await getJson("/ops/overview?failures=1"));
    expect(one.failures).toHaveLength(1);
  });
});

describe("GET /ops/queues", () => {
  test("each queue's depth, ages and pull workers, leases held and stale, and the lease holders' last leases", async () => {
    const queues = OpsQueues.parse(await getJson("/ops/queues"));
    const byName = Object.fromEntries(queues.queues.map((q) => [q.queue_name, q]));
    expect(Object.keys(byName).sort()).toEqual(["analytics_fetches", "render", "stage_tasks", "thumbnail_sets", "visual_generation"]);
    expect(byName.stage_tasks).toMatchObject({ depth: 1, visible: 1, invisible: 0, leased: 0 });
    expect(byName.stage_tasks!.oldest_msg_age_s).toBeGreaterThanOrEqual(0);
    expect(byName.render).toMatchObject({ depth: 1, visible: 1 });
    expect(byName.visual_generation).toMatchObject({ depth: 0, oldest_msg_age_s: null });

    expect(queues.leases).toEqual({ stage_tasks: { held: 0, stale: 1 }, worker_jobs: { held: 0, stale: 1 }, scene_claims: { held: 0, stale: 1 } });
    const stale = Object.fromEntries(queues.stale_leases.map((l) => [l.kind, l]));
    expect(stale.stage_task).toMatchObject({
      holder: `runner-ops/${seeded.stageMsgId}/1`,
      subject: `stage_tasks/${seeded.stageMsgId}`,
      unit_id: seeded.units.media!,
    });
    expect(stale.stage_task!.expired_for_s).toBeGreaterThanOrEqual(89);
    expect(stale.worker_job).toMatchObject({ holder: null, subject: `render/${seeded.renderMsgId}`, unit_id: seeded.units.rendering! });
    expect(stale.scene_claim).toMatchObject({ holder: "gpu-worker-7", subject: `${HASH_STALE}/pexels`, unit_id: null });
    // Longest expired first: the scene claim (10 min), the render job (5 min), the stage task (90 s).
    expect(queues.stale_leases.map((l) => l.kind)).toEqual(["scene_claim", "worker_job", "stage_task"]);

    expect(byName.render!.workers.map((w) => [w.worker_id, w.host, w.pid, w.concurrency, w.jobs_held, w.status])).toEqual([
      ["render-runner-ops-a-41-aaaaaa", "ops-a", 41, 2, 1, "live"],
      ["render-runner-ops-b-42-bbbbbb", "ops-b", 42, 2, 1, "stale"],
    ]);
    expect(byName.render!.workers[1]!.last_beat_age_s).toBeGreaterThanOrEqual(299);
    expect(byName.stage_tasks!.workers).toEqual([]);

    const runner = queues.lease_holders.find((w) => w.kind === "stage_runner" && w.worker_id === "runner-ops");
    expect(runner).toMatchObject({ leases_held: 0, live: false, source: "work_unit_lease" });
    expect(queues.lease_holders.find((w) => w.kind === "scene_generator")).toMatchObject({ worker_id: "gpu-worker-7", live: false });
    expect(queues.lease_holders.map((w) => w.kind).sort()).toEqual(["scene_generator", "stage_runner"]);
  });
});

describe("GET /ops/videos", () => {
  test("recent publications, newest first, with their public link", async () => {
    const { videos } = OpsVideoList.parse(await getJson("/ops/videos"));
    expect(videos.map((v) => v.id)).toEqual([seeded.publicationId, seeded.olderPublicationId]);
    expect(videos[0]).toMatchObject({
      platform: "youtube",
      external_id: "ytOpsVideo1",
      url: "https://www.youtube.com/shorts/ytOpsVideo1",
      title: "Title published",
      dimension_id: "tech-explained",
      channel_handle: "@ops-it-channel",
      status: "published",
      run_id: seeded.runId,
    });
    const { videos: one } = OpsVideoList.parse(await getJson("/ops/videos?limit=1"));
    expect(one.map((v) => v.id)).toEqual([seeded.publicationId]);
  });

  test("one publication: quality measures, scenes with backends and credits, analytics, and a playable signed URL", async () => {
    const detail = OpsVideoDetail.parse(await getJson(`/ops/videos/${seeded.publicationId}`));
    expect(detail.quality).toEqual(QUALITY);
    expect(detail.scenes.map((s) => [s.scene_index, s.backend, s.backend_name, s.cache_hit])).toEqual([
      [0, "pexels/12345", "pexels", false],
      [1, "procedural-ffmpeg/gradient", "procedural", true],
    ]);
    expect(detail.scenes[0]!.credit).toEqual({ provider: "Pexels", author: "Jane Doe", source_url: "https://www.pexels.com/video/12345/" });
    expect(detail.scenes[1]!.credit).toBeNull();
    expect(detail.analytics.map((a) => [a.window_days, a.views, a.likes])).toEqual([[3, 1200, 40], [7, 3400, 90]]);
    expect(detail.analytics[0]!.retention).toEqual([{ ratio: 0, watch_ratio: 1 }, { ratio: 0.5, watch_ratio: 0.7 }]);
    expect(detail.render).toMatchObject({ key: seeded.renderKey, duration_s: 41.5, width: 1080, height: 1920, size_bytes: seeded.renderBytes.length });
    expect(Date.parse(detail.render.expires_at!)).toBeGreaterThan(Date.now());

    const url = detail.render.signed_url!;
    expect(url.startsWith(`${storage.url}/storage/v1/object/sign/`)).toBe(true);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(seeded.renderBytes));
    const part = await fetch(url, { headers: { range: "bytes=1000-1999" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${seeded.renderBytes.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(seeded.renderBytes.subarray(1000, 2000));

    const token = new URL(url).searchParams.get("token")!;
    const forged = new URL(url);
    forged.searchParams.set("token", `${token.slice(0, -4)}AAAA`);
    expect((await fetch(forged)).status).toBe(400);
    expect((await fetch(url.replace("ops-it-published", "ops-it-older"))).status).toBe(400);
  });

  test("a signed URL stops working once it expires", async () => {
    const brief = await pipeline.deps.store.signedUrl(seeded.renderKey, 1);
    expect((await fetch(brief!)).status).toBe(200);
    await Bun.sleep(2100);
    const expired = await fetch(brief!);
    expect(expired.status).toBe(400);
    expect(await expired.json()).toMatchObject({ message: "jwt expired" });
  });

  test("a publication whose render storage does not hold has no link, and is still shown", async () => {
    const detail = OpsVideoDetail.parse(await getJson(`/ops/videos/${seeded.olderPublicationId}`));
    expect(detail.render).toMatchObject({ key: "renders/ops-it-older.mp4", signed_url: null, expires_at: null });
    expect(detail.quality).toBeNull();
    expect(detail.scenes).toEqual([]);
  });
});

describe("GET /ops/quota", () => {
  test("today's YouTube buckets, account health and the scopes a grant lacks", async () => {
    const quota = OpsQuota.parse(await getJson("/ops/quota"));
    const [{ day, resets }] = await adminSql()`select mdame.youtube_quota_day(mdame.engine_now())::text as day,
      mdame.youtube_quota_resets_at(mdame.youtube_quota_day(mdame.engine_now())) as resets` as [{ day: string; resets: Date }];
    expect(quota.quota_day).toBe(day);
    expect(quota.resets_at).toBe(resets.toISOString());
    const buckets = Object.fromEntries(quota.youtube.filter((b) => b.oauth_client_id === "default").map((b) => [b.bucket, b]));
    expect(buckets.uploads).toMatchObject({ used: 2, reserved: 1, limit: 100, remaining: 97 });
    expect(buckets.units).toMatchObject({ used: 50, reserved: 0, limit: 10000, remaining: 9950 });
    expect(buckets.analytics).toMatchObject({ used: 0, reserved: 0 });

    const connected = quota.accounts.find((a) => a.id === seeded.youtubeAccount)!;
    expect(connected).toMatchObject({ status: "active", uploads_24h: 3, upload_cap_24h: 15 });
    expect(connected.missing_scopes).toEqual(["https://www.googleapis.com/auth/yt-analytics.readonly"]);
    const broken = quota.accounts.find((a) => a.id === seeded.brokenAccount)!;
    expect(broken).toMatchObject({ status: "needs_reconnect", health_reason: "invalid_grant", granted_scopes: null, missing_scopes: [] });
    // An account without stored credentials; its TikTok rate windows count the engine clock's last minute.
    expect(quota.accounts.find((a) => a.channel_handle === "@ops-it-tiktok")).toMatchObject({ platform: "tiktok", status: "not_connected", uploads_24h: 2 });
    const windows = Object.fromEntries(quota.tiktok.map((w) => [w.call_kind, w]));
    expect(windows["video.init"]).toMatchObject({ channel_handle: "@ops-it-tiktok", used: 1, limit: 6, window_s: 60 });
    expect(windows["status.fetch"]).toMatchObject({ used: 0, limit: 30 });

    await adminSql()`update mdame.dimension_accounts set active = false where id = ${seeded.youtubeAccount}`;
    try {
      const paused = OpsQuota.parse(await getJson("/ops/quota")).accounts.find((a) => a.id === seeded.youtubeAccount);
      expect(paused?.status).toBe("paused");
    } finally {
      await adminSql()`update mdame.dimension_accounts set active = true where id = ${seeded.youtubeAccount}`;
    }
  });
});

describe("schedules", () => {
  test("GET /ops/schedules lists the engine's pg_cron jobs with their next run", async () => {
    const list = OpsScheduleList.parse(await getJson("/ops/schedules"));
    expect(list.cron_available).toBe(true);
    const names = list.schedules.map((s) => s.name);
    expect(names).toContain("mdame-tick");
    expect(names.every((n) => n.startsWith("mdame-"))).toBe(true);
    const tick = list.schedules.find((s) => s.name === "mdame-tick")!;
    expect(tick).toMatchObject({ schedule: "* * * * *", active: true, command: "select mdame.tick()", runnable: true });
    const next = new Date(tick.next_run_at!);
    expect(next.getUTCSeconds()).toBe(0);
    const weekly = list.schedules.find((s) => s.name === "mdame-weekly-reports")!;
    const weeklyNext = new Date(weekly.next_run_at!);
    expect([weeklyNext.getUTCDay(), weeklyNext.getUTCHours(), weeklyNext.getUTCMinutes()]).toEqual([0, 21, 0]);
    expect(weeklyNext.getTime() - next.getTime()).toBeLessThanOrEqual(7 * 86_400_000);
    expect(weeklyNext.getTime()).toBeGreaterThanOrEqual(next.getTime() - 60_000);
  });

  test("a paused job has no next run", async () => {
    await adminSql()`update cron.job set active = false where jobname = 'mdame-adapt-weekly'`;
    try {
      const list = OpsScheduleList.parse(await getJson("/ops/schedules"));
      expect(list.schedules.find((s) => s.name === "mdame-adapt-weekly")).toMatchObject({ active: false, next_run_at: null });
    } finally {
      await adminSql()`update cron.job set active = true where jobname = 'mdame-adapt-weekly'`;
    }
  });

  test("POST /ops/schedules/:name/run runs a whitelisted job's work now; anything else is 404", async () => {
    const sql = adminSql();
    await sql`delete from mdame.weekly_reports`;
    const response = await call("/ops/schedules/mdame-weekly-reports/run", { method: "POST" });
    expect(response.status).toBe(200);
    const ran = OpsScheduleRunNow.parse(await response.json());
    expect(ran).toMatchObject({ name: "mdame-weekly-reports", function: "mdame.queue_weekly_reports()" });
    const [{ n }] = await sql`select count(*)::int as n from mdame.weekly_reports` as [{ n: number }];
    expect(n).toBe(2); // one per active dimension
    expect(ran.result).toBe(2);
    // Run again: the week's reports are queued already.
    const again = OpsScheduleRunNow.parse(await (await call("/ops/schedules/mdame-weekly-reports/run", { method: "POST" })).json());
    expect(again.result).toBe(0);

    for (const name of ["mdame-nope", "not-the-engine", "mdame-tick;drop", "x".repeat(300)]) {
      expect((await call(`/ops/schedules/${encodeURIComponent(name)}/run`, { method: "POST" })).status).toBe(404);
    }
    // A job of someone else, scheduled under an engine-looking name, is not run either.
    await sql`select cron.schedule('mdame-intruder', '0 0 1 1 *', 'select 1')`;
    try {
      expect((await call("/ops/schedules/mdame-intruder/run", { method: "POST" })).status).toBe(404);
      const list = OpsScheduleList.parse(await getJson("/ops/schedules"));
      expect(list.schedules.find((s) => s.name === "mdame-intruder")?.runnable).toBe(false);
    } finally {
      await sql`select cron.unschedule('mdame-intruder')`;
    }
  });
});
