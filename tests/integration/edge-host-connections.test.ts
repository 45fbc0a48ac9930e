/**
 * The local edge host (Deno, stack/edge-host.ts) against hostile clients on raw sockets: methods
 * a fetch Request cannot carry, refused uploads that never end, and headers that never finish.
 * Each must end with an answer and a closed connection, never a held socket or a stack trace.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { Writable } from "node:stream";
import { ErrorAnswer } from "../../shared/contracts/http-error.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import * as db from "../../stack/db.ts";
import { serveEdge } from "../../stack/edge-server.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type EdgeHostProcess, startEdgeHost } from "../fixtures/edge-host-process.ts";

let edgeHost: EdgeHostProcess;
let port: number;

async function waitFor(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A raw connection that records what the server sends and whether it closed the connection. */
function rawClient(first: string) {
  const socket: Socket = connect(port, "127.0.0.1");
  const state = { received: "", closed: false, socket };
  socket.on("connect", () => socket.write(first));
  socket.on("data", (chunk) => (state.received += chunk.toString("latin1")));
  // Writes after the server closed fail; the close is what the tests look for.
  socket.on("error", () => {});
  socket.on("close", () => (state.closed = true));
  return state;
}

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  edgeHost = await startEdgeHost({ ...localStackEnv(), MDAME_EDGE_HEADERS_TIMEOUT_MS: "500", LOG_LEVEL: "info" });
  port = edgeHost.port;
}, 120_000);

afterAll(async () => {
  await edgeHost?.stop();
}, 60_000);

describe("edge host connections", () => {
  test("TRACE, TRACK and oversized headers are refused in the error shape, with no stack trace in the log", async () => {
    const trace = rawClient("TRACE /functions/v1/pipeline/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await waitFor("the TRACE answer", () => trace.closed, 10_000);
    const [head, body] = trace.received.split("\r\n\r\n");
    expect(head).toStartWith("HTTP/1.1 405 ");
    expect(ErrorAnswer.parse(JSON.parse(body!)).error).toContain("TRACE");

    const track = rawClient("TRACK /functions/v1/pipeline/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await waitFor("the TRACK answer", () => track.closed, 10_000);
    // The HTTP parser refuses a method it does not know before any handler; still a 405 in the error shape.
    const [trackHead, trackBody] = track.received.split("\r\n\r\n");
    expect(trackHead).toStartWith("HTTP/1.1 405 ");
    expect(trackHead!.toLowerCase()).toContain("allow: get, head, post");
    expect(ErrorAnswer.parse(JSON.parse(trackBody!)).error).toContain("not allowed");

    const oversized = rawClient(`GET /functions/v1/pipeline/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${"k".repeat(32 * 1024)}\r\n\r\n`);
    await waitFor("the oversized header answer", () => oversized.closed, 10_000);
    const [bigHead, bigBody] = oversized.received.split("\r\n\r\n");
    expect(bigHead).toStartWith("HTTP/1.1 431 ");
    expect(ErrorAnswer.parse(JSON.parse(bigBody!)).error).toContain("too large");

    expect(edgeHost.output()).not.toContain("Method is forbidden");
    expect(edgeHost.output()).not.toMatch(/^\s+at /m);
    expect(edgeHost.child.exitCode).toBeNull();
  }, 30_000);

  test("refused chunked uploads that never end get their 401 and lose their connection", async () => {
    // Each client sends the head and a first chunk, then neither sends more nor closes.
    const clients = Array.from(
      { length: 20 },
      () =>
        rawClient(
          'POST /functions/v1/pipeline/tick HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"reason":"x"   \r\n',
        ),
    );
    try {
      await waitFor("every refused connection to be closed", () => clients.every((c) => c.closed), 20_000);
    } finally {
      for (const client of clients) client.socket.destroy();
    }
    for (const client of clients) expect(client.received).toStartWith("HTTP/1.1 401 ");
  }, 40_000);

  test("a client that never finishes its headers is disconnected", async () => {
    const client = rawClient("GET /functions/v1/pipeline/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaa");
    try {
      await waitFor("the server to close the slow connection", () => client.closed, 20_000);
    } finally {
      client.socket.destroy();
    }
    expect(client.received).not.toContain("200 OK");
    expect(edgeHost.child.exitCode).toBeNull();
  }, 40_000);
});

describe("edge server", () => {
  test("an error the handler throws is one log line and a 500 carrying its id, never the stack", async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const server = await serveEdge({
      hostname: "127.0.0.1",
      port: 0,
      logger: createLogger("edge-host", destination),
      handler: () => {
        throw new Error("secret detail at /srv/app.ts:12");
      },
    });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/functions/v1/pipeline/health`);
      expect(response.status).toBe(500);
      const answer = ErrorAnswer.parse(await response.json());
      expect(answer.error).toBe("internal error");
      expect(answer.error_id).toBeString();
      const logged = lines.filter((line) => line.error_id === answer.error_id);
      expect(logged).toHaveLength(1);
      expect(logged[0]!.msg).toBe("edge request failed");
    } finally {
      await server.shutdown();
    }
  });
});
