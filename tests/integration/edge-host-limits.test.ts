/**
 * The local edge host ends a request past Supabase's per-request limits as the hosted runtime
 * does: its worker is killed, the answer is 546 {"code":"WORKER_LIMIT"}, a fresh worker takes its
 * place and the host serves the next request. The hosted CPU limit, small memory and wall limits
 * by env; the work is done by the test-only function of tests/fixtures/edge-limit-functions.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { WORKER_LIMIT_STATUS, WorkerLimitAnswer } from "../../shared/contracts/edge-runtime.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type EdgeHostProcess, startEdgeHost } from "../fixtures/edge-host-process.ts";

let edgeHost: EdgeHostProcess;
// Above a worker's ~120 MB at rest; a request passes it a couple of hundred MB in, long before
// the hosted CPU limit (2 s, the default here) could end it first.
const MEMORY_LIMIT_MB = 300;
const CPU_LIMIT_MS = 2_000;

const call = (what: string, amount: number) => fetch(`${edgeHost.functionsUrl}/edge-limits/${what}?amount=${amount}`);
const pidOf = async () => ((await (await call("pid", 0)).json()) as { pid: number }).pid;
/** Whether `pid` is still running up to 5 s after the answer (a SIGKILL is delivered, not awaited). */
async function aliveAfterAMoment(pid: number): Promise<boolean> {
  const running = () => {
    try {
      return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 100 && running(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return running();
}
/** The host's `edge request` lines so far. */
const requestLines = () =>
  edgeHost.output().split("\n").filter((line) => line.includes('"edge request')).map((line) => JSON.parse(line) as Record<string, unknown>);

async function expectWorkerLimit(response: Response): Promise<void> {
  expect(response.status).toBe(WORKER_LIMIT_STATUS);
  expect(WorkerLimitAnswer.parse(await response.json()).code).toBe("WORKER_LIMIT");
}

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  edgeHost = await startEdgeHost({
    ...localStackEnv(),
    MDAME_EDGE_EXTRA_FUNCTIONS: join(paths.root, "tests/fixtures/edge-limit-functions.ts"),
    // One worker: every request below runs on the worker the one before it left.
    MDAME_EDGE_WORKERS: "1",
    EDGE_MEMORY_LIMIT_MB: String(MEMORY_LIMIT_MB),
    // Far enough past the CPU limit that a loaded machine (2 s of CPU taking many seconds of wall
    // time) still meets the CPU or memory limit first.
    EDGE_WALL_LIMIT_S: "20",
    LOG_LEVEL: "info",
  });
}, 120_000);

afterAll(async () => {
  await edgeHost?.stop();
}, 60_000);

describe("edge host limits", () => {
  test("a request within the limits is answered and logged with its function, status, time and memory", async () => {
    const response = await call("cpu", 50);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ burned_ms: 50 });
    const line = requestLines().find((l) => l.path === "/functions/v1/edge-limits/cpu");
    expect(line).toMatchObject({ component: "edge-host", function: "edge-limits", method: "GET", http_status: 200, status: "succeeded" });
    expect(line!.cpu_ms as number).toBeGreaterThanOrEqual(30);
    expect(line!.cpu_ms as number).toBeLessThan(CPU_LIMIT_MS);
    expect(line!.wall_ms as number).toBeGreaterThanOrEqual(50);
    expect(line!.memory_mb as number).toBeGreaterThan(10);
  }, 30_000);

  test("CPU past the limit ends the request with 546 and a fresh worker serves the next one", async () => {
    const before = await pidOf();
    const startedAt = Date.now();
    await expectWorkerLimit(await call("cpu", 20_000));
    // Ended at the CPU limit (2 s of CPU), before the wall limit and the 20 s the handler would burn.
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(await aliveAfterAMoment(before)).toBe(false);
    const after = await pidOf();
    expect(after).not.toBe(before);
    expect((await call("cpu", 10)).status).toBe(200);
    expect(requestLines().some((l) => l.limit === "cpu" && l.http_status === 546 && (l.cpu_ms as number) >= CPU_LIMIT_MS)).toBe(true);
  }, 60_000);

  test("memory past the limit ends the request with 546 and the host goes on", async () => {
    const before = await pidOf();
    await expectWorkerLimit(await call("memory", MEMORY_LIMIT_MB + 200));
    expect(await aliveAfterAMoment(before)).toBe(false);
    expect((await call("memory", 1)).status).toBe(200);
    expect(requestLines().some((l) => l.limit === "memory" && (l.memory_mb as number) > MEMORY_LIMIT_MB)).toBe(true);
  }, 60_000);

  test("wall time past the limit ends a request that only waits, with 546", async () => {
    const startedAt = Date.now();
    await expectWorkerLimit(await call("wait", 40_000));
    const took = Date.now() - startedAt;
    expect(took).toBeGreaterThanOrEqual(20_000);
    expect(took).toBeLessThan(30_000);
    expect((await call("wait", 10)).status).toBe(200);
    expect(requestLines().some((l) => l.limit === "wall")).toBe(true);
  }, 60_000);

  test("the engine's functions are served beside it, and requests beyond the one worker wait their turn", async () => {
    const answers = await Promise.all([call("wait", 300), fetch(`${edgeHost.functionsUrl}/pipeline/health`), call("wait", 300)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await fetch(`${edgeHost.functionsUrl}/no-such-function`)).status).toBe(404);
    expect(edgeHost.child.exitCode).toBeNull();
  }, 60_000);

  test("a host killed outright takes its workers with it", async () => {
    const worker = await pidOf();
    edgeHost.child.kill("SIGKILL");
    await new Promise((resolve) => edgeHost.child.once("exit", resolve));
    const deadline = Date.now() + 10_000;
    while (await aliveAfterAMoment(worker) && Date.now() < deadline);
    expect(await aliveAfterAMoment(worker)).toBe(false);
  }, 60_000);
});
