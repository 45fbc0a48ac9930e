import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { findUnstorableText, formatJsonPath } from "../text/storable.ts";
import { readCappedStream } from "./capped-stream.ts";
import { MalformedRequestError } from "./malformed-request.ts";

/**
 * Request bodies read with a hard cap. A body is consumed chunk by chunk and the read stops (the
 * rest is cancelled, never buffered) as soon as the cap is passed, whether or not the client
 * declared a content-length: a chunked upload of any size costs at most the cap in memory.
 */

/** Cap of the `pipeline` function's bodies: its largest (operator) bodies are a few KiB. */
export const PIPELINE_MAX_BODY_BYTES = 64 * 1024;

/** The body passed its cap; answered 413 by the apps' onError. */
export class BodyTooLargeError extends HTTPException {
  constructor(readonly maxBytes: number) {
    super(413, { message: `the body is larger than ${maxBytes} bytes` });
    this.name = "BodyTooLargeError";
  }
}

/** The body is not what the route reads (bad UTF-8, bad JSON, text that cannot be stored); answered 400. */
class MalformedBodyError extends MalformedRequestError {
  constructor(...args: ConstructorParameters<typeof MalformedRequestError>) {
    super(...args);
    this.name = "MalformedBodyError";
  }
}

/** 413 at once when the client declares more than the cap (400 for a Content-Length that is no byte count); nothing is read. */
export function refuseDeclaredLength(request: Request, maxBytes: number): void {
  const declared = request.headers.get("content-length");
  if (declared === null) return;
  if (!/^\d{1,16}$/.test(declared.trim())) throw new MalformedBodyError("content-length is not a byte count");
  if (Number(declared) > maxBytes) throw new BodyTooLargeError(maxBytes);
}

/** The body's bytes, at most `maxBytes`; throws BodyTooLargeError as soon as more arrive. */
export async function readBoundedBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  refuseDeclaredLength(request, maxBytes);
  try {
    // Stops the client's upload past the cap: the bytes not yet sent are never pulled.
    return await readCappedStream(request.body, maxBytes, () => new BodyTooLargeError(maxBytes));
  } catch (error) {
    if (error instanceof HTTPException) throw error;
    if (isBodyTooLarge(error)) throw new BodyTooLargeError(maxBytes);
    throw new MalformedBodyError("the body could not be read");
  }
}

/** The body as UTF-8 text, at most `maxBytes`; invalid UTF-8 is the caller's mistake (400). */
export async function readBoundedText(request: Request, maxBytes: number): Promise<string> {
  const bytes = await readBoundedBytes(request, maxBytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new MalformedBodyError("the body is not valid UTF-8");
  }
}

/**
 * Parses JSON text from a client. Malformed JSON is refused with a 400, and so is the first string
 * (value or key, at any depth) that Postgres cannot store exactly: a NUL, or a lone surrogate that
 * JSON's `\ud800` escapes can carry though UTF-8 cannot. Refused here, every field of every body is
 * covered, named by its path, before it could fail deep in an RPC or be stored as U+FFFD.
 */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's own message quotes the input; the client gets a message of ours.
    throw new MalformedBodyError("the body is not valid JSON");
  }
  const found = findUnstorableText(value);
  if (found) {
    const message = found.key ? `the key ${found.reason}` : found.reason;
    throw new MalformedBodyError(`${formatJsonPath(found.path)}: ${message}`, { code: "unstorable_text", path: found.path, message });
  }
  return value;
}

/**
 * The request again with `text` (already read and checked) as its JSON body: what a route's own
 * validators read next, the client's text itself rather than a copy written again.
 */
export function withJsonBody(request: Request, text: string): Request {
  const headers = new Headers(request.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return new Request(request.url, { method: request.method, headers, body: text });
}

const TOO_LARGE = Symbol.for("mdame.body-too-large");

function isBodyTooLarge(error: unknown): boolean {
  for (let e = error, depth = 0; e !== null && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BodyTooLargeError || (e as Record<symbol, unknown>)[TOO_LARGE] === true) return true;
  }
  return false;
}

/** Whether a thrown value (as a runtime may wrap it) is a body that passed its cap. */
export function isBodyTooLargeError(error: unknown): boolean {
  return isBodyTooLarge(error);
}

/** The same bytes, erroring once more than `maxBytes` went through; the source is cancelled then. */
function cappedStream(source: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel("body too large").catch(() => {});
        const error = Object.assign(new BodyTooLargeError(maxBytes), { [TOO_LARGE]: true });
        controller.error(error);
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 }); // pull only when the route reads: nothing is fetched ahead of its checks
}

/**
 * Caps the body of every request of an app: a declared content-length over the cap is answered 413
 * before anything is read, and any other body is swapped for a capped stream, so a route that reads
 * it in any way (readBoundedText, `c.req.text()`) stops at the cap. Nothing is read here: a route's
 * own checks (a bearer token, say) still come before the first byte.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw;
    if (request.body === null) return await next();
    refuseDeclaredLength(request, maxBytes);
    c.req.raw = new Request(request, { body: cappedStream(request.body, maxBytes), duplex: "half" } as RequestInit);
    await next();
  };
}
