/** The admin routes of the emulator's OAuth clients and refresh log (clients.ts says what they hold). */
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { CLIENT_ID } from "./clients.ts";

const CLIENTS_PATH = "/_emulator/oauth/clients";
const REFRESHES_PATH = "/_emulator/oauth/refreshes";

export async function handleClientsAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const book = ctx.tokens.clients;
  if (url.pathname === REFRESHES_PATH) {
    return req.method === "GET" ? jsonResponse({ refreshes: book.refreshes() }) : jsonResponse({ error: `use GET on ${REFRESHES_PATH}` }, 405);
  }
  if (url.pathname !== CLIENTS_PATH) return undefined;
  if (req.method === "GET") return jsonResponse({ clients: book.clientIds() });
  if (req.method !== "POST") return jsonResponse({ error: `use GET or POST on ${CLIENTS_PATH}` }, 405);
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const extra = unknownKeys(body, ["client_id", "client_secret"]);
  if (extra) return jsonResponse({ error: extra }, 400);
  if (typeof body.client_id !== "string" || !CLIENT_ID.test(body.client_id)) {
    return jsonResponse({ error: "client_id must be an OAuth client id (1..200 letters, digits, '.', '_' or '-')" }, 400);
  }
  if (typeof body.client_secret !== "string" || body.client_secret === "") return jsonResponse({ error: "client_secret must be a non-empty string" }, 400);
  book.register(body.client_id, body.client_secret);
  return jsonResponse({ client_id: body.client_id });
}
