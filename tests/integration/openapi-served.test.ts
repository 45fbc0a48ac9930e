/**
 * The OpenAPI document against real answers: the pipeline app served in-process over real HTTP
 * with the real Postgres behind it (and the worker-callback app on the same database), the
 * document fetched from GET /pipeline/openapi.json, and what a few routes answer (successes and
 * errors) validated with Ajv against the schema the document gives that route and status. The
 * real Deno edge host serves the same document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { dimensionConfig } from "../../shared/api/examples.ts";
import { createWorkerCallbackApp } from "../../functions/worker-callback/app.ts";
import { localEngineDbUrl } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { generateWebhookSecret, signWebhook } from "../../shared/webhooks/standard-webhooks.ts";
import * as db from "../../stack/db.ts";
import { loadOrCreateSecrets, localStackEnv } from "../../stack/stack-env.ts";
import { type EdgeHostProcess, startEdgeHost } from "../fixtures/edge-host-process.ts";
import { type PipelineServer, servePipeline } from "../fixtures/pipeline-server.ts";

type Media = { schema: { $ref: string } };
type Operation = { responses: Record<string, { content?: Record<string, Media> }> };
type Document = { servers: { url: string }[]; paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

let server: PipelineServer;
let storageDir: string;
let key: string;
let document: Document;
let engine: Sql;
let workerCallback: ReturnType<typeof createWorkerCallbackApp>;
const secret = generateWebhookSecret();
/** The document's example configuration, under an id the seed does not hold. */
const config = { ...dimensionConfig, id: "openapi-check" };
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
ajv.addVocabulary(["components"]);

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  storageDir = await mkdtemp(join(tmpdir(), "mdame-openapi-storage-"));
  const env: Record<string, string> = { ...localStackEnv(), STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: storageDir, LOG_LEVEL: "fatal" };
  key = env.SERVICE_ROLE_KEY!;
  server = servePipeline(env);
  engine = createSql(localEngineDbUrl(loadOrCreateSecrets().ENGINE_DB_PASSWORD), { max: 2, application: "openapi-served" });
  workerCallback = createWorkerCallbackApp({ sql: engine, logger: createLogger("worker-callback", { write: () => {} }, "fatal"), webhookSecrets: [secret] });
  const response = await fetch(`${server.functionsUrl}/pipeline/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as Document;
  ajv.addSchema({ $id: "https://mdame.test/openapi.json", components: document.components });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await engine?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  await rm(storageDir, { recursive: true, force: true });
}, 60_000);

/** Fails unless the answer is `status`, the document lists it for the operation and the body passes the schema it names. */
async function expectDocumented(method: string, path: string, response: Response, status: number): Promise<unknown> {
  expect({ method, path, status: response.status }).toEqual({ method, path, status });
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  const documented = operation.responses[String(response.status)];
  if (!documented) {
    throw new Error(
      `${method.toUpperCase()} ${path} answered ${response.status}, which the document does not list (${Object.keys(operation.responses).join(", ")})`,
    );
  }
  const media = documented.content?.["application/json"];
  if (!media) throw new Error(`${method.toUpperCase()} ${path} ${response.status} has no JSON body in the document`);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  const body = await response.json();
  const validate = ajv.getSchema(`https://mdame.test/openapi.json${media.schema.$ref}`)!;
  if (!validate(body)) throw new Error(`${method.toUpperCase()} ${path} ${response.status} broke ${media.schema.$ref}: ${ajv.errorsText(validate.errors)}`);
  return body;
}

const call = (method: string, path: string, body?: unknown, auth = true) =>
  fetch(`${server.functionsUrl}${path}`, {
    method,
    headers: { ...(auth && { authorization: `Bearer ${key}` }), ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

describe("the document under Deno", () => {
  let edgeHost: EdgeHostProcess | undefined;
  afterAll(async () => {
    await edgeHost?.stop();
  }, 60_000);

  test("the edge host serves the same document, under its own FUNCTIONS_URL, with an ETag", async () => {
    // FUNCTIONS_URL left to the fixture: the edge host's own address, which the document must name.
    const { FUNCTIONS_URL: _configured, ...env } = localStackEnv();
    edgeHost = await startEdgeHost({ ...env, LOG_LEVEL: "warn" });
    const response = await fetch(`${edgeHost.functionsUrl}/pipeline/openapi.json`);
    expect(response.status).toBe(200);
    const etag = response.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const served = (await response.json()) as Document;
    expect(served.servers[0]!.url).toBe(edgeHost.functionsUrl);
    expect({ ...served, servers: [] }).toEqual({ ...document, servers: [] });
    expect((await fetch(`${edgeHost.functionsUrl}/pipeline/openapi.json`, { headers: { "if-none-match": etag! } })).status).toBe(304);
  }, 120_000);
});

describe("answers over HTTP match the document", () => {
  test("the document names this server", () => {
    expect(document.servers[0]!.url).toBe(server.functionsUrl);
  });

  test("dimensions: created from the document's example, listed, read, paused", async () => {
    await expectDocumented("post", "/pipeline/dimensions", await call("POST", "/pipeline/dimensions", config), 201);
    const list = (await expectDocumented("get", "/pipeline/dimensions", await call("GET", "/pipeline/dimensions"), 200)) as { dimensions: { id: string }[] };
    expect(list.dimensions.map((d) => d.id)).toContain(config.id);
    await expectDocumented("get", "/pipeline/dimensions/{id}", await call("GET", `/pipeline/dimensions/${config.id}`), 200);
    await expectDocumented("post", "/pipeline/dimensions/{id}/pause", await call("POST", `/pipeline/dimensions/${config.id}/pause`), 200);
    await expectDocumented("post", "/pipeline/dimensions/{id}/resume", await call("POST", `/pipeline/dimensions/${config.id}/resume`), 200);
    await expectDocumented("post", "/pipeline/dimensions", await call("POST", "/pipeline/dimensions", config), 409);
  });

  test("runs: triggered, followed, listed, aborted", async () => {
    const triggered = (await expectDocumented(
      "post",
      "/pipeline/runs",
      await call("POST", "/pipeline/runs", { dimension: config.id, idempotency_key: "openapi-served-run" }),
      202,
    )) as { run_id: string };
    const status = (await expectDocumented("get", "/pipeline/runs/{id}", await call("GET", `/pipeline/runs/${triggered.run_id}`), 200)) as {
      run: { id: string };
    };
    expect(status.run.id).toBe(triggered.run_id);
    await expectDocumented("get", "/pipeline/runs", await call("GET", "/pipeline/runs"), 200);
    await expectDocumented("get", "/pipeline/runs/{id}/analytics", await call("GET", `/pipeline/runs/${triggered.run_id}/analytics`), 200);
    await expectDocumented(
      "post",
      "/pipeline/runs/{id}/abort",
      await call("POST", `/pipeline/runs/${triggered.run_id}/abort`, { reason: "checking the document" }),
      200,
    );
  });

  test("the other lists: dead letters, alerts, credentials, adaptations, weekly reports", async () => {
    await expectDocumented("get", "/pipeline/dead-letters", await call("GET", "/pipeline/dead-letters?limit=5"), 200);
    await expectDocumented("get", "/pipeline/alerts", await call("GET", "/pipeline/alerts"), 200);
    await expectDocumented("get", "/pipeline/credentials/keys", await call("GET", "/pipeline/credentials/keys"), 200);
    await expectDocumented("get", "/pipeline/adaptations", await call("GET", "/pipeline/adaptations"), 200);
    const weekly = (await expectDocumented("get", "/pipeline/reports/weekly", await call("GET", "/pipeline/reports/weekly?week=2026-11-25"), 200)) as {
      reports: unknown[];
    };
    // The seeded dimensions and the one created above are active: real reports, chart and Markdown included.
    expect(weekly.reports.length).toBeGreaterThan(0);
  });

  test("errors: 400 with issues, 401, 404", async () => {
    const invalid = (await expectDocumented("get", "/pipeline/runs", await call("GET", "/pipeline/runs?limit=0"), 400)) as { issues: unknown[] };
    expect(invalid.issues.length).toBeGreaterThan(0);
    await expectDocumented("get", "/pipeline/runs", await call("GET", "/pipeline/runs", undefined, false), 401);
    await expectDocumented("get", "/pipeline/runs/{id}", await call("GET", "/pipeline/runs/00000000-0000-4000-8000-000000000000"), 404);
    await expectDocumented("get", "/pipeline/dimensions/{id}", await call("GET", "/pipeline/dimensions/no-such-dimension"), 404);
    await expectDocumented("post", "/pipeline/dead-letters/{id}/retry", await call("POST", "/pipeline/dead-letters/999999/retry"), 404);
  });

  test("worker-callback: a signed delivery for a scene that does not exist is the documented 404, an unsigned one the documented 401", async () => {
    const body = JSON.stringify({
      kind: "visual_generation.failed",
      msg_id: 1,
      scene_id: "00000000-0000-4000-8000-000000000001",
      error: { message: "gone", retriable: false },
      worker_id: "openapi-test",
    });
    const signed = await signWebhook(secret, "msg_openapi_served_1", body);
    const send = (headers: Record<string, string>) =>
      workerCallback.request("http://edge.test/worker-callback", { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    await expectDocumented("post", "/worker-callback", await send({ ...signed }), 404);
    await expectDocumented("post", "/worker-callback", await send({}), 401);
  });

  test("a body that breaks the documented schema is caught by the check", async () => {
    const response = new Response(JSON.stringify({ runs: [{ id: "x" }] }), { status: 200, headers: { "content-type": "application/json" } });
    await expect(expectDocumented("get", "/pipeline/runs", response, 200)).rejects.toThrow("broke #/components/schemas/RunList");
  });
});
