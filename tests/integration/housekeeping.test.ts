/**
 * Retention with a clock (docs/reference/retention.md): real Postgres, the real pipeline app and a local
 * directory store. Rows and stored objects are seeded as the stages leave them, the engine clock is
 * moved past each TTL, and POST /pipeline/housekeeping runs a dry run (nothing goes) and then a
 * real pass: exactly the expired things go, from the database and from Storage. Each "never
 * delete" rule has a case that would otherwise qualify; batches are bounded; a removal Storage
 * refuses is retried, and a key in use again is kept.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HousekeepingAnswer, HousekeepingSettings, StorageUsage } from "../../shared/contracts/housekeeping.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const pipeline = withPipeline({ storagePrefix: "mdame-it-housekeeping-" });

const hex = () => (crypto.randomUUID() + crypto.randomUUID()).replaceAll("-", "").slice(0, 64);
const setClock = (offset: string) => adminSql()`select mdame.set_engine_clock(${offset}::interval)`;

async function put(key: string, bytes = 64): Promise<void> {
  const file = join(pipeline.storageDir, `.seed-${crypto.randomUUID()}`);
  await writeFile(file, new Uint8Array(bytes).fill(7));
  await pipeline.deps.store.putFile(key, file, "application/octet-stream");
  await rm(file);
}
const stored = (key: string) => pipeline.deps.store.exists(key);

async function housekeeping(dryRun: boolean): Promise<HousekeepingAnswer> {
  const response = await pipeline.app.request("/pipeline/housekeeping", { method: "POST", headers: pipeline.auth, body: JSON.stringify({ dry_run: dryRun }) });
  expect(response.status).toBe(200);
  return HousekeepingAnswer.parse(await response.json());
}
const kind = (answer: HousekeepingAnswer, name: string) => {
  const row = answer.kinds.find((k) => k.kind === name);
  if (!row) throw new Error(`no kind ${name}`);
  return { due: row.due, deleted: row.deleted, queued: row.storage_keys_queued };
};

async function settings(body: Record<string, number | null>): Promise<HousekeepingSettings> {
  const response = await pipeline.app.request("/pipeline/housekeeping/settings", { method: "PATCH", headers: pipeline.auth, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return HousekeepingSettings.parse(await response.json());
}

/** A scene cache entry (stamped on the engine clock as it is now) and its clip in Storage. */
async function cacheEntry(): Promise<{ hash: string; key: string }> {
  const hash = hex();
  const key = `scenes/${hash}.mp4`;
  await put(key);
  await adminSql()`insert into mdame.scene_cache (scene_hash, backend, asset_key) values (${hash}, 'procedural-ffmpeg/v1', ${key})`;
  return { hash, key };
}

async function account(): Promise<string> {
  const [row] = await adminSql()`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle)
    values ('tech-explained', 'youtube', '@housekeeping-it') on conflict (dimension_id, platform, channel_handle) do update set health_state = 'ok' returning id`;
  return row!.id;
}

async function tiktokAccount(): Promise<string> {
  const [row] = await adminSql()`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, channel_id)
    values ('tech-explained', 'tiktok', '@housekeeping-tt', 'open-id-housekeeping') on conflict (dimension_id, platform, channel_handle) do update set health_state = 'ok' returning id`;
  return row!.id;
}

interface SeededUnit {
  id: string;
  audioKey: string;
  wordsKey: string;
  videoKey: string;
}

/**
 * A unit as the stages leave it at `stage`, its voice track, word timings and render in Storage,
 * and its publications (published on the engine clock as it is now, or in another status).
 */
async function unit(stage: string, publications: Array<"published" | "deferred" | "uploading">, videoKey = `renders/${hex()}.mp4`): Promise<SeededUnit> {
  const sql = adminSql();
  const voiceHash = hex();
  const audioKey = `voice/${voiceHash}.mp3`;
  const wordsKey = `voice/${voiceHash}.json`;
  await put(audioKey);
  await put(wordsKey, 16);
  if (!(await stored(videoKey))) await put(videoKey, 256);
  const [run] = await sql`insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, status)
    values (${`it-${crypto.randomUUID()}`}, 'dev', current_date, 'manual', 'completed') returning id`;
  const [row] = await sql`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, voice, video, quality)
    values (${run!.id}, 'tech-explained', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${sql.json({ title: "Test topic" })}, ${stage},
            ${sql.json({ audio_key: audioKey, duration_ms: 1000, provider: "edge-tts", voice: "en-US-AvaNeural", words: [] })},
            ${sql.json({ video_key: videoKey, duration_s: 30 })}, ${sql.json({ passed: true, lufs: -14 })})
    returning id`;
  const accounts = [await account(), await tiktokAccount()];
  for (const [i, status] of publications.entries()) {
    await sql`insert into mdame.publications (unit_id, account_id, platform, status, video_key, external_id, published_at)
      values (${row!.id}, ${accounts[i]!}, ${i === 0 ? "youtube" : "tiktok"}, ${status}, ${videoKey},
              ${status === "published" ? `ext-${crypto.randomUUID()}` : null}, ${status === "published" ? sql`mdame.engine_now()` : null})`;
  }
  return { id: row!.id, audioKey, wordsKey, videoKey };
}

async function unitRow(id: string): Promise<Record<string, any>> {
  const [row] = await adminSql()`select * from mdame.work_units where id = ${id}`;
  return row!;
}

beforeEach(async () => {
  const sql = adminSql();
  await setClock("0");
  await sql`delete from mdame.settings where key like 'housekeeping.%'`;
  await sql`delete from mdame.storage_deletions`;
  await sql`delete from mdame.scene_cache`;
  await sql`delete from mdame.scene_generation_claims`;
  await sql`delete from mdame.llm_cache`;
  await sql`delete from mdame.step_results`;
  await sql`delete from mdame.events`;
  for (const { queue_name } of await sql`select queue_name from pgmq.meta`) await sql.unsafe(`delete from pgmq.a_${queue_name}`);
  // What earlier tests left is out of every pass: no longer published, its assets released.
  await sql`update mdame.work_units set stage = 'failed' where stage <> 'failed'`;
});

describe("what expires, on the engine clock", () => {
  test("a dry run deletes nothing; the pass then removes exactly the expired rows and objects", async () => {
    const sql = adminSql();
    const oldEntry = await cacheEntry();
    const oldUnit = await unit("published", ["published"]);
    await sql`insert into mdame.llm_cache (cache_key, model, response) values (${hex()}, 'gemini', '{}')`;
    const [archived] = await sql`select pgmq.send('render', '{"seed": true}') as id`;
    await sql`select pgmq.archive('render', ${archived!.id}::bigint)`;
    const liveOwner = await unit("render", []);
    await sql`insert into mdame.step_results (step_token, result) values (${`step:${liveOwner.id}:0:live`}, '{}'), (${`step:${crypto.randomUUID()}:0:gone`}, '{}')`;
    const [event] = await sql`insert into mdame.events (kind, stage) values ('seeded', 'test') returning id`;

    await setClock("30 days");
    const freshEntry = await cacheEntry();
    const freshUnit = await unit("published", ["published"]);

    await setClock("35 days");
    const dry = await housekeeping(true);
    expect(dry.dry_run).toBe(true);
    expect(kind(dry, "scene_cache")).toEqual({ due: 1, deleted: 0, queued: 0 });
    expect(kind(dry, "renders")).toEqual({ due: 1, deleted: 0, queued: 0 });
    expect(kind(dry, "voices")).toEqual({ due: 1, deleted: 0, queued: 0 });
    expect(kind(dry, "llm_cache")).toEqual({ due: 1, deleted: 0, queued: 0 });
    expect(kind(dry, "pgmq_archives")).toEqual({ due: 1, deleted: 0, queued: 0 });
    expect(kind(dry, "events").due).toBe(0);
    expect(kind(dry, "step_results").due).toBe(0);
    for (const key of [oldEntry.key, oldUnit.audioKey, oldUnit.wordsKey, oldUnit.videoKey]) expect(await stored(key)).toBe(true);
    expect((await sql`select count(*)::int as n from mdame.scene_cache`)[0]!.n).toBe(2);
    expect((await sql`select count(*)::int as n from mdame.storage_deletions`)[0]!.n).toBe(0);
    expect((await unitRow(oldUnit.id)).video.deleted_at).toBeUndefined();

    const real = await housekeeping(false);
    expect(kind(real, "scene_cache")).toEqual({ due: 1, deleted: 1, queued: 1 });
    expect(kind(real, "renders")).toEqual({ due: 1, deleted: 1, queued: 1 });
    expect(kind(real, "voices")).toEqual({ due: 1, deleted: 1, queued: 2 });
    expect(kind(real, "llm_cache")).toEqual({ due: 1, deleted: 1, queued: 0 });
    expect(kind(real, "pgmq_archives")).toEqual({ due: 1, deleted: 1, queued: 0 });
    expect(real.storage_deletions).toEqual({ removed: 4, failed: 0, pending: 0 });

    for (const key of [oldEntry.key, oldUnit.audioKey, oldUnit.wordsKey, oldUnit.videoKey]) expect(await stored(key)).toBe(false);
    for (const key of [freshEntry.key, freshUnit.audioKey, freshUnit.wordsKey, freshUnit.videoKey]) expect(await stored(key)).toBe(true);
    expect((await sql`select scene_hash from mdame.scene_cache`).map((r) => r.scene_hash)).toEqual([freshEntry.hash]);
    expect((await sql`select count(*)::int as n from mdame.llm_cache`)[0]!.n).toBe(0);
    expect((await sql`select count(*)::int as n from pgmq.a_render`)[0]!.n).toBe(0);

    // The unit keeps its record: the keys (marked released), its quality measures, its publication.
    const released = await unitRow(oldUnit.id);
    expect(released.video.video_key).toBe(oldUnit.videoKey);
    expect(typeof released.video.deleted_at).toBe("string");
    expect(released.voice.audio_key).toBe(oldUnit.audioKey);
    expect(typeof released.voice.deleted_at).toBe("string");
    expect(released.quality).toEqual({ passed: true, lufs: -14 });
    const [publication] = await sql`select status, external_id from mdame.publications where unit_id = ${oldUnit.id}`;
    expect(publication!.status).toBe("published");
    expect(publication!.external_id).toStartWith("ext-");
    expect((await unitRow(freshUnit.id)).video.deleted_at).toBeUndefined();

    // A second pass finds nothing more of what went.
    const again = await housekeeping(false);
    expect(kind(again, "renders")).toEqual({ due: 0, deleted: 0, queued: 0 });
    expect(kind(again, "scene_cache").due).toBe(0);

    // Events and step results keep 90 days; the live owner's step result stays.
    await setClock("100 days");
    const late = await housekeeping(false);
    expect(kind(late, "step_results")).toEqual({ due: 1, deleted: 1, queued: 0 });
    expect((await sql`select step_token from mdame.step_results`).map((r) => r.step_token)).toEqual([`step:${liveOwner.id}:0:live`]);
    expect(kind(late, "events").deleted).toBeGreaterThanOrEqual(1);
    expect((await sql`select count(*)::int as n from mdame.events where id = ${event!.id}`)[0]!.n).toBe(0);
  });

  test("the settings move the cutoffs, an operator's value is kept and null puts the default back", async () => {
    const sql = adminSql();
    await sql`insert into mdame.llm_cache (cache_key, model, response) values (${hex()}, 'gemini', '{}')`;
    await setClock("10 days");
    expect(kind(await housekeeping(true), "llm_cache").due).toBe(0);
    const changed = await settings({ llm_cache_days: 7 });
    expect(changed.settings.find((s) => s.name === "llm_cache_days")).toMatchObject({ value: 7, default_value: 30 });
    expect(kind(await housekeeping(true), "llm_cache").due).toBe(1);
    const reset = await settings({ llm_cache_days: null });
    expect(reset.settings.find((s) => s.name === "llm_cache_days")!.value).toBe(30);

    const refused = await pipeline.app.request("/pipeline/housekeeping/settings", {
      method: "PATCH",
      headers: pipeline.auth,
      body: JSON.stringify({ llm_cache_days: 0 }),
    });
    expect(refused.status).toBe(400);
    const unknown = await pipeline.app.request("/pipeline/housekeeping/settings", {
      method: "PATCH",
      headers: pipeline.auth,
      body: JSON.stringify({ forever: 1 }),
    });
    expect(unknown.status).toBe(400);
    const badBody = await pipeline.app.request("/pipeline/housekeeping", { method: "POST", headers: pipeline.auth, body: JSON.stringify({ dry_run: "yes" }) });
    expect(badBody.status).toBe(400);
    const malformed = await pipeline.app.request("/pipeline/housekeeping", { method: "POST", headers: pipeline.auth, body: '{"dry_run": ' });
    expect(malformed.status).toBe(400);
    const nothing = await pipeline.app.request("/pipeline/housekeeping/settings", { method: "PATCH", headers: pipeline.auth, body: "{}" });
    expect(nothing.status).toBe(400);
    const noKey = await pipeline.app.request("/pipeline/housekeeping", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(noKey.status).toBe(401);
  });
});

describe("what is never deleted", () => {
  test("a clip a live unit uses stays past its TTL, and goes once the unit is done", async () => {
    const sql = adminSql();
    const entry = await cacheEntry();
    const live = await unit("render", []);
    await sql`insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit, backend)
      values (${live.id}, 0, 'p', 'n', 0, 3, ${entry.hash}, 'ready', ${entry.key}, false, 'procedural-ffmpeg/v1')`;
    await setClock("40 days");
    const kept = await housekeeping(false);
    expect(kind(kept, "scene_cache")).toEqual({ due: 0, deleted: 0, queued: 0 });
    expect(await stored(entry.key)).toBe(true);

    await sql`update mdame.work_units set stage = 'published' where id = ${live.id}`;
    const gone = await housekeeping(false);
    expect(kind(gone, "scene_cache")).toEqual({ due: 1, deleted: 1, queued: 1 });
    expect(await stored(entry.key)).toBe(false);
  });

  test("a cache hit within the TTL pushes the expiry: by lookup, by a planned scene's hit, by a worker's claim", async () => {
    const sql = adminSql();
    const looked = await cacheEntry();
    const planned = await cacheEntry();
    const claimed = await cacheEntry();
    const cold = await cacheEntry();
    const done = await unit("published", []);

    await setClock("20 days");
    const [hit] = await sql`select (mdame.lookup_scene_cache(${looked.hash}, 'procedural-ffmpeg/v1')).asset_key as key`;
    expect(hit!.key).toBe(looked.key);
    await sql`insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit, backend)
      values (${done.id}, 0, 'p', 'n', 0, 3, ${planned.hash}, 'ready', ${planned.key}, true, 'procedural-ffmpeg/v1')`;
    const [claim] = await sql`select state from mdame.claim_scene_generation(${claimed.hash}, 'procedural-ffmpeg/v1', 'worker-it', 60)`;
    expect(claim!.state).toBe("ready");

    await setClock("40 days");
    const pass = await housekeeping(false);
    expect(kind(pass, "scene_cache")).toEqual({ due: 1, deleted: 1, queued: 1 });
    expect(await stored(cold.key)).toBe(false);
    for (const entry of [looked, planned, claimed]) expect(await stored(entry.key)).toBe(true);

    await setClock("51 days");
    const later = await housekeeping(false);
    expect(kind(later, "scene_cache")).toEqual({ due: 3, deleted: 3, queued: 3 });
    for (const entry of [looked, planned, claimed]) expect(await stored(entry.key)).toBe(false);
  });

  test("a render and a voice stay while a publication is deferred or uploading, and for N days after the last confirmation", async () => {
    const sql = adminSql();
    const deferred = await unit("deferred", ["published", "deferred"]);
    const uploading = await unit("publish", ["uploading"]);
    const confirmed = await unit("published", ["published"]);
    await setClock("13 days");
    expect(kind(await housekeeping(false), "renders").due).toBe(0);

    await setClock("40 days");
    const pass = await housekeeping(false);
    expect(kind(pass, "renders")).toEqual({ due: 1, deleted: 1, queued: 1 });
    expect(kind(pass, "voices")).toEqual({ due: 1, deleted: 1, queued: 2 });
    expect(await stored(confirmed.videoKey)).toBe(false);
    for (const u of [deferred, uploading]) {
      for (const key of [u.videoKey, u.audioKey, u.wordsKey]) expect(await stored(key)).toBe(true);
      expect((await unitRow(u.id)).video.deleted_at).toBeUndefined();
    }

    // The deferred publication is confirmed at day 40: its render goes 14 days after that, not before.
    await sql`update mdame.publications set status = 'published', external_id = ${`ext-${crypto.randomUUID()}`}, published_at = mdame.engine_now() where unit_id = ${deferred.id} and status = 'deferred'`;
    await sql`update mdame.work_units set stage = 'published' where id = ${deferred.id}`;
    await setClock("50 days");
    expect(kind(await housekeeping(false), "renders").due).toBe(0);
    await setClock("55 days");
    expect(kind(await housekeeping(false), "renders")).toEqual({ due: 1, deleted: 1, queued: 1 });
    expect(await stored(deferred.videoKey)).toBe(false);
  });

  test("a content-addressed render shared with a unit still in retention survives the older unit's release", async () => {
    const sql = adminSql();
    const sharedKey = `renders/${hex()}.mp4`;
    const older = await unit("published", ["published"], sharedKey);
    await setClock("30 days");
    const newer = await unit("published", ["published"], sharedKey);
    await setClock("35 days");
    const pass = await housekeeping(false);
    expect(kind(pass, "renders")).toEqual({ due: 1, deleted: 1, queued: 0 });
    expect(typeof (await unitRow(older.id)).video.deleted_at).toBe("string");
    expect(await stored(sharedKey)).toBe(true);

    await setClock("50 days");
    expect(kind(await housekeeping(false), "renders")).toEqual({ due: 1, deleted: 1, queued: 1 });
    expect(await stored(sharedKey)).toBe(false);
    expect((await sql`select count(*)::int as n from mdame.publications where unit_id in (${older.id}, ${newer.id})`)[0]!.n).toBe(2);
  });
});

describe("bounded passes and the Storage outbox", () => {
  test("batch size 2 with 5 due deletes 2 per pass", async () => {
    const sql = adminSql();
    for (let i = 0; i < 5; i++) {
      await cacheEntry();
      await sql`insert into mdame.llm_cache (cache_key, model, response) values (${hex()}, 'gemini', '{}')`;
    }
    await settings({ batch_size: 2 });
    await setClock("40 days");
    const passes = [];
    for (let i = 0; i < 4; i++) passes.push(await housekeeping(false));
    expect(passes.map((p) => kind(p, "scene_cache"))).toEqual([
      { due: 5, deleted: 2, queued: 2 },
      { due: 3, deleted: 2, queued: 2 },
      { due: 1, deleted: 1, queued: 1 },
      { due: 0, deleted: 0, queued: 0 },
    ]);
    expect(passes.map((p) => kind(p, "llm_cache").deleted)).toEqual([2, 2, 1, 0]);
    expect((await pipeline.deps.store.list("scenes")).length).toBe(0);
  });

  test("a removal Storage refuses is retried with backoff, never lost; the tick drains it once Storage takes it", async () => {
    const sql = adminSql();
    const entry = await cacheEntry();
    // A directory where the object is: the local store's remove fails on it, as an outage would.
    await rm(join(pipeline.storageDir, entry.key));
    await mkdir(join(pipeline.storageDir, entry.key));
    await writeFile(join(pipeline.storageDir, entry.key, "blocker"), "x");
    await setClock("40 days");
    const pass = await housekeeping(false);
    expect(pass.storage_deletions).toEqual({ removed: 0, failed: 1, pending: 1 });
    const [waiting] =
      await sql`select attempts, last_error, not_before > mdame.engine_now() + interval '50 seconds' as backs_off from mdame.storage_deletions where key = ${entry.key}`;
    expect(waiting).toMatchObject({ attempts: 1, backs_off: true });
    expect(waiting!.last_error).not.toBe("");

    await pipeline.tick();
    expect((await sql`select attempts from mdame.storage_deletions where key = ${entry.key}`)[0]!.attempts).toBe(1);

    await rm(join(pipeline.storageDir, entry.key), { recursive: true });
    await put(entry.key);
    await setClock("40 days 00:02:00");
    const [woken] = await sql`select mdame.wake_due_storage_deletions() as woke`;
    expect(woken!.woke).toBe(true);
    await pipeline.tick();
    expect(await stored(entry.key)).toBe(false);
    expect((await sql`select count(*)::int as n from mdame.storage_deletions`)[0]!.n).toBe(0);
  });

  test("a key queued for deletion that a new cache entry takes again is dropped, and its object stays", async () => {
    const sql = adminSql();
    const entry = await cacheEntry();
    await setClock("40 days");
    await sql`select * from mdame.housekeeping(false)`;
    expect((await sql`select key from mdame.storage_deletions`).map((r) => r.key)).toEqual([entry.key]);
    await sql`insert into mdame.scene_cache (scene_hash, backend, asset_key) values (${entry.hash}, 'comfyui/v1', ${entry.key})`;
    await pipeline.tick();
    expect(await stored(entry.key)).toBe(true);
    expect((await sql`select count(*)::int as n from mdame.storage_deletions`)[0]!.n).toBe(0);
    const [dropped] = await sql`select detail from mdame.events where kind = 'storage_deletion_dropped'`;
    expect(dropped!.detail).toMatchObject({ key: entry.key, kind: "scene" });
  });

  test("GET /pipeline/storage/usage lists Storage by folder and the database's largest tables", async () => {
    await cacheEntry();
    await cacheEntry();
    const response = await pipeline.app.request("/pipeline/storage/usage?tables=200", { headers: pipeline.auth });
    expect(response.status).toBe(200);
    const usage = StorageUsage.parse(await response.json());
    const scenes = usage.storage.prefixes.find((p) => p.prefix === "scenes")!;
    const listed = await pipeline.deps.store.list("scenes");
    expect(scenes.objects).toBe(listed.length);
    expect(scenes.bytes).toBe(listed.reduce((sum, a) => sum + a.size_bytes, 0));
    expect(usage.database.database_bytes).toBeGreaterThan(0);
    const names = usage.database.tables.map((t) => t.name);
    expect(names).toContain("pgmq.q_stage_tasks");
    expect(names).toContain("pgmq.a_stage_tasks");
    expect(names).toContain("mdame.scene_cache");

    const unauthorised = await pipeline.app.request("/pipeline/storage/usage");
    expect(unauthorised.status).toBe(401);
    const badQuery = await pipeline.app.request("/pipeline/storage/usage?tables=0", { headers: pipeline.auth });
    expect(badQuery.status).toBe(400);
  });
});
