/**
 * HTTP for the source clients: a time limit on every call, a cap on what is read, and failures as
 * the provider error classes (429/5xx and unreachable: retriable; other 4xx: rejected).
 */
import { readCappedStream } from "../../http/capped-stream.ts";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";

/** A source answer larger than this is refused rather than buffered (feeds and listings are far smaller). */
const SOURCE_MAX_BYTES = 4 * 1024 * 1024;
const SOURCE_TIMEOUT_MS = 10_000;

interface SourceRequest {
  provider: string;
  url: URL | string;
  init?: RequestInit;
  signal?: AbortSignal;
}

async function readCapped(provider: string, response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > SOURCE_MAX_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw new ProviderUnavailableError(provider, `answer of ${declared} bytes is over the ${SOURCE_MAX_BYTES}-byte cap`);
  }
  const bytes = await readCappedStream(
    response.body,
    SOURCE_MAX_BYTES,
    () => new ProviderUnavailableError(provider, `answer is over the ${SOURCE_MAX_BYTES}-byte cap`),
  );
  return new TextDecoder().decode(bytes);
}

/** The body of a successful answer, as text. */
export async function requestText({ provider, url, init, signal }: SourceRequest): Promise<string> {
  const timeout = AbortSignal.timeout(SOURCE_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (error) {
    const reason = timeout.aborted ? `no answer within ${SOURCE_TIMEOUT_MS / 1000} s` : error instanceof Error ? error.message : String(error);
    throw new ProviderUnavailableError(provider, `${provider} request failed: ${reason}`, { cause: error });
  }
  const body = await readCapped(provider, response);
  if (!response.ok) throw errorForStatus(provider, response.status, `${provider} answered ${response.status}: ${body.slice(0, 200)}`);
  return body;
}

/** The JSON body of a successful answer; an answer that is not JSON is an outage of the source. */
export async function requestJson(request: SourceRequest): Promise<unknown> {
  const text = await requestText(request);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProviderUnavailableError(request.provider, `${request.provider} answered malformed JSON: ${text.slice(0, 80)}`, { cause: error });
  }
}

/** Runs `task` over `items`, at most `width` at a time, keeping their order. */
export async function mapLimited<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await task(items[at]);
    }
  });
  await Promise.all(lanes);
  return results;
}
