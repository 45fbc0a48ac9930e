/**
 * The edge host's HTTP server: node:http (in Deno) around a fetch-style handler, because it bounds
 * what Deno.serve leaves open: a client must send its request headers within `headersTimeoutMs`
 * and its whole request within `requestTimeoutMs`, or its connection is closed. A request whose
 * body the handler did not read to its end is answered with `connection: close`, and the rest of
 * the body is drained for a short while at most before the socket is closed, so a refused upload
 * never keeps its connection. Methods a fetch Request cannot carry (TRACE, TRACK, CONNECT) are
 * answered 405 without reaching the handler; an error the handler throws becomes one log line
 * with an id and a 500 carrying that id.
 */
import { createServer, type IncomingMessage, METHODS, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { ErrorAnswer } from "../shared/contracts/http-error.ts";
import type { Logger } from "../shared/logging/logger.ts";

interface EdgeServerOptions {
  hostname: string;
  port: number;
  handler: (request: Request) => Response | Promise<Response>;
  logger: Logger;
  /** Default 10 s. */
  headersTimeoutMs?: number;
  /** Default 60 s: the engine's requests are small JSON bodies. */
  requestTimeoutMs?: number;
  /** How long an unread request body is drained after the answer before the socket closes. Default 1 s. */
  drainMs?: number;
  /** How much of an unread request body is drained at most. Default 64 KiB. */
  drainBytes?: number;
}

interface EdgeServer {
  /** The port listened on (the given one, or the one the system picked for 0). */
  port: number;
  /** Stops accepting, closes idle connections and waits for the others. */
  shutdown(): Promise<void>;
}

/** Methods the fetch API refuses to carry ("Method is forbidden"); CONNECT never reaches the handler. */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** Every method some route serves: the Allow of a method no route can serve. */
const ALL_SERVED_METHODS = "GET, HEAD, POST, PATCH, DELETE";
const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 405: "Method Not Allowed", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** A request line whose method is a plain token: when the parser refused it, the method is what it did not know. */
const WELL_FORMED_REQUEST_LINE = /^([A-Z]{1,20}) \S+ HTTP\/1\.[01]\r?\n/;

/**
 * The answer to a request node:http's parser refused, by its error code. Node names an unknown
 * method HPE_INVALID_METHOD; Deno's parser gives a plain HPE_ERROR, so the request line tells.
 */
function parserRefusal(error: NodeJS.ErrnoException & { rawPacket?: unknown }): [status: number, body: ErrorAnswer] {
  const requestLine = error.rawPacket instanceof Uint8Array ? new TextDecoder().decode(error.rawPacket.subarray(0, 256)) : "";
  const method = WELL_FORMED_REQUEST_LINE.exec(requestLine)?.[1];
  const code = error.code === "HPE_ERROR" && method !== undefined && !METHODS.includes(method) ? "HPE_INVALID_METHOD" : error.code;
  switch (code) {
    case "HPE_INVALID_METHOD":
      return [405, { error: "method is not allowed" }];
    case "HPE_HEADER_OVERFLOW":
      return [431, { error: "request headers are too large (at most 16 KiB)" }];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, { error: "the request took too long to arrive" }];
    default:
      return [400, { error: "malformed HTTP request" }];
  }
}

function errorAnswer(response: ServerResponse, status: number, body: ErrorAnswer, extra: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), connection: "close", ...extra });
  response.end(text);
}

/** Reads the request body only when the handler reads it: nothing is buffered ahead of the handler. */
function lazyBody(request: IncomingMessage) {
  let iterator: AsyncIterator<Buffer> | null = null;
  const next = () => (iterator ??= request[Symbol.asyncIterator]()).next();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value));
    },
  }, { highWaterMark: 0 });
  return { stream, next };
}

function toRequest(message: IncomingMessage, origin: string, body: ReadableStream<Uint8Array> | null): Request {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const init: RequestInit & { duplex?: "half" } = { method: message.method, headers };
  if (body) {
    init.body = body;
    init.duplex = "half";
  }
  return new Request(new URL(message.url ?? "/", origin).href, init);
}

async function writeResponse(response: Response, out: ServerResponse, closeAfter: boolean): Promise<void> {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers.push([name, value]);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push(["set-cookie", cookie]);
  if (closeAfter) headers.push(["connection", "close"]);
  out.writeHead(response.status, response.statusText, headers.flat());
  if (response.body) {
    for await (const chunk of response.body) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", resolve));
    }
  }
  await new Promise<void>((resolve) => out.end(resolve));
}

/**
 * Discards what is left of a body the handler did not read, within `drainBytes` and `drainMs`,
 * then closes the socket: the answer reaches the client before the close, and a body that never
 * ends cannot hold the connection.
 */
async function drainThenClose(message: IncomingMessage, next: () => Promise<IteratorResult<Buffer>>, drainBytes: number, drainMs: number): Promise<void> {
  const socket = message.socket;
  const timer = setTimeout(() => socket.destroy(), drainMs);
  try {
    let drained = 0;
    while (drained <= drainBytes) {
      const { value, done } = await next();
      if (done) return;
      drained += value.length;
    }
    socket.destroy();
  } catch {
    socket.destroy();
  } finally {
    clearTimeout(timer);
  }
}

/** Serves `handler` on `hostname:port` until `shutdown()`. */
export async function serveEdge(options: EdgeServerOptions): Promise<EdgeServer> {
  const { handler, logger } = options;
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 60_000, headersTimeout);
  const drainMs = options.drainMs ?? 1_000;
  const drainBytes = options.drainBytes ?? 64 * 1024;

  const server: Server = createServer({
    headersTimeout,
    requestTimeout,
    // How often the two timeouts above are checked; Node's default (30 s) would let them overrun.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
  }, (message, out) => {
    void answer(message, out);
  });

  // A request the HTTP parser refuses (a method it does not know, headers past its limit, bad
  // framing) never reaches `answer`: it still gets a JSON answer, then the connection closes.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const [status, body] = parserRefusal(error);
    if (socket.writable) {
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n${
          status === 405 ? `allow: ${ALL_SERVED_METHODS}\r\n` : ""
        }\r\n${text}`,
      );
    }
    socket.destroy();
  });

  async function answer(message: IncomingMessage, out: ServerResponse): Promise<void> {
    const { stream, next } = lazyBody(message);
    try {
      const method = (message.method ?? "GET").toUpperCase();
      if (FORBIDDEN_METHODS.has(method)) {
        errorAnswer(out, 405, { error: `method ${method} is not allowed` }, { allow: ALL_SERVED_METHODS });
      } else {
        const hasBody = method !== "GET" && method !== "HEAD";
        const response = await handler(toRequest(message, `http://${options.hostname}:${port}`, hasBody ? stream : null));
        await writeResponse(response, out, !message.complete);
      }
    } catch (error) {
      const errorId = crypto.randomUUID();
      logger.error({ err: error, error_id: errorId, method: message.method, path: (message.url ?? "").split("?")[0], status: "failed" }, "edge request failed");
      errorAnswer(out, 500, { error: "internal error", error_id: errorId });
    }
    if (!message.complete) await drainThenClose(message, next, drainBytes, drainMs);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;

  return {
    port,
    shutdown: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
