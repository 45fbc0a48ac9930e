import { expect, test } from "bun:test";
import { z } from "zod";
import type { WorkerCallback } from "../../shared/contracts/callbacks.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { type CallbackAttempt, type CallbackDelivery, type CallbackSender, HttpCallbackSender } from "../../shared/worker/callback-sender.ts";
import { toQueueMessage, toSafeMsgId } from "../../shared/worker/pgmq-worker-queue.ts";
import { generateWebhookSecret, verifyWebhook } from "../../shared/webhooks/standard-webhooks.ts";
import { NonRetriableError } from "../../shared/errors.ts";
import {
  MessageGoneError,
  PullWorker,
  type PullWorkerOptions,
  type QueueMessage,
  type QueueTaskDefinition,
  type TaskContext,
  uuidField,
  type WorkerQueue,
} from "../../shared/worker/pull-worker.ts";
import { sleep, waitFor } from "../fixtures/wait.ts";

// ---------- fakes ----------

interface StoredMessage {
  msg_id: number;
  read_ct: number;
  enqueued_at: Date;
  visibleAt: number;
  message: unknown;
}

/** An in-memory queue with pgmq's read/set_vt semantics; archive/delete exist only to prove the worker never calls them. */
class FakeQueue implements WorkerQueue {
  readonly messages = new Map<number, StoredMessage>();
  readonly reads: Array<{ queue: string; vtSeconds: number; qty: number; at: number }> = [];
  readonly setVts: Array<{ queue: string; msgId: number; vtSeconds: number; at: number }> = [];
  readonly removals: Array<{ op: string; msgId: number }> = [];
  failReads = 0;
  #nextId = 1;

  send(message: unknown): number {
    const id = this.#nextId++;
    this.messages.set(id, { msg_id: id, read_ct: 0, enqueued_at: new Date(), visibleAt: 0, message });
    return id;
  }

  read(queue: string, vtSeconds: number, qty: number): Promise<QueueMessage[]> {
    this.reads.push({ queue, vtSeconds, qty, at: Date.now() });
    if (this.failReads > 0) {
      this.failReads--;
      return Promise.reject(new Error("connection refused"));
    }
    const now = Date.now();
    const out: QueueMessage[] = [];
    for (const m of this.messages.values()) {
      if (out.length >= qty) break;
      if (m.visibleAt > now) continue;
      m.read_ct++;
      m.visibleAt = now + vtSeconds * 1000;
      out.push({ msg_id: m.msg_id, read_ct: m.read_ct, enqueued_at: m.enqueued_at, vt: new Date(m.visibleAt), message: structuredClone(m.message) });
    }
    return Promise.resolve(out);
  }

  setVt(queue: string, msgId: number, vtSeconds: number): Promise<void> {
    this.setVts.push({ queue, msgId, vtSeconds, at: Date.now() });
    const m = this.messages.get(msgId);
    if (!m) return Promise.reject(new MessageGoneError(queue, msgId));
    m.visibleAt = Date.now() + vtSeconds * 1000;
    return Promise.resolve();
  }

  archive(msgId: number) {
    this.removals.push({ op: "archive", msgId });
    this.messages.delete(msgId);
  }

  delete(msgId: number) {
    this.removals.push({ op: "delete", msgId });
    this.messages.delete(msgId);
  }
}

class FakeSender implements CallbackSender {
  readonly attempts: CallbackDelivery[] = [];
  /** Scripted results, consumed in order; afterwards every attempt succeeds. */
  script: Array<CallbackAttempt | Error> = [];

  send(delivery: CallbackDelivery): Promise<CallbackAttempt> {
    this.attempts.push(structuredClone(delivery));
    const next = this.script.shift();
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve(next ?? { ok: true, status: 200 });
  }

  get bodies(): WorkerCallback[] {
    return this.attempts.map((a) => a.body);
  }
}

function captureLogs() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger("test", { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

// ---------- a small queue definition ----------

const HASH = "a".repeat(64);
const Job = z.object({
  run_id: z.string().uuid(),
  scene_id: z.string().uuid(),
  behaviour: z.enum(["ok", "throw", "throw-final", "wait"]).default("ok"),
}).strict();
type Job = z.infer<typeof Job>;

function job(behaviour: Job["behaviour"] = "ok"): Job {
  return { run_id: crypto.randomUUID(), scene_id: crypto.randomUUID(), behaviour };
}

function definition(run: (payload: Job, ctx: TaskContext) => Promise<void> = async () => {}): QueueTaskDefinition<Job> & { runs: Job[] } {
  const runs: Job[] = [];
  return {
    runs,
    queue: "visual_generation",
    parse: (raw) => Job.parse(raw),
    logFields: (p) => ({ execution_id: p.run_id, stage: "visual_generation", step_token: "step:test:0:x" }),
    run: async (payload, ctx) => {
      runs.push(payload);
      await run(payload, ctx);
      if (payload.behaviour === "throw") throw new Error("ffmpeg exited with code 1");
      if (payload.behaviour === "throw-final") throw new NonRetriableError("scene prompt refers to nothing drawable");
      return {
        kind: "visual_generation.completed",
        scene_id: payload.scene_id,
        scene_hash: HASH,
        asset_key: `scenes/${HASH}.mp4`,
        backend: "test/1",
        cache_hit: false,
      };
    },
    failed: ({ payload, raw, error }) => {
      const sceneId = payload?.scene_id ?? uuidField(raw, "scene_id");
      return sceneId ? { kind: "visual_generation.failed", scene_id: sceneId, error } : null;
    },
  };
}

function makeWorker(def: QueueTaskDefinition<Job>, overrides: Partial<PullWorkerOptions<Job>> = {}) {
  const queue = new FakeQueue();
  const sender = new FakeSender();
  const { logger, lines } = captureLogs();
  const worker = new PullWorker<Job>({
    definition: def,
    queue,
    callbacks: sender,
    logger,
    workerId: "gpu-worker-test-1",
    vtSeconds: 30,
    pollIntervalMs: { min: 5, max: 20 },
    callbackRetryDelaysMs: [5, 5, 5],
    ...overrides,
  });
  return { worker, queue, sender, lines };
}

// ---------- tests ----------

test("processes a message, sends exactly one callback with a deterministic webhook-id and never removes the message", async () => {
  const def = definition();
  const { worker, queue, sender, lines } = makeWorker(def);
  const payload = job();
  const msgId = queue.send(payload);
  worker.start();
  await waitFor(() => sender.attempts.length === 1);
  await sleep(30);
  await worker.stop();

  expect(def.runs).toEqual([payload]);
  expect(sender.attempts).toHaveLength(1);
  const [delivery] = sender.attempts;
  expect(delivery.webhookId).toBe(`mdame:visual_generation:${msgId}:1:visual_generation.completed`);
  expect(delivery.body).toEqual({
    kind: "visual_generation.completed",
    msg_id: msgId,
    worker_id: "gpu-worker-test-1",
    scene_id: payload.scene_id,
    scene_hash: HASH,
    asset_key: `scenes/${HASH}.mp4`,
    backend: "test/1",
    cache_hit: false,
  });
  // The completion RPC archives it; the worker only leased it.
  expect(queue.removals).toEqual([]);
  expect(queue.messages.get(msgId)?.read_ct).toBe(1);
  expect(queue.reads.every((r) => r.vtSeconds === 30 && r.queue === "visual_generation")).toBe(true);
  const finished = lines.find((l) => l.msg === "task finished");
  expect(finished).toMatchObject({
    execution_id: payload.run_id,
    stage: "visual_generation",
    step_token: "step:test:0:x",
    msg_id: msgId,
    worker_id: "gpu-worker-test-1",
  });
});

test("heartbeats extend the visibility timeout while a long task runs, and stop when it ends", async () => {
  let heartbeatError: unknown = "not called";
  const def = definition(async (_p, ctx) => {
    await sleep(200);
    heartbeatError = await ctx.heartbeat().then(() => null, (e) => e);
  });
  const { worker, queue, sender } = makeWorker(def, { heartbeatIntervalMs: 25 });
  const msgId = queue.send(job());
  worker.start();
  await waitFor(() => sender.attempts.length === 1);
  const beatsWhileRunning = queue.setVts.filter((s) => s.msgId === msgId).length;
  await sleep(120);
  await worker.stop();

  expect(heartbeatError).toBeNull();
  // ~200 ms at a 25 ms interval, plus the explicit heartbeat; allow for a slow machine.
  expect(beatsWhileRunning).toBeGreaterThanOrEqual(4);
  expect(queue.setVts.every((s) => s.vtSeconds === 30 && s.queue === "visual_generation")).toBe(true);
  // No heartbeat after the callback went out.
  expect(queue.setVts.filter((s) => s.msgId === msgId).length).toBe(beatsWhileRunning);
  // Each heartbeat pushed visibility out: the message is still invisible well after the task started.
  expect(queue.messages.get(msgId)!.visibleAt).toBeGreaterThan(Date.now() + 20_000);
});

test("the default heartbeat interval is a third of the visibility timeout", async () => {
  const originalSetInterval = globalThis.setInterval;
  const intervals: number[] = [];
  globalThis.setInterval = ((fn: () => void, ms: number) => {
    intervals.push(ms);
    return originalSetInterval(fn, ms);
  }) as typeof setInterval;
  try {
    const { worker, queue, sender } = makeWorker(definition(), { vtSeconds: 45 });
    queue.send(job());
    worker.start();
    await waitFor(() => sender.attempts.length === 1);
    await worker.stop();
  } finally {
    globalThis.setInterval = originalSetInterval;
  }
  expect(intervals).toContain(15_000);
});

test("stop() stops reading and waits for in-flight work and its callback", async () => {
  const gate = deferred();
  const def = definition(() => gate.promise);
  const { worker, queue, sender } = makeWorker(def);
  queue.send(job());
  worker.start();
  await waitFor(() => def.runs.length === 1);

  let stopped = false;
  const stopping = worker.stop().then(() => {
    stopped = true;
  });
  const readsAtStop = queue.reads.length;
  queue.send(job());
  await sleep(60);
  expect(stopped).toBe(false);
  expect(worker.inFlight).toBe(1);

  gate.resolve();
  await stopping;
  expect(sender.bodies.map((b) => b.kind)).toEqual(["visual_generation.completed"]);
  expect(queue.reads.length).toBeLessThanOrEqual(readsAtStop + 1);
  expect(def.runs).toHaveLength(1);
  expect(worker.state).toBe("stopped");
});

test("stop() with a grace period aborts a task that outlives it, and sends no callback for it", async () => {
  let sawAbort = false;
  const def = definition((_p, ctx) =>
    new Promise<void>((_resolve, reject) => {
      ctx.signal.addEventListener("abort", () => {
        sawAbort = true;
        reject(ctx.signal.reason);
      });
    })
  );
  const { worker, queue, sender } = makeWorker(def);
  queue.send(job());
  worker.start();
  await waitFor(() => def.runs.length === 1);
  await worker.stop({ graceMs: 30 });
  expect(sawAbort).toBe(true);
  expect(sender.attempts).toEqual([]);
});

test("a task that throws sends a failed callback, retriable unless the error says otherwise", async () => {
  const def = definition();
  const { worker, queue, sender } = makeWorker(def);
  const transient = job("throw");
  const final = job("throw-final");
  const a = queue.send(transient);
  const b = queue.send(final);
  worker.start();
  await waitFor(() => sender.attempts.length === 2);
  await worker.stop();

  const byMsg = new Map(sender.bodies.map((body) => [body.msg_id, body]));
  expect(byMsg.get(a)).toEqual({
    kind: "visual_generation.failed",
    msg_id: a,
    worker_id: "gpu-worker-test-1",
    scene_id: transient.scene_id,
    error: { message: "ffmpeg exited with code 1", retriable: true },
  });
  expect(byMsg.get(b)).toMatchObject({
    kind: "visual_generation.failed",
    scene_id: final.scene_id,
    error: { message: "scene prompt refers to nothing drawable", retriable: false },
  });
  expect(sender.attempts.map((d) => d.webhookId)).toContain(`mdame:visual_generation:${a}:1:visual_generation.failed`);
  expect(queue.removals).toEqual([]);
});

test("an invalid message is failed without retry when it names its scene, and left alone when it does not", async () => {
  const def = definition();
  const { worker, queue, sender, lines } = makeWorker(def);
  const sceneId = crypto.randomUUID();
  const named = queue.send({ scene_id: sceneId, prompt: 42 });
  const anonymous = queue.send({ hello: "world" });
  worker.start();
  await waitFor(() => sender.attempts.length === 1 && lines.some((l) => l.msg?.toString().includes("dead-lettering")));
  await sleep(30);
  await worker.stop();

  expect(def.runs).toEqual([]);
  expect(sender.attempts).toHaveLength(1);
  const body = sender.bodies[0];
  expect(body).toMatchObject({ kind: "visual_generation.failed", msg_id: named, scene_id: sceneId, error: { retriable: false } });
  expect(body.kind === "visual_generation.failed" && body.error.message).toContain("invalid visual_generation message");
  expect(body.kind === "visual_generation.failed" && body.error.message).toContain("run_id");
  const left = lines.find((l) => l.msg?.toString().includes("dead-lettering"));
  expect(left).toMatchObject({ msg_id: anonymous, level: 50 });
  expect(queue.messages.has(anonymous)).toBe(true);
  expect(queue.removals).toEqual([]);
});

test("callback delivery retries 5xx and network errors with the same webhook-id, then gives up", async () => {
  const def = definition();
  const { worker, queue, sender, lines } = makeWorker(def, { callbackRetryDelaysMs: [5, 10, 15] });
  sender.script = [
    { ok: false, retriable: true, status: 503, message: "unavailable" },
    new Error("ECONNREFUSED"),
    { ok: false, retriable: true, status: null, message: "timeout" },
    { ok: false, retriable: true, status: 502, message: "bad gateway" },
    { ok: false, retriable: true, status: 502, message: "never used" },
  ];
  const msgId = queue.send(job());
  worker.start();
  await waitFor(() => lines.some((l) => l.msg?.toString().includes("gave up")));
  await worker.stop();

  // 3 delays -> 4 attempts, all for the same delivery.
  expect(sender.attempts).toHaveLength(4);
  expect(new Set(sender.attempts.map((a) => a.webhookId))).toEqual(new Set([`mdame:visual_generation:${msgId}:1:visual_generation.completed`]));
  expect(sender.script).toHaveLength(1);
  // Given up: the message stays queued and comes back after its vt.
  expect(queue.messages.has(msgId)).toBe(true);
});

test("callback delivery stops at a 4xx and succeeds after a transient failure", async () => {
  const def = definition();
  const { worker, queue, sender, lines } = makeWorker(def);
  sender.script = [
    { ok: false, retriable: false, status: 401, message: "bad signature" },
    { ok: false, retriable: true, status: 500, message: "boom" },
    { ok: true, status: 200 },
  ];
  const first = queue.send(job());
  worker.start();
  await waitFor(() => sender.attempts.length === 1);
  const second = queue.send(job());
  worker.wake();
  await waitFor(() => lines.some((l) => l.msg === "callback delivered"));
  await worker.stop();

  expect(sender.attempts.map((a) => a.body.msg_id)).toEqual([first, second, second]);
  expect(lines.find((l) => l.msg === "callback rejected; not retrying")).toMatchObject({ http_status: 401, status: "failed", msg_id: first });
});

test("a lost lease aborts the task and sends nothing", async () => {
  let aborted: unknown = null;
  const def = definition(async (_p, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
    aborted = ctx.signal.reason;
    ctx.signal.throwIfAborted();
  });
  const { worker, queue, sender } = makeWorker(def, { heartbeatIntervalMs: 10 });
  const msgId = queue.send(job());
  worker.start();
  await waitFor(() => def.runs.length === 1);
  // Someone else completed it: the completion RPC archived the message.
  queue.messages.delete(msgId);
  await waitFor(() => aborted !== null);
  await worker.stop();
  expect(aborted).toBeInstanceOf(MessageGoneError);
  expect(sender.attempts).toEqual([]);
});

test("concurrency bounds the messages in flight and the qty read", async () => {
  let running = 0;
  let peak = 0;
  const def = definition(async () => {
    running++;
    peak = Math.max(peak, running);
    await sleep(40);
    running--;
  });
  const { worker, queue, sender } = makeWorker(def, { concurrency: 2 });
  for (let i = 0; i < 5; i++) queue.send(job());
  worker.start();
  await waitFor(() => sender.attempts.length === 5);
  await worker.stop();
  expect(peak).toBe(2);
  expect(Math.max(...queue.reads.map((r) => r.qty))).toBe(2);
  expect(new Set(sender.bodies.map((b) => b.msg_id)).size).toBe(5);
});

test("an empty queue is polled with growing delays up to the maximum", async () => {
  const def = definition();
  const { worker, queue } = makeWorker(def, { pollIntervalMs: { min: 20, max: 160 } });
  worker.start();
  await sleep(700);
  await worker.stop();
  const gaps = queue.reads.slice(1).map((r, i) => r.at - queue.reads[i].at);
  expect(gaps.length).toBeGreaterThanOrEqual(4);
  expect(gaps[0]).toBeLessThan(gaps[2]);
  expect(Math.max(...gaps)).toBeGreaterThanOrEqual(140);
  // Capped: no gap far beyond the maximum (allowing for a slow timer).
  expect(gaps.slice(-2).every((g) => g < 400)).toBe(true);
});

test("wake() polls at once instead of waiting out the idle delay", async () => {
  const def = definition();
  const { worker, queue, sender } = makeWorker(def, { pollIntervalMs: { min: 3000, max: 3000 } });
  worker.start();
  await waitFor(() => queue.reads.length === 1);
  queue.send(job());
  const wokenAt = Date.now();
  worker.wake();
  await waitFor(() => sender.attempts.length === 1, 2500);
  expect(Date.now() - wokenAt).toBeLessThan(1500);
  await worker.stop();
});

test("read errors are logged and retried with backoff instead of crashing the loop", async () => {
  const def = definition();
  const { worker, queue, sender, lines } = makeWorker(def, { errorBackoffMaxMs: 40 });
  queue.failReads = 3;
  queue.send(job());
  worker.start();
  await waitFor(() => sender.attempts.length === 1);
  await worker.stop();
  expect(lines.filter((l) => l.msg === "queue read failed")).toHaveLength(1);
  expect(lines.filter((l) => l.msg === "queue read recovered after 3 failures")).toHaveLength(1);
});

test("HttpCallbackSender signs each attempt with Standard Webhooks and classifies responses", async () => {
  const secret = generateWebhookSecret();
  const requests: Request[] = [];
  const answers: [number, string][] = [[200, '{"ok":true,"outcome":"retry"}'], [503, "status 503"], [409, "status 409"], [200, '{"ok":true,"surprise":1}']];
  // The sender calls fetch with a URL string and an init, so the fake takes those.
  const fakeFetch = ((input: string | URL, init?: RequestInit) => {
    const request = new Request(String(input), init);
    requests.push(request);
    const answer = answers.shift();
    if (answer === undefined) return Promise.reject(new TypeError("fetch failed"));
    return Promise.resolve(new Response(answer[1], { status: answer[0] }));
  }) as typeof fetch;
  const sender = new HttpCallbackSender({
    url: "http://edge.test/functions/v1/worker-callback",
    serviceRoleKey: "service-role-key-0123456789",
    webhookSecret: secret,
    fetch: fakeFetch,
  });
  const delivery: CallbackDelivery = {
    webhookId: "mdame:render:7:1:render.failed",
    body: { kind: "render.failed", msg_id: 7, unit_id: crypto.randomUUID(), error: { message: "x", retriable: true }, worker_id: "w" },
  };

  expect(await sender.send(delivery)).toEqual({ ok: true, status: 200 });
  expect(await sender.send(delivery)).toMatchObject({ ok: false, retriable: true, status: 503 });
  expect(await sender.send(delivery)).toMatchObject({ ok: false, retriable: false, status: 409, message: "status 409" });
  // A 2xx whose answer is not the receiver's contract is not taken for a delivery, nor retried.
  expect(await sender.send(delivery)).toMatchObject({
    ok: false,
    retriable: false,
    status: 200,
    message: 'the answer broke its contract: {"ok":true,"surprise":1}',
  });
  expect(await sender.send(delivery)).toMatchObject({ ok: false, retriable: true, status: null, message: "fetch failed" });

  const first = requests[0];
  expect(first.method).toBe("POST");
  expect(first.url).toBe("http://edge.test/functions/v1/worker-callback");
  expect(first.headers.get("authorization")).toBe("Bearer service-role-key-0123456789");
  expect(first.headers.get("content-type")).toBe("application/json");
  const body = await first.text();
  expect(JSON.parse(body)).toEqual(delivery.body);
  expect(await verifyWebhook(secret, first.headers, body)).toMatchObject({ id: delivery.webhookId });
  // Every attempt of one delivery carries the same id.
  expect(new Set(requests.map((r) => r.headers.get("webhook-id")))).toEqual(new Set([delivery.webhookId]));
  await expect(verifyWebhook(generateWebhookSecret(), first.headers, body)).rejects.toThrow("no matching signature");
});

test("pgmq rows map to QueueMessage with bigint msg_id converted safely", () => {
  expect(toSafeMsgId("42")).toBe(42);
  expect(toSafeMsgId(42n)).toBe(42);
  expect(toSafeMsgId(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  expect(() => toSafeMsgId("9007199254740993")).toThrow("not a safe positive integer");
  expect(() => toSafeMsgId(2n ** 60n)).toThrow("not a safe positive integer");
  expect(() => toSafeMsgId("0")).toThrow();
  expect(() => toSafeMsgId("12abc")).toThrow();

  const message = toQueueMessage({ msg_id: "9", read_ct: 2, enqueued_at: "2025-01-01T00:00:00Z", vt: new Date("2025-01-01T00:01:00Z"), message: '{"a":1}' });
  expect(message).toEqual({ msg_id: 9, read_ct: 2, enqueued_at: new Date("2025-01-01T00:00:00Z"), vt: new Date("2025-01-01T00:01:00Z"), message: { a: 1 } });
});

test("heartbeats that keep failing let the lease expire, which aborts the task without a callback", async () => {
  let reason: unknown = null;
  const def = definition(async (_p, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
    reason = ctx.signal.reason;
    throw ctx.signal.reason;
  });
  const { worker, queue, sender, lines } = makeWorker(def, { vtSeconds: 1, heartbeatIntervalMs: 100 });
  // The database is unreachable from the moment the message was read.
  queue.setVt = () => new Promise(() => {});
  queue.send(job());
  worker.start();
  await waitFor(() => reason !== null, 4000);
  await worker.stop();
  expect((reason as Error).name).toBe("LeaseExpiredError");
  expect(sender.attempts).toEqual([]);
  expect(lines.some((l) => l.msg === "lease expired; abandoning the work")).toBe(true);
});

test("a task result that breaks the callback contract is reported as a final failure", async () => {
  const def = definition();
  const run = def.run;
  def.run = async (payload, ctx) => ({ ...(await run(payload, ctx)), asset_key: "" }) as Awaited<ReturnType<typeof run>>;
  const { worker, queue, sender } = makeWorker(def);
  const payload = job();
  queue.send(payload);
  worker.start();
  await waitFor(() => sender.attempts.length === 1);
  await worker.stop();
  expect(sender.bodies[0]).toMatchObject({ kind: "visual_generation.failed", scene_id: payload.scene_id, error: { retriable: false } });
  expect(sender.bodies[0].kind === "visual_generation.failed" && sender.bodies[0].error.message).toContain("invalid callback body: asset_key");
});

test("heartbeats stop before the callback goes out, so they cannot undo what the completion RPC set", async () => {
  const def = definition(() => sleep(60));
  const { worker, queue, sender } = makeWorker(def, { heartbeatIntervalMs: 10 });
  const send = sender.send.bind(sender);
  let beatsWhenSent = -1;
  sender.send = async (delivery) => {
    beatsWhenSent = queue.setVts.length;
    // The receiving side takes its time; the lease must stay quiet meanwhile.
    await sleep(80);
    return send(delivery);
  };
  queue.send(job());
  worker.start();
  await waitFor(() => sender.attempts.length === 1);
  await worker.stop();
  expect(beatsWhenSent).toBeGreaterThanOrEqual(3);
  expect(queue.setVts.length).toBe(beatsWhenSent);
});

test("a retry schedule longer than the lease is reported at construction", () => {
  const { lines } = makeWorker(definition(), { vtSeconds: 10, callbackRetryDelaysMs: [5_000, 5_000] });
  expect(lines.some((l) => String(l.msg).includes("callback retries can outlast the lease"))).toBe(true);
  const quiet = makeWorker(definition(), { vtSeconds: 60, callbackRetryDelaysMs: [1_000, 2_000, 4_000, 8_000, 15_000] });
  expect(quiet.lines).toEqual([]);
});
