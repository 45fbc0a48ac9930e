/**
 * The HTTP API mdame talks to (the `pipeline` Edge Function), and nothing else: the same calls
 * work against the local stack and a real Supabase project. Every answer is read through its
 * contract; every failure becomes a CliError with its exit code.
 */
import type { z } from "zod";
import {
  AbortedRun,
  DeadLetterList,
  DeadLetterRetry,
  RunList,
  TriggeredRun,
} from "../../shared/contracts/operator.ts";
import { RunStatus } from "../demo/progress.ts";
import type { ApiConfig } from "./config.ts";
import { apiError, CliError, EXIT, networkError } from "./errors.ts";

export interface ApiClient {
  readonly baseUrl: string;
  triggerRun(body: { dimension?: string; idempotency_key?: string }): Promise<TriggeredRun>;
  runStatus(runId: string): Promise<RunStatus>;
  listRuns(limit: number): Promise<RunList>;
  listDeadLetters(limit: number): Promise<DeadLetterList>;
  retryDeadLetter(id: string): Promise<DeadLetterRetry>;
  abortRun(runId: string, reason: string | null): Promise<AbortedRun>;
}

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

const REQUEST_TIMEOUT_MS = 60_000;

export function createApiClient(config: ApiConfig, fetchImpl: Fetch = fetch): ApiClient {
  async function call<T extends z.ZodType>(method: "GET" | "POST", path: string, schema: T, body?: unknown): Promise<z.infer<T>> {
    const url = `${config.baseUrl}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, {
        method,
        headers: {
          authorization: `Bearer ${config.serviceRoleKey}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      throw networkError(config.baseUrl, error);
    }
    let json: unknown = text;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's error page, say): kept as text for the message.
    }
    if (!response.ok) throw apiError(response.status, json, `${method} ${url}`);
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new CliError(`unexpected answer from ${method} ${url}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")}`, EXIT.failure);
    }
    return parsed.data;
  }

  const id = encodeURIComponent;
  return {
    baseUrl: config.baseUrl,
    triggerRun: (body) => call("POST", "/pipeline/runs", TriggeredRun, body),
    runStatus: (runId) => call("GET", `/pipeline/runs/${id(runId)}`, RunStatus),
    listRuns: (limit) => call("GET", `/pipeline/runs?limit=${limit}`, RunList),
    listDeadLetters: (limit) => call("GET", `/pipeline/dead-letters?limit=${limit}`, DeadLetterList),
    retryDeadLetter: (deadLetterId) => call("POST", `/pipeline/dead-letters/${id(deadLetterId)}/retry`, DeadLetterRetry, {}),
    abortRun: (runId, reason) => call("POST", `/pipeline/runs/${id(runId)}/abort`, AbortedRun, reason === null ? {} : { reason }),
  };
}
