/**
 * `mdame mcp [--http <port> [--host <address> [--allow-remote]]]`: the operator's controls as an MCP
 * server (docs/mcp.md). Over stdio by default, for a client that spawns it; over Streamable HTTP with
 * --http, behind a bearer token. Either way it calls the same API as the other commands, with the
 * key this process holds: a client never sees the service-role key.
 */
import { randomBytes } from "node:crypto";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { isLoopbackUrl } from "../../shared/config/env.ts";
import type { CommandSpec } from "../command-spec.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import type { McpBackend } from "../mcp/tools.ts";
import { type CommandContext, printLine } from "../output.ts";
import { bracketHost } from "../dashboard/security.ts";

export type McpCommand = { name: "mcp"; http: number | null; host: string; allowRemote: boolean };

/** The environment variable holding the HTTP server's bearer token. */
export const MCP_TOKEN_VARIABLE = "MDAME_MCP_TOKEN";
/** A token shorter than this is refused: it would be guessable. */
const MIN_TOKEN_LENGTH = 32;
const DEFAULT_HOST = "127.0.0.1";

export const MCP_SPECS: CommandSpec[] = [
  {
    words: ["mcp"],
    positionals: [],
    flags: [
      {
        name: "http",
        kind: "integer",
        value: "<port>",
        description: "serve Streamable HTTP on this port (0 picks a free one) instead of stdio",
        min: 0,
        max: 65535,
      },
      { name: "host", kind: "string", value: "<address>", description: `address to listen on with --http (default ${DEFAULT_HOST})` },
      { name: "allow-remote", kind: "boolean", description: "let --host be an address other machines reach" },
    ],
    summary: "serve the operator's controls to MCP clients: dimensions, runs, dead letters, the weekly report, videos",
    details:
      `Over stdio by default (the client starts \`mdame mcp\`). With --http, requests must carry \`Authorization: Bearer <token>\`: the token is ${MCP_TOKEN_VARIABLE} (at least ${MIN_TOKEN_LENGTH} characters), or one made at start and printed. See docs/mcp.md.`,
  },
];

/** True for an address only this machine reaches (127.0.0.0/8, localhost, ::1). */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackUrl(`http://${bracketHost(host)}/`);
}

/** Parses the flags of `mcp` (args.ts has checked their kinds). */
export function parseMcp(flags: Map<string, string | number | boolean>): McpCommand {
  const http = flags.get("http");
  const host = flags.get("host");
  const allowRemote = flags.get("allow-remote") === true;
  if (http === undefined && (host !== undefined || allowRemote)) throw new UsageError("--host and --allow-remote go with --http <port>", "mcp");
  const address = typeof host === "string" ? host : DEFAULT_HOST;
  if (!isLoopbackHost(address) && !allowRemote) {
    throw new UsageError(
      `--host ${address} is reachable from other machines: add --allow-remote to mean it (the bearer token is then all that guards it)`,
      "mcp",
    );
  }
  return { name: "mcp", http: typeof http === "number" ? http : null, host: address, allowRemote };
}

interface McpRunOptions {
  env: Record<string, string | undefined>;
  /** The protocol's streams in stdio mode; the process's by default. */
  stdin?: Readable;
  stdout?: Writable;
  /** Resolves when the HTTP server should stop; SIGINT or SIGTERM by default. */
  until?: Promise<unknown>;
}

/** Serves MCP on stdin and stdout until the client closes stdin; nothing else is written to stdout. */
async function serveStdio(backend: McpBackend, stdin: Readable, stdout: Writable): Promise<number> {
  // The SDK is loaded only by this command, as the dashboard's modules are by theirs (cli/main.ts).
  const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([import("@modelcontextprotocol/sdk/server/stdio.js"), import("../mcp/server.ts")]);
  const server = createMcpServer(backend);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const transport = new StdioServerTransport(stdin, stdout);
  await server.connect(transport);
  // A client that closes stdin right after its last request still gets every answer: the server
  // closes once the requests read have all been answered.
  let unanswered = 0;
  let inputEnded = false;
  const closeWhenAnswered = () => {
    if (inputEnded && unanswered === 0) void server.close();
  };
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    if ("method" in message && "id" in message) unanswered++;
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    await send(message);
    if ("id" in message && ("result" in message || "error" in message)) {
      unanswered--;
      closeWhenAnswered();
    }
  };
  stdin.once("end", () => {
    inputEnded = true;
    closeWhenAnswered();
  });
  await closed;
  return EXIT.ok;
}

function httpToken(env: Record<string, string | undefined>): { token: string; generated: boolean } {
  const given = env[MCP_TOKEN_VARIABLE];
  if (given === undefined || given === "") return { token: randomBytes(32).toString("base64url"), generated: true };
  if (given.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(given)) {
    throw new CliError(`${MCP_TOKEN_VARIABLE} must be at least ${MIN_TOKEN_LENGTH} printable characters without spaces`, EXIT.usage);
  }
  return { token: given, generated: false };
}

export async function mcpCommand(command: McpCommand, backend: McpBackend, ctx: CommandContext, options: McpRunOptions): Promise<number> {
  if (command.http === null) return await serveStdio(backend, options.stdin ?? process.stdin, options.stdout ?? process.stdout);
  const { token, generated } = httpToken(options.env);
  const { serveMcpHttp } = await import("../mcp/http.ts");
  let running: ReturnType<typeof serveMcpHttp>;
  try {
    running = serveMcpHttp({ backend, port: command.http, hostname: command.host, loopbackOnly: isLoopbackHost(command.host), token });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `cannot serve MCP on ${command.host}:${command.http}: ${message}${/in use|EADDRINUSE/i.test(message) ? " (try --http 0)" : ""}`,
      EXIT.failure,
    );
  }
  printLine(ctx.out, `MCP server at ${running.url} reading ${backend.baseUrl}`);
  printLine(
    ctx.out,
    generated ? `bearer token (made for this server; set ${MCP_TOKEN_VARIABLE} to choose one): ${token}` : `bearer token: ${MCP_TOKEN_VARIABLE}`,
  );
  printLine(ctx.out, "Ctrl-C stops it.");
  const until = options.until ?? new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await until;
  await running.stop();
  return EXIT.ok;
}
