/**
 * YouTube Data API v3 `channels.list` for the signed-in user, as the connect flow asks it
 * (`GET /youtube/v3/channels?part=snippet&mine=true` with `Authorization: Bearer`): the channel
 * of the access token's refresh token, with YouTube's id form (`UC...`) and `@handle` as customUrl.
 * Only `mine=true` is served; a request without a filter is 400, without a valid token 401. Costs
 * 1 unit of the token's project (403 `quotaExceeded` when its units are spent; rules.ts).
 */
import type { EmulatorContext } from "../context.ts";
import { googleError, jsonResponse } from "../context.ts";
import { channelIdFor } from "../google-oauth/routes.ts";
import { chargeApiCall } from "./state.ts";

export const CHANNELS_PATH = "/youtube/v3/channels";
const PARTS = new Set(["id", "snippet", "contentDetails", "statistics", "status", "brandingSettings"]);

export async function listChannels(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  if (req.method !== "GET") return googleError(405, "METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${CHANNELS_PATH}.`);
  const token = await chargeApiCall(req, ctx, "channels.list");
  if (token instanceof Response) return token;
  const parts = url.searchParams.getAll("part").flatMap((p) => p.split(",")).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) {
    return googleError(400, "INVALID_ARGUMENT", "No filter selected. Expected one of: mine, id, forHandle, forUsername, managedByMe, categoryId");
  }
  const unknown = parts.find((p) => !PARTS.has(p));
  if (unknown) return googleError(400, "INVALID_ARGUMENT", `'${unknown}'`, { errors: [{ reason: "unknownPart", domain: "youtube.part" }] });
  if (url.searchParams.get("mine") !== "true") {
    return googleError(400, "INVALID_ARGUMENT", "No filter selected. Expected one of: mine, id, forHandle, forUsername, managedByMe, categoryId");
  }
  const channel: Record<string, unknown> = { kind: "youtube#channel", etag: `emulator-${token.channel}`, id: channelIdFor(token.channel) };
  if (parts.includes("snippet")) {
    channel.snippet = { title: token.channel, description: "", customUrl: `@${token.channel}`, publishedAt: "2024-01-01T00:00:00Z" };
  }
  return jsonResponse({
    kind: "youtube#channelListResponse",
    etag: "emulator-channels",
    pageInfo: { totalResults: 1, resultsPerPage: 5 },
    items: [channel],
  });
}
