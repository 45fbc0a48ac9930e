/**
 * What every Storage emulator route shares: Storage's JSON error shape, the service-key check and
 * bounded body reading.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { open } from "node:fs/promises";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";

/** JSON request bodies (list, sign, remove, bucket) are small; anything bigger is refused. */
const JSON_BODY_CAP = 64 * 1024;

/**
 * Storage's error body: `{statusCode, code, error, message}`; storage-js reads `statusCode`/`code`
 * into StorageApiError and `exists()` keys on `code: "NoSuchKey"`.
 */
export function storageError(status: number, code: string, error: string, message: string): Response {
  return jsonResponse({ statusCode: String(status), code, error, message }, status);
}

export const errors = {
  noSuchKey: () => storageError(404, "NoSuchKey", "not_found", "Object not found"),
  noSuchBucket: () => storageError(404, "NoSuchBucket", "Bucket not found", "Bucket not found"),
  duplicate: () => storageError(409, "Duplicate", "Duplicate", "The resource already exists"),
  bucketExists: () => storageError(409, "BucketAlreadyExists", "Duplicate", "The resource already exists"),
  invalid: (message: string) => storageError(400, "InvalidRequest", "Bad Request", message),
  invalidKey: (key: string) => storageError(400, "InvalidKey", "Invalid Key", `Invalid key: ${key}`),
  tooLarge: (cap: number) => storageError(413, "EntityTooLarge", "Payload too large", `The object exceeded the maximum allowed size (${cap} bytes)`),
  invalidSignature: (message: string) => storageError(400, "InvalidJWT", "Unauthorized", message),
};

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The service key check. Like the Supabase gateway, a request without a key is 401, one whose key
 * is not the project's is 401; a request whose bearer token is not the service key is 403 (the
 * emulator knows no user tokens, so nothing else may read or write).
 */
export function refuseUnlessServiceKey(req: Request, ctx: EmulatorContext): Response | undefined {
  const expected = ctx.storage.serviceKey;
  const apikey = req.headers.get("apikey");
  const authorization = req.headers.get("authorization");
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  if (!apikey && !bearer) return jsonResponse({ message: "No API key found in request" }, 401);
  if (expected === undefined) {
    return storageError(403, "AccessDenied", "Unauthorized", "the emulator was started without SUPABASE_SERVICE_ROLE_KEY: no key is accepted");
  }
  if (apikey && !sameSecret(apikey, expected)) return jsonResponse({ message: "Invalid API key" }, 401);
  if (!bearer || !sameSecret(bearer, expected)) return storageError(403, "InvalidJWT", "Unauthorized", "invalid signature");
  return undefined;
}

/** Reads a small JSON body; a Response when it is too big or not JSON. */
export async function readJsonBody(req: Request): Promise<Record<string, unknown> | Response> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > JSON_BODY_CAP) return errors.tooLarge(JSON_BODY_CAP);
  const bytes = await readCapped(req.body, JSON_BODY_CAP);
  if (bytes === "too_large") return errors.tooLarge(JSON_BODY_CAP);
  if (bytes.length === 0) return {};
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes));
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return errors.invalid("body must be a JSON object");
    return parsed as Record<string, unknown>;
  } catch {
    return errors.invalid("body is not valid JSON");
  }
}

async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number): Promise<Uint8Array | "too_large"> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      return "too_large";
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Streams a request body into `file` (opened for append), at most `cap` bytes. Returns the bytes
 * written, or "too_large" once the body passes the cap (what was written stays for the caller to
 * discard). `dropAfter` keeps that many bytes and then reports "dropped", for fault injection.
 */
export async function streamBodyToFile(
  body: ReadableStream<Uint8Array> | null,
  file: string,
  cap: number,
  dropAfter = Infinity,
): Promise<number | "too_large" | "dropped"> {
  const handle = await open(file, "a");
  let written = 0;
  try {
    const reader = body?.getReader();
    while (reader) {
      const { value, done } = await reader.read();
      if (done) break;
      if (written + value.length > cap) {
        await reader.cancel().catch(() => {});
        return "too_large";
      }
      const part = value.subarray(0, Math.max(0, Math.min(value.length, dropAfter - written)));
      if (part.length > 0) await handle.write(part);
      written += part.length;
      if (written >= dropAfter) {
        await reader.cancel().catch(() => {});
        return "dropped";
      }
    }
    return written;
  } finally {
    await handle.close();
  }
}

/** Signed-URL tokens: `<base64url payload>.<HMAC>`, keyed by the service key. */
export function signToken(ctx: EmulatorContext, objectUrl: string, expiresInS: number): string {
  const payload = Buffer.from(JSON.stringify({ url: objectUrl, exp: Math.floor(Date.now() / 1000) + expiresInS })).toString("base64url");
  return `${payload}.${createHmac("sha256", ctx.storage.serviceKey ?? "").update(payload).digest("base64url")}`;
}

/** The object URL (`<bucket>/<path>`) a token grants, or the reason it grants nothing. */
export function verifyToken(ctx: EmulatorContext, token: string): { url: string } | { refused: string } {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined || ctx.storage.serviceKey === undefined) return { refused: "jwt malformed" };
  const expected = createHmac("sha256", ctx.storage.serviceKey).update(payload).digest("base64url");
  if (!sameSecret(signature, expected)) return { refused: "invalid signature" };
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { url?: unknown; exp?: unknown };
    if (typeof claims.url !== "string" || typeof claims.exp !== "number") return { refused: "jwt malformed" };
    if (claims.exp < Date.now() / 1000) return { refused: "jwt expired" };
    return { url: claims.url };
  } catch {
    return { refused: "jwt malformed" };
  }
}
