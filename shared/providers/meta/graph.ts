/**
 * Meta's Graph API as the Instagram and Facebook clients speak it, with fetch only (it runs in the
 * Edge bundle). Runs in Deno and Bun.
 *
 * - A Graph call goes to `<graph base>/<version>/<path>`; the token travels in the Authorization
 *   header (`Bearer`), never in a URL, and POST parameters in a form body.
 * - Graph answers errors `{error: {message, type, code, error_subcode?, is_transient?,
 *   error_user_msg?, fbtrace_id}}` (Graph API, "Handling Errors"): thrown as MetaGraphError with
 *   code and subcode, retriable when Meta says `is_transient` or answers 5xx.
 * - Answers are read with a hard cap and parsed by a zod schema; a failed parse names field paths
 *   only, so no value from an answer (a token among them) reaches an error message.
 * - A dropped connection is ProviderUnavailableError.
 */
import type { z } from "zod";
import { readCappedStream } from "../../http/capped-stream.ts";
import { ProviderError, ProviderUnavailableError } from "../errors.ts";

export const PROVIDER = "meta";

/** Meta's hosts, as documented; the local stack points each at the emulator. */
export const DEFAULT_GRAPH_BASE_URL = "https://graph.facebook.com";
export const DEFAULT_UPLOAD_BASE_URL = "https://rupload.facebook.com";
export const DEFAULT_AUTH_BASE_URL = "https://www.facebook.com";
export const DEFAULT_GRAPH_VERSION = "v23.0";

/** Graph's JSON answers are small; anything near this cap is not one of them. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** Where Graph is and which version the engine speaks. */
export interface GraphHost {
  graphBaseUrl: string;
  version: string;
}

/** Graph refused a call: its code and subcode (Graph API, "Handling Errors"), Meta's words, the HTTP status. */
export class MetaGraphError extends ProviderError {
  readonly code: number;
  readonly subcode?: number;
  /** Meta's own sentence for a person (`error_user_msg`), when it gives one. */
  readonly userMessage?: string;

  constructor(status: number, error: { message: string; code: number; subcode?: number; transient?: boolean; userMessage?: string }, what: string) {
    const sub = error.subcode === undefined ? "" : `, subcode ${error.subcode}`;
    super(PROVIDER, `${what}: Meta answered ${status} (code ${error.code}${sub}): ${clip(error.message)}`, {
      status,
      retriable: error.transient === true || status >= 500,
      reason: String(error.code),
    });
    this.name = "MetaGraphError";
    this.code = error.code;
    this.subcode = error.subcode;
    this.userMessage = error.userMessage;
  }
}

/** Meta's text in an error message, shortened and on one line. */
export function clip(text: string, max = 300): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** fetch, with a dropped connection as ProviderUnavailableError. */
export async function send(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual" });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ProviderUnavailableError(PROVIDER, `${what}: connection failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
}

/** The answer's JSON (undefined when it is not JSON), read with a cap; an unreadable body is an outage. */
export async function readJson(response: Response, what: string): Promise<unknown> {
  let text: string;
  try {
    text = new TextDecoder().decode(await readCappedStream(response.body, MAX_ANSWER_BYTES, () => new Error("too large")));
  } catch {
    throw new ProviderUnavailableError(PROVIDER, `${what}: the answer (${response.status}) was unreadable or larger than ${MAX_ANSWER_BYTES} bytes`, {
      status: response.status,
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** "field.path: problem" for each issue, without the values zod saw. */
export function issuesOf(error: z.ZodError): string {
  return error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.code}`).join("; ");
}

function graphErrorOf(body: unknown): { message: string; code: number; subcode?: number; transient?: boolean; userMessage?: string } | null {
  if (typeof body !== "object" || body === null || !("error" in body)) return null;
  const error = (body as { error: unknown }).error;
  if (typeof error !== "object" || error === null) return null;
  const e = error as Record<string, unknown>;
  if (typeof e.code !== "number") return null;
  return {
    message: typeof e.message === "string" ? e.message : "",
    code: e.code,
    subcode: typeof e.error_subcode === "number" ? e.error_subcode : undefined,
    transient: e.is_transient === true,
    userMessage: typeof e.error_user_msg === "string" ? e.error_user_msg : undefined,
  };
}

/**
 * One Graph call: `method` on `<version>/<path>` with `params` (the query string for GET, a form
 * body for POST) and the token in the Authorization header; the answer parsed by `answer`.
 */
export async function graphCall<T extends z.ZodType>(input: {
  host: GraphHost;
  method: "GET" | "POST";
  path: string;
  params?: Record<string, string | number | boolean | undefined>;
  token?: string;
  answer: T;
  what: string;
  signal?: AbortSignal;
}): Promise<z.infer<T>> {
  const url = new URL(`/${input.host.version}/${input.path.replace(/^\//, "")}`, input.host.graphBaseUrl);
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input.params ?? {})) if (value !== undefined) params.set(key, String(value));
  const headers: Record<string, string> = {};
  if (input.token !== undefined) headers.authorization = `Bearer ${input.token}`;
  let body: string | undefined;
  if (input.method === "GET") {
    for (const [key, value] of params) url.searchParams.set(key, value);
  } else {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = params.toString();
  }
  const response = await send(url.toString(), { method: input.method, headers, body, signal: input.signal }, input.what);
  const json = await readJson(response, input.what);
  const error = graphErrorOf(json);
  if (error) throw new MetaGraphError(response.status, error, input.what);
  if (response.status < 200 || response.status > 299) {
    const message = `${input.what}: Meta answered ${response.status} without Graph's error shape`;
    if (response.status === 429 || response.status >= 500) throw new ProviderUnavailableError(PROVIDER, message, { status: response.status });
    throw new MetaGraphError(response.status, { message: "no error body", code: -1 }, input.what);
  }
  const parsed = input.answer.safeParse(json);
  if (!parsed.success) {
    throw new ProviderUnavailableError(PROVIDER, `${input.what}: the answer is malformed (${issuesOf(parsed.error)})`, { status: response.status });
  }
  return parsed.data;
}
