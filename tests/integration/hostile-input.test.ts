/**
 * The engine's hostile-input table (tests/fixtures/hostile/) against the real Deno edge
 * host (stack/edge-host.ts) serving `pipeline` and `worker-callback` on the real database. Each row
 * is one test and is sent byte for byte over a socket, so methods fetch refuses (TRACE, TRACK) and
 * paths it would normalise (`..`, `//`) reach the server as written.
 *
 * Every row must get its status, never a 500 and no other 5xx than the one the environment guard
 * documents (503: the deployment, not the request, is wrong); an error answer is JSON in the
 * ErrorAnswer shape, a 400 names the field at fault when the row says which, a 405 lists the
 * methods the route serves.
 * After the last row the edge host is still up and logged no unhandled error, and what the refused
 * writes aimed at (a dimension, another scene's job) is as it was.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorAnswer } from "../../shared/contracts/http-error.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type EdgeHostProcess, startEdgeHost } from "../fixtures/edge-host-process.ts";
import { queueRow } from "../fixtures/hostile/access-rows.ts";
import {
  type Answer,
  bearer,
  dimensionConfig,
  FN,
  type HostileContext,
  type HostileRequest,
  type HostileRow,
  type RenderUnit,
  type RowGroup,
  type SceneJob,
} from "../fixtures/hostile/context.ts";
import { HOSTILE_ROWS } from "../fixtures/hostile/rows.ts";
import { visualJob } from "../fixtures/visual-job.ts";

const admin = adminSql();
const env = localStackEnv();
let port: number;
let edgeHost: EdgeHostProcess;
let storageDir: string;
let ctx: HostileContext;
/** The target dimension and scene A2's job before the first row. */
let targetBefore: unknown;
let a2Before: Awaited<ReturnType<typeof queueRow>>;

/** The HTTP/1.1 request as bytes: the request line and headers exactly as the row writes them. */
function encode(request: HostileRequest): Buffer {
  const body = typeof request.body === "string" ? Buffer.from(request.body, "utf8") : request.body ? Buffer.from(request.body) : null;
  const headers: [string, string][] = [["Host", `127.0.0.1:${port}`], ["Connection", "close"], ...(request.headers ?? [])];
  if (body !== null) {
    if (request.contentType !== null) headers.push(["Content-Type", request.contentType ?? "application/json"]);
    headers.push(["Content-Length", String(body.length)]);
  }
  const head = `${request.method} ${request.path} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), body ?? Buffer.alloc(0)]);
}

function decodeChunked(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd === -1) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseAnswer(raw: Buffer): Answer {
  const headEnd = raw.indexOf("\r\n\r\n");
  if (headEnd === -1) throw new Error(`no HTTP answer, got ${raw.length} bytes: ${raw.toString("latin1").slice(0, 200)}`);
  const [statusLine, ...lines] = raw.subarray(0, headEnd).toString("latin1").split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = raw.subarray(headEnd + 4);
  if (headers.get("transfer-encoding")?.toLowerCase().includes("chunked")) body = decodeChunked(body);
  else if (headers.has("content-length")) body = body.subarray(0, Number(headers.get("content-length")));
  return { status: Number(statusLine!.split(" ")[1]), headers, text: body.toString("utf8") };
}

/** One request on its own connection; the answer is read until the server closes it. */
function send(request: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let failure: Error | undefined;
    const timer = setTimeout(() => socket.destroy(new Error("no answer within 20 s")), 20_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A server that answers before reading the whole body may reset the rest of the upload.
    socket.on("error", (error) => (failure = error));
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (error) {
        reject(failure ?? error);
      }
    });
    // Not end(): a server that does not support half-closed connections drops the request at our FIN.
    socket.write(encode(request));
  });
}

/** The answer's JSON, or its text when it is not JSON (which the contract checks then report). */
function jsonOf(answer: Answer): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    return answer.text;
  }
}

/** Whether the answer names `field` (dotted, indexes as numbers) in its message or in an issue. */
function namesField(answer: Answer, field: string): boolean {
  const parsed = ErrorAnswer.safeParse(jsonOf(answer));
  if (!parsed.success) return false;
  const body = parsed.data;
  const dotted = (text: string) => text.replace(/\[(\d+)\]/g, ".$1");
  const named = [dotted(body.error)];
  for (const issue of body.issues ?? []) {
    const at = issue.path.map(String).join(".");
    named.push(at, dotted(issue.message));
    for (const key of issue.keys ?? []) named.push(at ? `${at}.${key}` : key);
  }
  return named.some((text) => text === field || text.includes(field));
}

async function expectAnswer(row: HostileRow, request: HostileRequest, answer: Answer) {
  // The status with the start of the answer, so a failing row shows what it got.
  expect(`${answer.status} ${answer.text.slice(0, 300)}`).toStartWith(`${row.status} `);
  // A 5xx only where the row documents one (the environment guard's 503); never a 500.
  if (row.status < 500) expect(answer.status).toBeLessThan(500);
  expect(answer.status).not.toBe(500);
  if (answer.status >= 400) {
    expect(answer.headers.get("content-type") ?? "").toContain("application/json");
    expect(ErrorAnswer.safeParse(jsonOf(answer)).error?.issues ?? []).toEqual([]);
  }
  if (row.field !== undefined) expect({ field: row.field, named: namesField(answer, row.field) }).toEqual({ field: row.field, named: true });
  if (row.allow !== undefined) {
    const allowed = (answer.headers.get("allow") ?? "").split(",").map((m) => m.trim().toUpperCase()).filter(Boolean);
    expect(allowed).toEqual(expect.arrayContaining(row.allow));
    expect(allowed).not.toContain(request.method);
  }
}

/** A call the fixtures make with the right key; anything but `status` stops the suite. */
async function operator(method: string, path: string, body: unknown, status: number): Promise<Record<string, unknown>> {
  const answer = await send({ method, path: `${FN}${path}`, headers: [bearer(ctx)], body: JSON.stringify(body) });
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
  return jsonOf(answer) as Record<string, unknown>;
}

async function insertUnit(runId: string, stage: "media" | "render"): Promise<string> {
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${runId}, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "t"}', ${stage},
            '{"title": "A title", "narration": "words", "description": "d", "hashtags": ["#t"]}') returning id`;
  return unit!.id as string;
}

async function insertSceneJob(runId: string, unitId: string, index: number): Promise<SceneJob> {
  const sceneId = crypto.randomUUID();
  const job = visualJob(`hostile-${sceneId}`, { run_id: runId, unit_id: unitId, scene_id: sceneId, scene_index: index });
  const [sent] = await admin`select pgmq.send('visual_generation', ${admin.json(job)}) as msg_id`;
  const msgId = Number(sent!.msg_id);
  await admin`
    insert into mdame.scenes (id, unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, msg_id, job)
    values (${sceneId}, ${unitId}, ${index}, ${job.prompt}, 'words', 0, ${job.duration_s}, ${job.scene_hash}, ${msgId}, ${admin.json(job)})`;
  return { unitId, sceneId, msgId };
}

async function insertRenderUnit(runId: string): Promise<RenderUnit> {
  const unitId = await insertUnit(runId, "render");
  const [sent] = await admin`select pgmq.send('render', ${admin.json({ run_id: runId, unit_id: unitId })}) as msg_id`;
  return { unitId, msgId: Number(sent!.msg_id) };
}

const dimensionRow = async (id: string) => (await admin`select to_jsonb(d) as row from mdame.dimensions d where id = ${id}`)[0]?.row;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  // No daily run or minutely tick of pg_cron's may start work under the rows.
  await admin`update cron.job set active = false`;
  storageDir = await mkdtemp(join(tmpdir(), "mdame-hostile-input-storage-"));
  edgeHost = await startEdgeHost({ ...env, STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: storageDir, LOG_LEVEL: "info" });
  port = edgeHost.port;

  const [completed] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, status, finished_at)
    values ('hostile-fixture-completed', 'dev', current_date, 'manual', 'completed', now()) returning id`;
  const [running] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values ('hostile-fixture-running', 'dev', current_date, 'manual') returning id`;
  const unitA = await insertUnit(running!.id, "media");
  const unitB = await insertUnit(running!.id, "media");
  ctx = {
    admin,
    serviceRoleKey: env.SERVICE_ROLE_KEY,
    webhookSecret: env.WEBHOOK_SECRET,
    target: "hostile-target",
    accept: "hostile-accept",
    completedRunId: completed!.id,
    account: "",
    removableAccount: "",
    a1: await insertSceneJob(running!.id, unitA, 0),
    a2: await insertSceneJob(running!.id, unitA, 1),
    b1: await insertSceneJob(running!.id, unitB, 0),
    replayUnit: await insertRenderUnit(running!.id),
    musicUnit: await insertRenderUnit(running!.id),
  };
  await operator("POST", "/pipeline/dimensions", dimensionConfig(ctx.target), 201);
  await operator("POST", "/pipeline/dimensions", dimensionConfig(ctx.accept), 201);
  const connect = (handle: string) =>
    operator("POST", "/pipeline/accounts", { dimension_id: ctx.accept, platform: "youtube", channel_handle: handle, refresh_token: "1//hostile" }, 201)
      .then((answer) => (answer.account as { id: string }).id);
  ctx.account = await connect("@hostile-paused");
  ctx.removableAccount = await connect("@hostile-removed");
  targetBefore = await dimensionRow(ctx.target);
  a2Before = await queueRow(admin, "visual_generation", ctx.a2.msgId);
}, 180_000);

afterAll(async () => {
  await edgeHost?.stop();
  await db.reset({ log: () => {} });
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
}, 120_000);

const GROUPS: RowGroup[] = ["auth", "body", "unicode", "method", "path", "callback", "environment"];

for (const group of GROUPS) {
  describe(group, () => {
    for (const row of HOSTILE_ROWS.filter((r) => r.group === group)) {
      test(row.name, async () => {
        await row.setUp?.(ctx, send);
        try {
          const request = await row.request(ctx);
          const answer = await send(request);
          await expectAnswer(row, request, answer);
          await row.check?.(ctx, answer);
        } finally {
          await row.tearDown?.(ctx);
        }
      }, 30_000);
    }
  });
}

describe("after every row", () => {
  test("the edge host is still serving and logged no unhandled error", async () => {
    expect({ exitCode: edgeHost.child.exitCode, signal: edgeHost.child.signalCode }).toEqual({ exitCode: null, signal: null });
    const health = await send({ method: "GET", path: `${FN}/pipeline/health` });
    expect(jsonOf(health)).toEqual({ ok: true, env: "dev" });
    // The apps' onError logs "unhandled error", the edge server "edge request failed", for every 500.
    expect(edgeHost.output().split("\n").filter((line) => /unhandled error|edge request failed/.test(line))).toEqual([]);
  });

  test("the refused writes changed nothing: the target dimension, scene A2's job, the recorded environment", async () => {
    expect(await dimensionRow(ctx.target)).toEqual(targetBefore);
    expect(await queueRow(admin, "visual_generation", ctx.a2.msgId)).toEqual(a2Before);
    const [recorded] = await admin`select value from mdame.settings where key = 'env'`;
    expect(recorded?.value).toBe("dev");
  });
});
