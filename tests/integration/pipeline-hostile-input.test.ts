/**
 * The pipeline function's routes against hostile bodies, with the real Postgres behind them: every
 * route reads at most its cap (413 past it, the rest unread), malformed JSON and NUL characters are
 * the caller's mistake (400, never 500), and a huge input is never echoed back, logged, or written
 * to the database's own log by an error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { paths } from "../../stack/paths.ts";
import { PIPELINE_MAX_BODY_BYTES } from "../../shared/http/bounded-body.ts";
import { countingBody, MB } from "./fixtures/counting-stream.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type InProcessPipeline, startInProcessPipeline } from "../fixtures/in-process-pipeline.ts";

const admin = adminSql();

const BASE = "http://edge.test/pipeline";
const logLines: string[] = [];
let deps: InProcessPipeline["deps"];
let app: InProcessPipeline["app"];
let auth: Record<string, string>;
let pipeline: InProcessPipeline;

beforeAll(async () => {
  pipeline = await startInProcessPipeline({
    name: "hostile-storage",
    env: { LOG_LEVEL: "info" },
    log: { write: (line: string) => void logLines.push(line), level: "info" },
  });
  ({ app, deps } = pipeline);
  auth = { authorization: pipeline.bearer };
}, 60_000);

afterAll(async () => {
  await pipeline?.close();
}, 60_000);

const post = (path: string, body: string, headers: Record<string, string> = auth) =>
  app.request(`${BASE}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

const streamed = (path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string> = auth) =>
  app.request(new Request(`${BASE}${path}`, { method: "POST", headers, body, duplex: "half" } as RequestInit));

/** What the server log gained since `offset` (the cluster logs there when pg_ctl started it). */
function serverLogSince(offset: number): string {
  if (!existsSync(paths.pgServerLog)) return "";
  return readFileSync(paths.pgServerLog).subarray(offset).toString("utf8");
}
const serverLogSize = () => (existsSync(paths.pgServerLog) ? statSync(paths.pgServerLog).size : 0);

describe("malformed bodies are 400, not 500", () => {
  test("malformed JSON on the trigger", async () => {
    const response = await post("/runs", '{"dimension": ');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("the body is not valid JSON");
  });

  test("a NUL character in a JSON string on the trigger", async () => {
    const response = await post("/runs", JSON.stringify({ dimension: "tech\u0000explained" }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("NUL");
    const [runs] = await admin`select count(*)::int as n from mdame.pipeline_runs`;
    expect(runs.n).toBe(0);
  });

  test("malformed JSON and NUL characters on an operator route", async () => {
    const runId = crypto.randomUUID();
    expect((await post(`/runs/${runId}/abort`, "{reason")).status).toBe(400);
    const nul = await post(`/runs/${runId}/abort`, JSON.stringify({ reason: "stop\u0000now" }));
    expect(nul.status).toBe(400);
    expect(((await nul.json()) as { error: string }).error).toContain("NUL");
  });
});

describe("every route reads at most its cap", () => {
  test("an authorised 200 MB chunked trigger body gets 413 once the cap is passed, the rest unread", async () => {
    const body = countingBody(200 * MB);
    const response = await streamed("/runs", body.stream);
    expect(response.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(PIPELINE_MAX_BODY_BYTES + 2 * 64 * 1024);
  });

  test("an operator route stops at the cap too", async () => {
    const body = countingBody(50 * MB);
    const response = await streamed(`/runs/${crypto.randomUUID()}/abort`, body.stream);
    expect(response.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(PIPELINE_MAX_BODY_BYTES + 2 * 64 * 1024);
  });

  test("a route that reads no body still refuses a declared content-length past the cap", async () => {
    const body = countingBody(10 * MB);
    const response = await streamed("/tick", body.stream, { ...auth, "content-length": String(10 * MB) });
    expect(response.status).toBe(413);
    expect(body.pulled()).toBe(0);
  });

  test("without the bearer token nothing is read: 401", async () => {
    const body = countingBody(200 * MB);
    const response = await streamed("/runs", body.stream, {});
    expect(response.status).toBe(401);
    expect(body.pulled()).toBe(0);
  });
});

describe("a huge input is never echoed", () => {
  test("not in the answer, the app's log or the database's log", async () => {
    const marker = "Q".repeat(300);
    const huge = marker.repeat(150); // 45 KB: under the body cap, far over any field's bound
    const logOffset = serverLogSize();
    for (const body of [{ dimension: huge }, { [huge]: "x" }, { idempotency_key: huge }]) {
      const response = await post("/runs", JSON.stringify(body));
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text.length).toBeLessThan(4000);
      expect(text).not.toContain(marker);
    }
    const abort = await post(`/runs/${crypto.randomUUID()}/abort`, JSON.stringify({ reason: huge }));
    expect(abort.status).toBe(400);
    expect(await abort.text()).not.toContain(marker);
    expect(logLines.some((line) => line.includes(marker))).toBe(false);
    expect(serverLogSince(logOffset)).not.toContain(marker);
  });
});
