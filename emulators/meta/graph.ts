/**
 * What every Graph API route of the Meta emulator shares: Graph's error shape, the parameters of a
 * call, and field selection.
 *
 * - Errors are `{error: {message, type, code, error_subcode?, error_user_title?, error_user_msg?,
 *   is_transient?, fbtrace_id}}` (Graph API "Handling Errors"): `type` is `OAuthException` for
 *   token, permission and most parameter errors, `GraphMethodException` for an object that does not
 *   exist or a method it does not support. Every answer carries a fresh `fbtrace_id`. A code-190
 *   answer also carries `WWW-Authenticate: OAuth "Facebook Platform" "invalid_token" "<message>"`.
 * - Parameters come from the query string and from a form (`application/x-www-form-urlencoded` or
 *   `multipart/form-data`) or JSON body, as Graph accepts them all; a body parameter wins over the
 *   query's. A JSON value that is not a string is passed on as its JSON text (`true`, `5`).
 * - `fields=a,b` names what a read returns; `id` is always included; an unknown field is code 100
 *   "Tried accessing nonexisting field (x) on node type (T)".
 */
import { randomBytes } from "node:crypto";
import { isBodyTooLargeError, readBoundedBytes } from "../../shared/http/bounded-body.ts";
import { jsonResponse } from "../context.ts";

/** Graph paths carry the API version: `/v23.0/...`. Unversioned paths are not emulated. */
export const VERSIONED_PATH = /^\/(v\d{1,3}\.\d{1,2})(\/.*)$/;
const MAX_PARAM_BYTES = 256 * 1024;

export interface GraphErrorFields {
  type?: string;
  subcode?: number;
  userTitle?: string;
  userMessage?: string;
  transient?: boolean;
  status?: number;
  headers?: Record<string, string>;
}

export function fbtraceId(): string {
  return randomBytes(17).toString("base64url").slice(0, 23);
}

/** Graph's error answer (HTTP 400 unless `status` says otherwise). */
export function graphError(code: number, message: string, fields: GraphErrorFields = {}): Response {
  const error: Record<string, unknown> = { message, type: fields.type ?? "OAuthException", code };
  if (fields.subcode !== undefined) error.error_subcode = fields.subcode;
  if (fields.transient !== undefined) error.is_transient = fields.transient;
  if (fields.userTitle !== undefined) error.error_user_title = fields.userTitle;
  if (fields.userMessage !== undefined) error.error_user_msg = fields.userMessage;
  error.fbtrace_id = fbtraceId();
  const headers: Record<string, string> = { ...fields.headers };
  if (code === 190) headers["www-authenticate"] = `OAuth "Facebook Platform" "invalid_token" "${message.replace(/["\\]/g, "")}"`;
  return jsonResponse({ error }, fields.status ?? 400, headers);
}

/** Code 100: a parameter missing or malformed. */
export const invalidParameter = (message: string, fields: GraphErrorFields = {}) => graphError(100, message, fields);

/** Code 100, subcode 33: an id that names nothing this token may see, or a method the object does not support. */
export function unsupportedRequest(method: string, id: string): Response {
  return graphError(
    100,
    `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    { type: "GraphMethodException", subcode: 33 },
  );
}

export const unknownPath = (path: string) => graphError(2500, `Unknown path components: ${path}`);

/** The parameters of a Graph call (query string, then the body's), or a Response when the body cannot be read. */
export async function readParams(req: Request, url: URL): Promise<Record<string, string> | Response> {
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  if (req.method === "GET" || req.method === "HEAD" || req.body === null) return params;
  let bytes: Uint8Array;
  try {
    bytes = await readBoundedBytes(req, MAX_PARAM_BYTES);
  } catch (error) {
    if (isBodyTooLargeError(error)) return invalidParameter(`The request body must be at most ${MAX_PARAM_BYTES} bytes`, { status: 413 });
    return invalidParameter("The request body could not be read");
  }
  if (bytes.length === 0) return params;
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  try {
    if (type.startsWith("application/json")) {
      const body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
      if (body === null || typeof body !== "object" || Array.isArray(body)) return invalidParameter("A JSON body must be an object of parameters");
      for (const [key, value] of Object.entries(body)) {
        if (value === null || value === undefined) continue;
        params[key] = typeof value === "string" ? value : JSON.stringify(value);
      }
      return params;
    }
    if (type.startsWith("multipart/form-data")) {
      const form = await new Response(bytes, { headers: { "content-type": req.headers.get("content-type")! } }).formData();
      for (const [key, value] of form) if (typeof value === "string") params[key] = value;
      return params;
    }
    // Graph reads a body without a declared type as a form, as curl -d sends it.
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    for (const [key, value] of new URLSearchParams(text)) params[key] = value;
    return params;
  } catch {
    return invalidParameter("The request body is not a readable form or JSON object");
  }
}

/** A boolean parameter (`true`/`false`, `1`/`0`), its default when absent, or undefined when malformed. */
export function booleanParam(value: string | undefined, fallback: boolean): boolean | undefined {
  if (value === undefined || value === "") return fallback;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  return undefined;
}

/** An absolute http(s) URL, or undefined. */
export function httpUrl(value: string | undefined): URL | undefined {
  if (!value) return undefined;
  try {
    const parsed = new URL(value);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export type FieldReaders = Record<string, () => unknown>;

/**
 * The object a read answers: `id` and the requested fields (`defaults` when `fields` is absent);
 * a field the reader leaves undefined is omitted, as Graph omits an unset field.
 */
export function selectFields(fields: string | undefined, readers: FieldReaders, defaults: string[], nodeType: string): Record<string, unknown> | Response {
  const wanted = fields === undefined || fields.trim() === "" ? defaults : fields.split(",").map((f) => f.trim()).filter(Boolean);
  const out: Record<string, unknown> = {};
  for (const field of wanted) {
    const read = Object.hasOwn(readers, field) ? readers[field] : undefined;
    if (!read) return invalidParameter(`(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`);
    const value = read();
    if (value !== undefined) out[field] = value;
  }
  if (Object.hasOwn(readers, "id")) out.id = readers.id!();
  return out;
}

/** Graph's timestamp format: `2026-03-08T09:30:00+0000`. */
export function graphTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+0000");
}
