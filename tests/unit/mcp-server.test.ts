/**
 * `mdame mcp`'s server as an MCP client sees it, through the SDK's own Client: over an in-memory
 * pair for the tools and resources (a fake of the API client behind them), and over Streamable HTTP
 * on a loopback port for the HTTP server's refusals. The real API behind it is
 * tests/integration/mcp.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { dimension, dimensionConfig, examples } from "../../shared/api/examples.ts";
import { sample } from "../fixtures/weekly-report.ts";
import { PassThrough } from "node:stream";
import { parseArgs } from "../../cli/args.ts";
import { mcpCommand } from "../../cli/commands/mcp.ts";
import { apiError } from "../../cli/errors.ts";
import { MCP_MAX_BODY_BYTES, serveMcpHttp } from "../../cli/mcp/http.ts";
import { createMcpServer } from "../../cli/mcp/server.ts";
import { MCP_TOOLS, type McpBackend } from "../../cli/mcp/tools.ts";

const VIDEO_ID = "5b0c7a52-3c1e-4a53-9a0e-0d3f3c7b9e21";
const QUALITY = { passed: true, integrated_lufs: -14.1, true_peak_dbtp: -1.6, duration_s: 41.2, checks: [], failures: [] };

/** Every call the fake answered, by method. */
const calls: { method: string; args: unknown[] }[] = [];

function fakeBackend(): McpBackend {
  const answer = <T>(method: string, value: T) => (...args: unknown[]) => {
    calls.push({ method, args });
    return Promise.resolve(value);
  };
  const refuse = (method: string, status: number, error: string) => (...args: unknown[]) => {
    calls.push({ method, args });
    return Promise.reject(apiError(status, { error }, `GET http://api.test/pipeline/${method}`));
  };
  return {
    baseUrl: "http://api.test/functions/v1",
    api: {
      listDimensions: answer("listDimensions", { dimensions: [dimension] }),
      showDimension: refuse("showDimension", 404, "no dimension space-minutes"),
      addDimension: answer("addDimension", dimension),
      triggerRun: answer("triggerRun", examples.triggered),
      runStatus: answer("runStatus", examples.runStatus),
      listRuns: answer("listRuns", examples.runs),
      listDeadLetters: answer("listDeadLetters", examples.deadLetters),
      retryDeadLetter: refuse("retryDeadLetter", 409, "dead letter 12 was already retried"),
      listReviews: answer("listReviews", { reviews: [] }),
      getReview: refuse("getReview", 404, `no review of unit ${VIDEO_ID}`),
      approveReview: answer("approveReview", { unit_id: VIDEO_ID, decision: "approved" }),
      rejectReview: refuse("rejectReview", 409, "the video was already approved"),
      spend: answer("spend", { month: "2026-12", dimensions: [] }),
      weeklyReports: answer("weeklyReports", {
        week_start: "2026-11-23",
        reports: [{ report: sample(), markdown: "# Week of 2026-11-23" }],
      }),
    } as unknown as McpBackend["api"],
    ops: {
      videos: answer("videos", { videos: [{ id: VIDEO_ID, unit_id: VIDEO_ID, platform: "youtube", channel_handle: "@tech", title: "Why chips get hot" }] }),
      video: (id: string) => {
        calls.push({ method: "video", args: [id] });
        if (id !== VIDEO_ID) return Promise.reject(apiError(404, { error: `no publication ${id}` }, "GET http://api.test/pipeline/ops/videos"));
        return Promise.resolve({ video: { id, title: "Why chips get hot" }, quality: QUALITY, render: { key: "renders/x.mp4" }, scenes: [], analytics: [] });
      },
    } as unknown as McpBackend["ops"],
  };
}

let client: Client;

beforeAll(async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(fakeBackend()).connect(serverSide);
  client = new Client({ name: "mcp-server-test", version: "1" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
/** The text of a resource read's first content. */
const resourceText = (contents: ({ text: string } | { blob: string })[]) => ("text" in contents[0]! ? contents[0].text : "");
const text = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

describe("tools", () => {
  test("tools/list is the declared table, each with its contract's JSON Schema and its annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "list_dimensions",
        "trigger_run",
        "run_status",
        "list_reviews",
        "approve_review",
        "reject_review",
        "retry_dead_letter",
        "weekly_report",
        "spend",
      ]),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("trigger_run")!.inputSchema.properties).toHaveProperty("idempotency_key");
    expect(byName.get("add_dimension")!.inputSchema.required).toEqual(expect.arrayContaining(["id", "display_name", "language", "tts_voice"]));
    // The protocol's default for a tool that is not read-only is destructive: each says what it is.
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint).toBeBoolean();
      if (!t.annotations!.readOnlyHint) expect(t.annotations?.destructiveHint).toBeBoolean();
    }
    expect(byName.get("run_status")!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get("trigger_run")!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(byName.get("reject_review")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get("approve_review")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get("approve_review")!.inputSchema.required).toEqual(["unit_id"]);
    expect(byName.get("reject_review")!.inputSchema.required).toEqual(expect.arrayContaining(["unit_id", "reason"]));
  });

  test("reviews and spend go to the API client's own calls, with the same contracts", async () => {
    await call("list_reviews", { dimension: "tech-explained" });
    expect(calls.at(-1)).toEqual({ method: "listReviews", args: ["tech-explained"] });
    await call("approve_review", { unit_id: VIDEO_ID, title: "A better title for it" });
    expect(calls.at(-1)).toEqual({ method: "approveReview", args: [VIDEO_ID, { title: "A better title for it" }] });
    const refused = await call("reject_review", { unit_id: VIDEO_ID, reason: "off topic" });
    expect(calls.at(-1)).toEqual({ method: "rejectReview", args: [VIDEO_ID, "off topic"] });
    expect(refused).toMatchObject({ isError: true });
    expect(text(refused)).toBe("the video was already approved");
    await call("spend", { month: "2026-12" });
    expect(calls.at(-1)).toEqual({ method: "spend", args: [{ dimension: null, month: "2026-12" }] });
    const before = calls.length;
    expect((await call("approve_review", { unit_id: VIDEO_ID, title: "x" })).isError).toBe(true);
    expect((await call("reject_review", { unit_id: VIDEO_ID })).isError).toBe(true);
    expect((await call("spend", { month: "December" })).isError).toBe(true);
    expect(calls.length).toBe(before);
  });

  test("a tool answers the API client's answer as JSON and structured content", async () => {
    const result = await call("trigger_run", { dimension: "tech-explained" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(examples.triggered);
    expect(JSON.parse(text(result))).toEqual(examples.triggered);
    expect(calls.at(-1)).toEqual({ method: "triggerRun", args: [{ dimension: "tech-explained" }] });
  });

  test("arguments the contract refuses are an error result naming the field, and nothing is called", async () => {
    const before = calls.length;
    const shortKey = await call("trigger_run", { idempotency_key: "short" });
    expect(shortKey.isError).toBe(true);
    expect(text(shortKey)).toMatch(/idempotency_key/);
    const badConfig = await call("add_dimension", { ...dimensionConfig, daily_limit: 51, colour: "red" });
    expect(badConfig.isError).toBe(true);
    expect(text(badConfig)).toMatch(/daily_limit/);
    expect(text(badConfig)).toMatch(/colour/);
    const badRun = await call("run_status", { id: "not-a-uuid" });
    expect(badRun.isError).toBe(true);
    expect(calls.length).toBe(before);
  });

  test("a config the contract takes is sent with its defaults filled, as `dimension add` sends it", async () => {
    await call("add_dimension", dimensionConfig);
    const sent = calls.at(-1)!.args[0] as Record<string, unknown>;
    expect(calls.at(-1)!.method).toBe("addDimension");
    expect(sent).toMatchObject({ id: dimensionConfig.id, daily_limit: 1, tts_rate: "+0%" });
  });

  test("an API refusal is an error result with the CLI's message", async () => {
    const missing = await call("show_dimension", { id: "space-minutes" });
    expect(missing).toMatchObject({ isError: true });
    expect(text(missing)).toBe("no dimension space-minutes");
    const twice = await call("retry_dead_letter", { id: "12" });
    expect(text(twice)).toBe("dead letter 12 was already retried");
  });

  test("weekly_report gives each report's Markdown and its chart as an image", async () => {
    const result = await call("weekly_report", { week: "2026-11-25" });
    expect(result.content).toEqual([
      { type: "text", text: "# Week of 2026-11-23" },
      { type: "image", data: expect.any(String), mimeType: "image/png" },
    ]);
    // The chart drawn from the report's figures: a PNG.
    const png = Buffer.from((result.content as { data: string }[])[1]!.data, "base64");
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.length).toBeGreaterThan(10_000);
    expect(calls.at(-1)).toEqual({ method: "weeklyReports", args: ["2026-11-25", null] });
  });
});

describe("resources", () => {
  test("recent videos are listed; a video's summary leaves the quality gate to its own resource", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([`mdame://videos/${VIDEO_ID}`]);
    const summary = await client.readResource({ uri: `mdame://videos/${VIDEO_ID}` });
    const shown = JSON.parse(resourceText(summary.contents));
    expect(shown.video.title).toBe("Why chips get hot");
    expect(shown).not.toHaveProperty("quality");
    const quality = await client.readResource({ uri: `mdame://videos/${VIDEO_ID}/quality` });
    expect(JSON.parse(resourceText(quality.contents))).toEqual({ id: VIDEO_ID, title: "Why chips get hot", quality: QUALITY });
  });

  test("an unknown video is a not-found error; an id that is no uuid is refused before any call", async () => {
    const other = "0b0c7a52-3c1e-4a53-9a0e-0d3f3c7b9e21";
    await expect(client.readResource({ uri: `mdame://videos/${other}/quality` })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining(`no publication ${other}`),
    });
    const before = calls.length;
    await expect(client.readResource({ uri: "mdame://videos/nope" })).rejects.toMatchObject({ code: -32602 });
    expect(calls.length).toBe(before);
  });
});

describe("mdame mcp arguments", () => {
  test("stdio by default; --http takes a port; a non-loopback --host needs --allow-remote", () => {
    expect(parseArgs(["mcp"])).toEqual({ name: "mcp", http: null, host: "127.0.0.1", allowRemote: false });
    expect(parseArgs(["mcp", "--http", "0"])).toEqual({ name: "mcp", http: 0, host: "127.0.0.1", allowRemote: false });
    expect(parseArgs(["mcp", "--http", "8791", "--host", "::1"])).toMatchObject({ host: "::1" });
    expect(() => parseArgs(["mcp", "--http", "8791", "--host", "0.0.0.0"])).toThrow(/--allow-remote/);
    expect(parseArgs(["mcp", "--http", "8791", "--host", "0.0.0.0", "--allow-remote"])).toMatchObject({ host: "0.0.0.0", allowRemote: true });
    expect(() => parseArgs(["mcp", "--host", "127.0.0.1"])).toThrow(/--http/);
  });
});

describe("stdio", () => {
  test("a client that closes stdin after its last request gets every answer, then the command ends 0", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: string[] = [];
    stdout.on("data", (chunk: Buffer) => lines.push(...chunk.toString("utf8").split("\n").filter(Boolean)));
    const screen = { write: () => {} };
    const ended = mcpCommand({ name: "mcp", http: null, host: "127.0.0.1", allowRemote: false }, fakeBackend(), {
      out: screen,
      err: screen,
      now: Date.now,
      sleep: Bun.sleep,
    }, { env: {}, stdin, stdout });
    const initialize = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } };
    stdin.end(
      [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: initialize },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_dead_letters", arguments: {} } },
      ].map((m) => `${JSON.stringify(m)}\n`).join(""),
    );
    expect(await ended).toBe(0);
    const answers = lines.map((line) => JSON.parse(line));
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1].result.structuredContent).toEqual(examples.deadLetters);
  });
});

describe("Streamable HTTP", () => {
  const TOKEN = "t".repeat(40);
  let server: ReturnType<typeof serveMcpHttp>;

  beforeAll(() => {
    server = serveMcpHttp({ backend: fakeBackend(), port: 0, hostname: "127.0.0.1", loopbackOnly: true, token: TOKEN });
  });
  afterAll(async () => {
    await server.stop();
  });

  const post = (headers: Record<string, string>, body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })) =>
    fetch(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });

  test("the SDK's client with the token lists and calls the tools", async () => {
    const http = new Client({ name: "mcp-http-test", version: "1" });
    await http.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    expect((await http.listTools()).tools.length).toBe(MCP_TOOLS.length);
    expect(((await http.callTool({ name: "run_status", arguments: { id: examples.triggered.run_id } })) as CallToolResult).structuredContent).toEqual(
      examples.runStatus,
    );
    await http.close();
  });

  test("no token, a wrong token or another scheme is 401 with a Bearer challenge", async () => {
    for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${TOKEN}x` }, { authorization: `Basic ${btoa(`x:${TOKEN}`)}` }]) {
      const answer = await post(headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="mdame"');
    }
  });

  test("another Host (DNS rebinding) is 403; a body over the cap is 413 unread; GET is 405", async () => {
    expect((await post({ authorization: `Bearer ${TOKEN}`, host: "attacker.example" })).status).toBe(403);
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(MCP_MAX_BODY_BYTES) } });
    expect((await post({ authorization: `Bearer ${TOKEN}` }, big)).status).toBe(413);
    // Chunked, with no length declared: cut at the cap as it is read.
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await fetch(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: chunks,
    });
    expect(chunked.status).toBe(413);
    const get = await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });
});
