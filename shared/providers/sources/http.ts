/**
 * HTTP for the source clients: a time limit on every call, a cap on what is read, and failures as
 * the provider error classes (429/5xx and unreachable: retriable; other 4xx: rejected).
 */
import { readCappedStream } from "../../http/capped-stream.ts";
import { errorForStatus, ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";
import type { UrlGuard } from "./address-guard.ts";

/** A source answer larger than this is refused rather than buffered (feeds and listings are far smaller). */
const SOURCE_MAX_BYTES = 4 * 1024 * 1024;
const SOURCE_TIMEOUT_MS = 10_000;
/** Redirects followed by hand when a guard checks each one. */
const MAX_REDIRECTS = 5;

interface SourceRequest {
  provider: string;
  url: URL | string;
  init?: RequestInit;
  signal?: AbortSignal;
  /** Checks the URL and every redirect's target before it is requested. */
  guard?: UrlGuard;
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
export async function requestText({ provider, url, init, signal, guard }: SourceRequest): Promise<string> {
  const timeout = AbortSignal.timeout(SOURCE_TIMEOUT_MS);
  const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let target = new URL(url);
  let response: Response;
  for (let hop = 0;; hop++) {
    await guard?.(target);
    try {
      response = await fetch(target, { ...init, signal: abort, redirect: guard ? "manual" : "follow" });
    } catch (error) {
      const reason = timeout.aborted ? `no answer within ${SOURCE_TIMEOUT_MS / 1000} s` : error instanceof Error ? error.message : String(error);
      throw new ProviderUnavailableError(provider, `${provider} request failed: ${reason}`, { cause: error });
    }
    const location = response.headers.get("location");
    if (!guard || response.status < 300 || response.status > 399 || location === null) break;
    await response.body?.cancel().catch(() => {});
    if (hop === MAX_REDIRECTS) throw new ProviderRejectedError(provider, `more than ${MAX_REDIRECTS} redirects from ${new URL(url).origin}`);
    target = new URL(location, target);
    if (target.protocol !== "http:" && target.protocol !== "https:") throw new ProviderRejectedError(provider, `redirected to a ${target.protocol} URL`);
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
