import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as db from "../../stack/db.ts";
import { loadOrCreateSecrets } from "../../stack/stack-env.ts";
import { LOCAL_DB_URL, localComponentDbUrl, localEngineDbUrl } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { queuesWithoutWorkers, WorkerHeartbeatRow } from "../../shared/db/rpc/worker-heartbeats.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import type { CallbackAttempt, CallbackDelivery, CallbackSender } from "../../shared/worker/callback-sender.ts";
import { PgmqWorkerQueue } from "../../shared/worker/pgmq-worker-queue.ts";
import { PullWorker, type QueueTaskDefinition } from "../../shared/worker/pull-worker.ts";
import { PgWorkerHeartbeats } from "../../shared/worker/worker-heartbeat.ts";
import { workerIdentity } from "../../shared/worker/worker-id.ts";

/**
 * Pull workers scaled out on one queue, against the real database as the gpu-worker's role: two workers
 * with concurrency 2 each take scene jobs side by side, each job is done once, and both beat into
 * mdame.worker_heartbeats with the jobs they hold; a clean stop is recorded; and
 * mdame.queues_without_workers (the edge's) names a queue whose workers all went silent while jobs wait.
 */

let admin: Sql;
let engine: Sql;
let gpu: Sql;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  admin = createSql(LOCAL_DB_URL, { max: 2, application: "worker-heartbeats-test" });
  const secrets = loadOrCreateSecrets();
  engine = createSql(localEngineDbUrl(secrets.ENGINE_DB_PASSWORD), { max: 2, application: "worker-heartbeats-test-engine" });
  gpu = createSql(localComponentDbUrl("gpu-worker", secrets.GPU_WORKER_DB_PASSWORD), { max: 4, application: "worker-heartbeats-test-gpu" });
  // No tick or recovery job may touch the queues while the workers run.
  await admin`update cron.job set active = false`;
}, 120_000);

afterAll(async () => {
  if (admin) {
    await admin`update cron.job set active = true`;
    await admin.end({ timeout: 2 });
  }
  await engine?.end({ timeout: 2 });
  await gpu?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 120_000);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await sleep(25);
  }
}

async function heartbeatRows(): Promise<WorkerHeartbeatRow[]> {
  return (await admin`select * from mdame.worker_heartbeats order by worker_id`).map((row) => WorkerHeartbeatRow.parse({ ...row }));
}

describe("two workers on one queue", () => {
  test("take jobs concurrently, do each once, and beat with the jobs they hold; a clean stop is recorded", async () => {
    const JOBS = 8;
    const sceneIds = Array.from({ length: JOBS }, () => crypto.randomUUID());
    for (const sceneId of sceneIds) await admin`select pgmq.send('visual_generation', ${admin.json({ scene_id: sceneId })})`;

    let running = 0;
    let maxRunning = 0;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const definition: QueueTaskDefinition<{ scene_id: string }> = {
      queue: "visual_generation",
      parse: (raw) => raw as { scene_id: string },
      logFields: () => ({}),
      run: async (payload) => {
        ran.push(payload.scene_id);
        running++;
        maxRunning = Math.max(maxRunning, running);
        await released;
        running--;
        return {
          kind: "visual_generation.completed",
          scene_id: payload.scene_id,
          scene_hash: "c".repeat(64),
          asset_key: `scenes/${"c".repeat(64)}.mp4`,
          backend: "test/1",
          cache_hit: false,
        };
      },
      failed: () => null,
    };
    // The completion RPC behind worker-callback archives the job; here the callback does it directly.
    const delivered: CallbackDelivery[] = [];
    const sender: CallbackSender = {
      async send(delivery) {
        await admin`select pgmq.archive('visual_generation', ${String(delivery.body.msg_id)}::bigint)`;
        // Counted once archived: the test reads the queue as soon as every job is delivered.
        delivered.push(delivery);
        return { ok: true, status: 200 } satisfies CallbackAttempt;
      },
    };

    const logger = createLogger("worker-heartbeats-test", { write: () => {} });
    const identities = [workerIdentity({ name: "gpu-worker", host: "box-a", pid: 4242 }), workerIdentity({ name: "gpu-worker", host: "box-b", pid: 4242 })];
    const workers = identities.map(({ workerId, host, pid }) =>
      new PullWorker({
        definition,
        queue: new PgmqWorkerQueue(gpu),
        callbacks: sender,
        logger,
        workerId,
        vtSeconds: 30,
        concurrency: 2,
        pollIntervalMs: { min: 20, max: 100 },
        presence: { heartbeats: new PgWorkerHeartbeats(gpu), host, pid, intervalMs: 100 },
      })
    );
    for (const w of workers) w.start();

    // Four jobs in flight at once (two per worker), and both rows say each holds two.
    await waitFor(async () => (await heartbeatRows()).filter((r) => r.jobs_held === 2).length === 2);
    expect(running).toBe(4);
    const rows = await heartbeatRows();
    expect(rows.map((r) => [r.worker_id, r.queue_name, r.host, r.pid, r.concurrency, r.jobs_held, r.stopped_at]).sort()).toEqual(
      identities.map((i) => [i.workerId, "visual_generation", i.host, 4242, 2, 2, null]).sort(),
    );
    const [status] = await admin`select mdame.worker_status(h, clock_timestamp()) as s from mdame.worker_heartbeats h limit 1`;
    expect(status!.s).toBe("live");

    release();
    await waitFor(() => delivered.length === JOBS);
    expect(maxRunning).toBe(4);
    expect(ran.sort()).toEqual([...sceneIds].sort());
    expect(delivered.map((d) => (d.body as { scene_id: string }).scene_id).sort()).toEqual([...sceneIds].sort());
    expect(new Set(delivered.map((d) => d.body.worker_id))).toEqual(new Set(identities.map((i) => i.workerId)));
    // This test's jobs only: the minutely recovery may queue work of other tests' units meanwhile.
    const [left] = await admin`select count(*)::int as n from pgmq.q_visual_generation where message->>'scene_id' = any(${sceneIds})`;
    expect(left!.n).toBe(0);

    await workers[0]!.stop();
    const afterOne = Object.fromEntries((await heartbeatRows()).map((r) => [r.worker_id, r]));
    expect(afterOne[identities[0]!.workerId]).toMatchObject({ jobs_held: 0, stopped_at: expect.any(Date) });
    expect(afterOne[identities[1]!.workerId]!.stopped_at).toBeNull();
    await workers[1]!.stop();
    expect((await heartbeatRows()).every((r) => r.stopped_at !== null)).toBe(true);
  }, 60_000);
});

describe("queues without workers", () => {
  test("a queue whose workers are all stale while jobs wait is named; a live worker clears it", async () => {
    await admin`delete from mdame.worker_heartbeats`;
    await admin`delete from pgmq.q_visual_generation`;
    await admin`select pgmq.send('visual_generation', ${admin.json({ scene_id: crypto.randomUUID() })})`;
    expect((await queuesWithoutWorkers(engine)).map((q) => q.queue_name)).toEqual(["visual_generation"]);

    const heartbeats = new PgWorkerHeartbeats(gpu);
    await heartbeats.beat({ workerId: "gpu-worker-a", queue: "visual_generation", host: "gpu-a", pid: 1, concurrency: 1, jobsHeld: 0, beatIntervalS: 15 });
    await heartbeats.beat({ workerId: "gpu-worker-b", queue: "visual_generation", host: "gpu-b", pid: 1, concurrency: 1, jobsHeld: 1, beatIntervalS: 15 });
    expect(await queuesWithoutWorkers(engine)).toEqual([]);

    // Both fall silent (crashed machines): three missed beats make them stale.
    await admin`update mdame.worker_heartbeats set last_beat_at = clock_timestamp() - interval '2 minutes'`;
    const [alert] = await queuesWithoutWorkers(engine);
    expect(alert).toMatchObject({ queue_name: "visual_generation", waiting: 1, workers_known: 2 });
    expect(alert!.oldest_waiting_s).toBeGreaterThanOrEqual(0);
    expect(await queuesWithoutWorkers(engine, 600)).toEqual([]);

    await heartbeats.beat({ workerId: "gpu-worker-a", queue: "visual_generation", host: "gpu-a", pid: 1, concurrency: 1, jobsHeld: 0, beatIntervalS: 15 });
    expect(await queuesWithoutWorkers(engine)).toEqual([]);
  }, 30_000);
});
