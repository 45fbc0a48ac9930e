import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as db from "../../stack/db.ts";
import { createRenderDefinition } from "../../render-runner/render-task.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import type { RenderJob } from "../../shared/contracts/queue.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import type { CallbackAttempt, CallbackDelivery, CallbackSender } from "../../shared/worker/callback-sender.ts";
import { PgmqWorkerQueue } from "../../shared/worker/pgmq-worker-queue.ts";
import { PullWorker } from "../../shared/worker/pull-worker.ts";
import { sceneClip } from "../fixtures/render-inputs.ts";
import { spokenVoice } from "../../scripts/bench/spoken-voice.ts";

/**
 * One render-runner with concurrency 2 against the real `render` queue: two jobs are leased at
 * the same time (two messages invisible, each read once), both are rendered by real FFmpeg and
 * both are reported; each lease is kept alive by its own heartbeats.
 */

let sql: Sql;
let dir = "";
const delivered: CallbackDelivery[] = [];
const sender: CallbackSender = {
  send(delivery) {
    delivered.push(delivery);
    return Promise.resolve<CallbackAttempt>({ ok: true, status: 200 });
  },
};

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(LOCAL_DB_URL, { max: 2, application: "render-concurrency-test" });
  await sql`update cron.job set active = false`;
  dir = await mkdtemp(join(tmpdir(), "mdame-render-concurrency-"));
}, 120_000);

afterAll(async () => {
  if (sql) {
    await sql`update cron.job set active = true`;
    await sql.end({ timeout: 2 });
  }
  await db.reset({ log: () => {} });
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

test("two render jobs are in flight at once in one runner, each under its own lease", async () => {
  const store = new LocalDirectoryStore(join(dir, "store"));
  await mkdir(join(dir, "work"));
  const voice = await spokenVoice(dir, "voice", ["Two videos are rendered side by side on this machine."], { gapMs: 0, levelDb: 0 });
  await store.putFile("voice/v.mp3", voice.path, "audio/mpeg");
  await store.putFile("scenes/clip.mp4", await sceneClip(join(dir, "clip.mp4"), 2), "video/mp4");

  const unitIds = [crypto.randomUUID(), crypto.randomUUID()];
  for (const [i, unitId] of unitIds.entries()) {
    const job: RenderJob = {
      run_id: crypto.randomUUID(),
      unit_id: unitId,
      dimension_id: "tech-explained",
      title: `Side by side ${i}`,
      audio_key: "voice/v.mp3",
      audio_duration_ms: voice.durationMs,
      words: voice.words,
      scenes: [{ index: 0, asset_key: "scenes/clip.mp4", first_word: 0 }],
      caption_font: "DejaVu Sans",
      caption_profile: "intersection",
      step_token: `step:unit-${i}:6:abc`,
    };
    await sql`select pgmq.send('render', ${sql.json(job as never)})`;
  }

  const logger = createLogger("render-concurrency-test", { write: () => {} });
  const worker = new PullWorker({
    definition: createRenderDefinition({ store, workDir: join(dir, "work"), threads: 1 }),
    queue: new PgmqWorkerQueue(sql),
    callbacks: sender,
    logger,
    workerId: "render-runner-concurrency-test",
    vtSeconds: 6,
    concurrency: 2,
    pollIntervalMs: { min: 50, max: 200 },
  });
  worker.start();
  let maxLeased = 0;
  let maxInFlight = 0;
  let leaseMoved = false;
  const firstVt = new Map<number, number>();
  const deadline = Date.now() + 240_000;
  try {
    while (delivered.length < 2 && Date.now() < deadline) {
      const rows = await sql`select msg_id, read_ct, extract(epoch from vt) * 1000 as vt_ms from pgmq.q_render where vt > now()`;
      maxLeased = Math.max(maxLeased, rows.length);
      maxInFlight = Math.max(maxInFlight, worker.inFlight);
      for (const row of rows) {
        const id = Number(row.msg_id);
        const vt = Number(row.vt_ms);
        if (!firstVt.has(id)) firstVt.set(id, vt);
        else if (vt > firstVt.get(id)! + 500) leaseMoved = true;
        expect(Number(row.read_ct)).toBe(1);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await worker.stop({ graceMs: 10_000 });
  }

  expect(maxLeased).toBe(2);
  expect(maxInFlight).toBe(2);
  // Renders outlast the 6 s lease: heartbeats moved it.
  expect(leaseMoved).toBe(true);
  expect(delivered.map((d) => d.body.kind)).toEqual(["render.completed", "render.completed"]);
  expect(new Set(delivered.map((d) => (d.body as { unit_id: string }).unit_id))).toEqual(new Set(unitIds));
}, 300_000);
