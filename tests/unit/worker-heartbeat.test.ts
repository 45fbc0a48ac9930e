import { describe, expect, test } from "bun:test";
import { gpuConcurrency } from "../../gpu-worker/gpu-concurrency.ts";
import { renderConcurrency } from "../../render-runner/render-concurrency.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import type { CallbackSender } from "../../shared/worker/callback-sender.ts";
import { PullWorker, type QueueMessage, type QueueTaskDefinition, type WorkerQueue } from "../../shared/worker/pull-worker.ts";
import type { WorkerBeat, WorkerHeartbeats } from "../../shared/worker/worker-heartbeat.ts";
import { workerIdentity } from "../../shared/worker/worker-id.ts";
import { sleep, waitFor } from "../fixtures/wait.ts";

/** Hands out each queued message once, as pgmq's read does within a visibility timeout. */
class OnceQueue implements WorkerQueue {
  readonly pending: QueueMessage[] = [];
  #next = 1;

  send(message: unknown): void {
    this.pending.push({ msg_id: this.#next++, read_ct: 0, enqueued_at: new Date(), vt: new Date(), message });
  }

  read(_queue: string, _vt: number, qty: number): Promise<QueueMessage[]> {
    return Promise.resolve(this.pending.splice(0, qty).map((m) => ({ ...m, read_ct: 1 })));
  }

  setVt(): Promise<void> {
    return Promise.resolve();
  }
}

class RecordedHeartbeats implements WorkerHeartbeats {
  readonly events: Array<{ op: "beat"; beat: WorkerBeat } | { op: "stopped"; workerId: string }> = [];
  failBeats = 0;

  beat(beat: WorkerBeat): Promise<void> {
    this.events.push({ op: "beat", beat });
    if (this.failBeats > 0) {
      this.failBeats--;
      return Promise.reject(new Error("connection refused"));
    }
    return Promise.resolve();
  }

  stopped(workerId: string): Promise<void> {
    this.events.push({ op: "stopped", workerId });
    return Promise.resolve();
  }

  get beats(): WorkerBeat[] {
    return this.events.flatMap((e) => (e.op === "beat" ? [e.beat] : []));
  }
}

const sender: CallbackSender = { send: () => Promise.resolve({ ok: true, status: 200 }) };

/** Render jobs that each wait for `release` before they complete. */
function blockingDefinition(release: Promise<void>): QueueTaskDefinition<{ unit_id: string }> {
  return {
    queue: "render",
    parse: (raw) => raw as { unit_id: string },
    logFields: () => ({}),
    run: async (payload) => {
      await release;
      return { kind: "render.completed", unit_id: payload.unit_id, video: { video_key: "renders/x.mp4" } } as never;
    },
    failed: () => null,
  };
}

function worker(heartbeats: WorkerHeartbeats, release: Promise<void>, queue: WorkerQueue, lines: string[] = []) {
  return new PullWorker({
    definition: blockingDefinition(release),
    queue,
    callbacks: sender,
    logger: createLogger("test", { write: (line: string) => void lines.push(line) }),
    workerId: "render-runner-box-7-9f3a1c",
    concurrency: 2,
    pollIntervalMs: { min: 5, max: 20 },
    presence: { heartbeats, host: "box", pid: 7, intervalMs: 20 },
  });
}

describe("worker heartbeats", () => {
  test("a worker beats at start and on its interval with the jobs it holds, and records its stop after its last job", async () => {
    const heartbeats = new RecordedHeartbeats();
    const queue = new OnceQueue();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    for (let i = 0; i < 3; i++) queue.send({ unit_id: `u${i}` });
    const w = worker(heartbeats, released, queue);
    w.start();
    await waitFor(() => heartbeats.beats.some((b) => b.jobsHeld === 2));
    expect(heartbeats.beats[0]).toEqual({
      workerId: "render-runner-box-7-9f3a1c",
      queue: "render",
      host: "box",
      pid: 7,
      concurrency: 2,
      jobsHeld: expect.any(Number),
      beatIntervalS: 1,
    });
    expect(Math.max(...heartbeats.beats.map((b) => b.jobsHeld))).toBe(2);

    const stopping = w.stop();
    await sleep(50);
    expect(heartbeats.events.some((e) => e.op === "stopped")).toBe(false);
    release();
    await stopping;
    expect(heartbeats.events.at(-1)).toEqual({ op: "stopped", workerId: "render-runner-box-7-9f3a1c" });
    const count = heartbeats.events.length;
    await sleep(60);
    expect(heartbeats.events.length).toBe(count);
  });

  test("a failed beat is logged once and the next one tries again; the worker keeps working", async () => {
    const heartbeats = new RecordedHeartbeats();
    heartbeats.failBeats = 3;
    const lines: string[] = [];
    const w = worker(heartbeats, Promise.resolve(), new OnceQueue(), lines);
    w.start();
    await waitFor(() => heartbeats.beats.length >= 5);
    await w.stop();
    const failures = lines.filter((l) => l.includes("worker heartbeat failed"));
    expect(failures).toHaveLength(1);
    expect(lines.some((l) => l.includes("worker heartbeat recovered after 3 failures"))).toBe(true);
    expect(w.state).toBe("stopped");
  });
});

describe("worker ids", () => {
  test("two processes never share an id, even with the same name, host and pid", () => {
    const a = workerIdentity({ name: "render-runner", host: "box", pid: 1 });
    const b = workerIdentity({ name: "render-runner", host: "box", pid: 1 });
    expect(a.workerId).not.toBe(b.workerId);
    expect(a.workerId).toMatch(/^render-runner-box-1-[0-9a-f]{6}$/);
    expect(workerIdentity({ name: "render-eu", host: "box", pid: 42, random: "abc123" })).toEqual({
      workerId: "render-eu-box-42-abc123",
      host: "box",
      pid: 42,
    });
  });

  test("a long label or host is cut so the id fits its 200 characters, keeping the pid and random part", () => {
    const { workerId } = workerIdentity({ name: "n".repeat(300), host: "h".repeat(300), pid: 123456, random: "ffffff" });
    expect(workerId.length).toBeLessThanOrEqual(200);
    expect(workerId.endsWith("-123456-ffffff")).toBe(true);
  });
});

describe("worker sizing", () => {
  test("GPU_CONCURRENCY: 1 by default, 1 to 32, refused with the variable's name otherwise", () => {
    expect(gpuConcurrency({})).toBe(1);
    expect(gpuConcurrency({ GPU_CONCURRENCY: " " })).toBe(1);
    expect(gpuConcurrency({ GPU_CONCURRENCY: "4" })).toBe(4);
    expect(() => gpuConcurrency({ GPU_CONCURRENCY: "0" })).toThrow("GPU_CONCURRENCY must be 1 to 32");
    expect(() => gpuConcurrency({ GPU_CONCURRENCY: "33" })).toThrow("GPU_CONCURRENCY must be 1 to 32");
    expect(() => gpuConcurrency({ GPU_CONCURRENCY: "two" })).toThrow("GPU_CONCURRENCY must be a whole number");
    expect(() => gpuConcurrency({ GPU_CONCURRENCY: "1.5" })).toThrow("GPU_CONCURRENCY must be a whole number");
  });

  test("RENDER_CONCURRENCY and RENDER_FFMPEG_THREADS refuse bad values with the same messages", () => {
    expect(() => renderConcurrency({ RENDER_CONCURRENCY: "two" }, 4)).toThrow("RENDER_CONCURRENCY must be a whole number");
    expect(() => renderConcurrency({ RENDER_FFMPEG_THREADS: "65" }, 4)).toThrow("RENDER_FFMPEG_THREADS must be 1 to 64");
  });
});
