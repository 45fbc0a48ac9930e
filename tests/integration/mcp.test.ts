/**
 * `mdame mcp` against the real Postgres: the pipeline API served in-process on a free port,
 * `mdame mcp` spawned as a real process, and the SDK's own Client talking to it over stdio and over
 * Streamable HTTP; the rows are checked after.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MCP_TOKEN_VARIABLE } from "../../cli/commands/mcp.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type PipelineServer, servePipeline } from "../fixtures/pipeline-server.ts";

const admin = adminSql();
const TOKEN = "mcp-integration-token-0123456789abcdef";
const MDAME = join(paths.root, "cli", "mdame.ts");

let pipeline: PipelineServer;
let apiEnv: Record<string, string>;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const env: Record<string, string> = { ...localStackEnv(), LOG_LEVEL: "warn" };
  pipeline = servePipeline(env);
  apiEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: pipeline.functionsUrl, SERVICE_ROLE_KEY: env.SERVICE_ROLE_KEY };
}, 60_000);

afterAll(async () => {
  await pipeline?.stop();
  await db.reset({ log: () => {} });
}, 60_000);

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

/**
 * trigger_run then run_status through `client`: the run exists in the database and its status names
 * it. Each transport runs its own dimension: a key over a dimension a running run already covers
 * finds that run (docs/reference/run-keys.md).
 */
async function triggerAndFollow(client: Client, dimension: string, key: string): Promise<string> {
  const triggered = await call(client, "trigger_run", { dimension, idempotency_key: key });
  expect(triggered.isError).toBeFalsy();
  const run = triggered.structuredContent as { run_id: string; created: boolean; status: string };
  expect(run).toMatchObject({ created: true, status: "running" });
  const [row] = await admin`select idempotency_key, dimension_filter from mdame.pipeline_runs where id = ${run.run_id}`;
  expect(row).toBeDefined();
  expect(row!.dimension_filter).toBe(dimension);

  const again = await call(client, "trigger_run", { dimension, idempotency_key: key });
  expect(again.structuredContent).toMatchObject({ run_id: run.run_id, created: false });

  const status = await call(client, "run_status", { id: run.run_id });
  expect(status.isError).toBeFalsy();
  expect(status.structuredContent).toMatchObject({ run: { id: run.run_id, dimension_filter: dimension } });
  return run.run_id;
}

describe("mdame mcp over stdio", () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: "mcp-stdio-test", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MDAME, "mcp"], cwd: paths.root, env: apiEnv, stderr: "pipe" }));
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  test("initialize names the server; tools/list has the operator's tools", async () => {
    expect(client.getServerVersion()).toMatchObject({ name: "mdame" });
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (
      const name of [
        "list_dimensions",
        "trigger_run",
        "run_status",
        "list_reviews",
        "approve_review",
        "reject_review",
        "list_dead_letters",
        "retry_dead_letter",
        "weekly_report",
        "spend",
        "add_dimension",
      ]
    ) {
      expect(names).toContain(name);
    }
  });

  test("trigger_run starts one run for a key; run_status shows it", async () => {
    await triggerAndFollow(client, "tech-explained", "mcp-stdio-run-0001");
    expect((await admin`select count(*)::int as n from mdame.pipeline_runs where idempotency_key like '%mcp-stdio-run-0001%'`)[0]!.n).toBe(1);
  }, 30_000);

  test("the API's refusals come back as error results with the CLI's messages; the process lives on", async () => {
    const ghost = "00000000-0000-4000-8000-000000000000";
    const missing = await call(client, "run_status", { id: ghost });
    expect(missing).toMatchObject({ isError: true });
    expect(text(missing)).toBe(`no run ${ghost}`);
    const unknown = await call(client, "retry_dead_letter", { id: "987654" });
    expect(text(unknown)).toBe("no dead letter 987654");
    const noDimension = await call(client, "show_dimension", { id: "no-such-dimension" });
    expect(noDimension.isError).toBe(true);
    expect(text(noDimension)).toContain("no-such-dimension");
    expect((await call(client, "list_dimensions", {})).structuredContent).toMatchObject({ dimensions: expect.arrayContaining([expect.anything()]) });
    // The review and spend tools reach their routes: nothing waits, nothing was spent, an unknown review is the API's 404.
    expect((await call(client, "list_reviews", {})).structuredContent).toEqual({ reviews: [] });
    const noReview = await call(client, "reject_review", { unit_id: ghost, reason: "off topic" });
    expect(noReview.isError).toBe(true);
    expect(text(noReview)).toContain(ghost);
    const spend = await call(client, "spend", { dimension: "tech-explained" });
    expect(spend.isError).toBeFalsy();
    expect(spend.structuredContent).toMatchObject({ dimensions: expect.any(Array) });
  }, 30_000);

  test("a configuration the contract refuses writes nothing", async () => {
    const refused = await call(client, "add_dimension", {
      id: "mcp-space",
      display_name: "Space",
      language: "en",
      tts_voice: "en-GB-SoniaNeural",
      daily_limit: 51,
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("daily_limit");
    expect((await admin`select id from mdame.dimensions where id = 'mcp-space'`).length).toBe(0);
  });
});

describe("mdame mcp --http", () => {
  let child: ReturnType<typeof Bun.spawn>;
  let url: string;

  beforeAll(async () => {
    child = Bun.spawn([process.execPath, MDAME, "mcp", "--http", "0"], {
      cwd: paths.root,
      env: { ...apiEnv, [MCP_TOKEN_VARIABLE]: TOKEN },
      stdout: "pipe",
      stderr: "inherit",
    });
    // It prints the endpoint and the token's origin, then serves.
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    let printed = "";
    while (!printed.includes("Ctrl-C stops it.")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`mdame mcp --http ended before serving: ${printed}`);
      printed += new TextDecoder().decode(value);
    }
    url = /MCP server at (\S+)/.exec(printed)![1]!;
    reader.releaseLock();
    expect(printed).toContain(`bearer token: ${MCP_TOKEN_VARIABLE}`);
    expect(printed).not.toContain(TOKEN);
  }, 30_000);

  afterAll(async () => {
    child?.kill("SIGTERM");
    expect(await child?.exited).toBe(0);
  });

  test("the SDK's client with the token runs trigger_run and run_status", async () => {
    const client = new Client({ name: "mcp-http-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    await triggerAndFollow(client, "sains-singkat", "mcp-http-run-0001");
    await client.close();
  }, 30_000);

  test("without the token, or with a wrong one, the request is refused 401 and nothing runs", async () => {
    const before = (await admin`select count(*)::int as n from mdame.pipeline_runs`)[0]!.n;
    const trigger = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "trigger_run", arguments: { idempotency_key: "mcp-no-token-0001" } },
    });
    for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${TOKEN.slice(0, -1)}x` }]) {
      const answer = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: trigger,
      });
      expect(answer.status).toBe(401);
    }
    const client = new Client({ name: "mcp-http-wrong-token", version: "1" });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer wrong" } } }))).rejects
      .toThrow();
    expect((await admin`select count(*)::int as n from mdame.pipeline_runs`)[0]!.n).toBe(before);
  });
});
