/**
 * The MCP server of `mdame mcp`: the tools and resources of tools.ts registered on the SDK's
 * McpServer, over whichever transport the command connects (stdio, or Streamable HTTP per request).
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../../stack/paths.ts";
import { CliError, EXIT } from "../errors.ts";
import { LISTED_VIDEOS, MCP_TOOLS, type McpBackend, VIDEO_RESOURCES, VideoResourceParams } from "./tools.ts";

/** JSON-RPC code of a resource that does not exist (MCP: resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A failed call as the model reads it: the line `mdame` prints for the same failure (the API's 400
 * issues, 404, 409, an unreachable API), without its `mdame: ` prefix, and marked as an error.
 */
function toolError(error: unknown): CallToolResult {
  const text = error instanceof CliError ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: "text", text }], isError: true };
}

/** A failed resource read as a JSON-RPC error: not found for a 404, the CLI's message either way. */
function resourceError(error: unknown): McpError {
  if (error instanceof CliError) return new McpError(error.exitCode === EXIT.notFound ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, error.message);
  return new McpError(ErrorCode.InternalError, `unexpected error: ${error instanceof Error ? error.message : String(error)}`);
}

/** The publication id of a resource URI's `{id}`, checked with the route's own parameter schema. */
function videoId(variables: Record<string, string | string[]>): string {
  const parsed = VideoResourceParams.safeParse({ id: variables.id });
  if (!parsed.success) {
    throw new McpError(ErrorCode.InvalidParams, `a video resource is named by its publication's id (a uuid), not ${JSON.stringify(variables.id)}`);
  }
  return parsed.data.id;
}

/** The project's version, as package.json declares it. */
const VERSION = (JSON.parse(readFileSync(join(paths.root, "package.json"), "utf8")) as { version: string }).version;

export function createMcpServer(backend: McpBackend): McpServer {
  const server = new McpServer({ name: "mdame", title: "MD-AME operator", version: VERSION });
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
      async (args) => {
        try {
          return await tool.run(backend, args);
        } catch (error) {
          return toolError(error);
        }
      },
    );
  }
  // Recent videos are listed under the summary template; the quality template names the same ids.
  const listVideos = async () => {
    try {
      const { videos } = await backend.ops.videos(LISTED_VIDEOS);
      return {
        resources: videos.map((v) => ({
          uri: `mdame://videos/${v.id}`,
          name: `${v.platform} ${v.channel_handle}: ${v.title ?? v.unit_id}`,
          mimeType: "application/json",
        })),
      };
    } catch (error) {
      throw resourceError(error);
    }
  };
  for (const resource of Object.values(VIDEO_RESOURCES)) {
    const template = new ResourceTemplate(resource.template, { list: resource === VIDEO_RESOURCES.summary ? listVideos : undefined });
    server.registerResource(
      resource.name,
      template,
      { title: resource.title, description: resource.description, mimeType: "application/json" },
      async (uri, variables) => {
        const id = videoId(variables);
        try {
          return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(await resource.read(backend, id), null, 2) }] };
        } catch (error) {
          throw resourceError(error);
        }
      },
    );
  }
  return server;
}
