/**
 * `mdame mcp --http <port>`: the MCP server over Streamable HTTP at `/mcp`, served with Bun.serve.
 * Every request must carry the bearer token (compared in constant time); the server listens on
 * 127.0.0.1 unless told otherwise, and then answers only the Host names of that address (a rebound
 * DNS name is refused). Stateless: each POST gets a server and transport of its own, answered as
 * JSON, so nothing is kept between requests and no session can leak into another client's.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { HTTPException } from "hono/http-exception";
import { PIPELINE_MAX_BODY_BYTES, refuseDeclaredLength } from "../../shared/http/bounded-body.ts";
import { REQUEST_TIMEOUT_MS } from "../api-client.ts";
import { bracketHost, hostAllowed } from "../dashboard/security.ts";
import { sameToken } from "../dashboard/sessions.ts";
import { createMcpServer } from "./server.ts";
import type { McpBackend } from "./tools.ts";

/** Where the endpoint answers. */
export const MCP_PATH = "/mcp";

/** A request's cap: the API's largest body (a dimension's configuration) and the JSON-RPC envelope around it. */
export const MCP_MAX_BODY_BYTES = 2 * PIPELINE_MAX_BODY_BYTES;

/** A request stays open while its tool waits for the API (Bun.serve's default would end it after 10 s of silence). */
const IDLE_TIMEOUT_S = Math.ceil(REQUEST_TIMEOUT_MS / 1000) + 15;

interface McpHttpOptions {
  backend: McpBackend;
  /** 0 picks a free port. */
  port: number;
  /** The address to listen on; a non-loopback one is the caller's explicit choice (--allow-remote). */
  hostname: string;
  /** The address is a loopback one: only its own Host names are answered. */
  loopbackOnly: boolean;
  token: string;
}

interface RunningMcpHttp {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** A JSON-RPC error answer with no id, as the SDK's transport answers HTTP-level refusals. */
function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status, headers });
}

function bearer(request: Request): string | null {
  const match = /^Bearer ([\x21-\x7e]+)$/i.exec(request.headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

export function serveMcpHttp(options: McpHttpOptions): RunningMcpHttp {
  let port = 0;
  const shownHost = bracketHost(options.hostname);

  async function handle(request: Request): Promise<Response> {
    // The Host names of this server's own address; a rebound DNS name resolving to it is none of them.
    if (options.loopbackOnly && !hostAllowed(request.headers.get("host"), port, [shownHost])) {
      return refusal(403, "this server answers only on its loopback address");
    }
    if (new URL(request.url).pathname !== MCP_PATH) return refusal(404, `the MCP endpoint is ${MCP_PATH}`);
    const presented = bearer(request);
    if (presented === null || !sameToken(presented, options.token)) {
      return refusal(401, "a bearer token is required (Authorization: Bearer <the server's token>)", { "www-authenticate": 'Bearer realm="mdame"' });
    }
    // Stateless: no stream to open (GET) and no session to end (DELETE).
    if (request.method !== "POST") return refusal(405, "only POST is served: this server keeps no session", { allow: "POST" });
    try {
      refuseDeclaredLength(request, MCP_MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof HTTPException) return refusal(error.status, error.message);
      throw error;
    }
    const server = createMcpServer(options.backend);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      // A chunked body of any size is cut at the cap as it is read.
      maxRequestBodySize: MCP_MAX_BODY_BYTES,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  }

  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    maxRequestBodySize: MCP_MAX_BODY_BYTES + 1,
    idleTimeout: IDLE_TIMEOUT_S,
    fetch: handle,
  });
  port = server.port ?? options.port;
  return {
    port,
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    stop: async () => {
      await server.stop(true);
    },
  };
}
