/**
 * The user and their Pages, as Graph answers them to a user or Page token:
 *
 * - `GET /{v}/me` (fields `id`, `name`): the token's user, or its Page for a Page token.
 * - `GET /{v}/me/accounts` (also `/{user-id}/accounts`): the Pages the user manages, default fields
 *   `access_token, category, category_list, name, id, tasks`; `access_token` is the Page token (the
 *   same on every call; it never expires when the user token is long-lived, else it expires with
 *   it) and `fields=instagram_business_account` adds `{id}` of the Page's Instagram professional
 *   account when the grant holds `instagram_basic`. Without `pages_show_list` the list is empty,
 *   as Graph answers it. `{data, paging: {cursors: {before, after}}}`.
 * - `GET /{v}/me/permissions`: `{data: [{permission, status: "granted"}]}`;
 *   `DELETE /{v}/me/permissions` revokes the app (the user's tokens are then refused with code 190,
 *   subcode 458) -> `{success: true}`; `DELETE /{v}/me/permissions/{permission}` takes one back.
 * - `GET /{v}/{page-id}` (fields `id, name, category, link, instagram_business_account,
 *   access_token`) for a Page the caller manages.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { type Caller, gate, managesPage } from "./auth.ts";
import { readParams, selectFields, unsupportedRequest } from "./graph.ts";
import type { MetaPage } from "./model.ts";

const PAGE_TASKS = ["ANALYZE", "ADVERTISE", "MODERATE", "CREATE_CONTENT", "MANAGE"];
const ACCOUNT_DEFAULTS = ["access_token", "category", "category_list", "name", "id", "tasks"];

async function pageObject(caller: Caller, page: MetaPage, fields: string | undefined, defaults: string[]) {
  const pageToken = caller.token.kind === "user" ? await caller.store.pageTokenFor(caller.token, page.page_id) : undefined;
  const ig = caller.grant.scopes.includes("instagram_basic") && page.ig_user_id ? { id: page.ig_user_id } : undefined;
  return selectFields(
    fields,
    {
      id: () => page.page_id,
      name: () => page.name,
      category: () => page.category,
      category_list: () => [{ id: "2700", name: page.category }],
      tasks: () => PAGE_TASKS,
      link: () => `https://www.facebook.com/${page.page_id}`,
      access_token: () => pageToken?.token,
      instagram_business_account: () => ig,
    },
    defaults,
    "Page",
  );
}

async function accounts(caller: Caller, params: Record<string, string>): Promise<Response> {
  if (caller.token.kind !== "user") return unsupportedRequest("GET", caller.token.page_id ?? "me");
  const visible = caller.grant.scopes.includes("pages_show_list") ? caller.user.page_ids : [];
  const data: unknown[] = [];
  for (const pageId of visible) {
    const page = caller.store.page(pageId);
    if (!page) continue;
    const object = await pageObject(caller, page, params.fields, ACCOUNT_DEFAULTS);
    if (object instanceof Response) return object;
    data.push(object);
  }
  const cursor = (id: string | undefined) => (id ? Buffer.from(id).toString("base64url") : undefined);
  return jsonResponse({ data, paging: { cursors: { before: cursor(visible[0]), after: cursor(visible.at(-1)) } } });
}

async function permissions(req: Request, caller: Caller, permission: string | undefined): Promise<Response> {
  const { store, grant, now } = caller;
  if (req.method === "GET") return jsonResponse({ data: grant.scopes.map((p) => ({ permission: p, status: "granted" })) });
  if (req.method !== "DELETE") return unsupportedRequest(req.method, "permissions");
  if (permission === undefined) await store.revokeGrant(grant.app_id, grant.user_id, "app_removed");
  else await store.setGrantScopes(grant.app_id, grant.user_id, grant.scopes.filter((s) => s !== permission), now);
  return jsonResponse({ success: true });
}

/** `segments` is the path after the version, split on `/`. */
export async function handleMetaAccounts(req: Request, url: URL, segments: string[], ctx: EmulatorContext): Promise<Response | undefined> {
  const [first, edge, extra] = segments;
  if (first === undefined) return undefined;
  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const caller = await gate(req, params, ctx, { scopes: [], permissionCode: 200, rateContext: "app" });
  if (caller instanceof Response) return caller;
  const isUser = first === "me" ? caller.token.kind === "user" : first === caller.user.user_id;
  if (isUser && edge === "accounts" && extra === undefined) {
    return req.method === "GET" ? await accounts(caller, params) : unsupportedRequest(req.method, first);
  }
  if (isUser && edge === "permissions") return await permissions(req, caller, extra);
  if (edge !== undefined) return undefined;
  if (req.method !== "GET") return unsupportedRequest(req.method, first);
  if (isUser) {
    const user = caller.user;
    const object = selectFields(params.fields, { id: () => user.user_id, name: () => user.name }, ["name", "id"], "User");
    return object instanceof Response ? object : jsonResponse(object);
  }
  const pageId = first === "me" ? caller.token.page_id! : first;
  const page = caller.store.page(pageId);
  if (!page || !managesPage(caller, pageId)) return unsupportedRequest("GET", first);
  const object = await pageObject(caller, page, params.fields, ["name", "id"]);
  return object instanceof Response ? object : jsonResponse(object);
}
