/**
 * Supabase Storage REST API under `/storage/v1`, as supabase-js (storage-js) calls it:
 *
 *   GET    /bucket, /bucket/{id}; POST /bucket {id, public}; DELETE /bucket/{id} (empty only)
 *   POST   /object/{bucket}/{path}           upload (raw body or multipart form); `x-upsert: true` replaces
 *   PUT    /object/{bucket}/{path}           upload that replaces an existing object
 *   GET    /object/{bucket}/{path}, /object/authenticated/{bucket}/{path}   download (HEAD: headers only)
 *   GET    /object/info/{bucket}/{path}      the object's record
 *   POST   /object/list/{bucket}             {prefix, limit, offset, sortBy, search}: folders and objects under prefix
 *   DELETE /object/{bucket} {prefixes}       removes objects; answers those that existed
 *   POST   /object/sign/{bucket}/{path} {expiresIn}, POST /object/sign/{bucket} {expiresIn, paths}
 *   GET    /object/sign/{bucket}/{path}?token=   download through a signed URL (no key needed)
 *   Downloads answer a single `Range: bytes=` request with 206 and Content-Range (416 past the end),
 *   so a <video> element plays and seeks a signed render.
 *   /upload/resumable                        TUS resumable uploads (storage-tus.ts)
 *
 * Every call except a signed download needs the service key (`apikey` and `Authorization: Bearer`).
 * Errors are Storage's `{statusCode, code, error, message}` with the HTTP status the API uses.
 * Upload bodies are capped (`maxObjectBytes`, 413 past it); objects persist under the data dir.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { type BucketRecord, objectMetadata, StorageConflict, validBucketName, validObjectPath } from "./disk.ts";
import { errors, readJsonBody, refuseUnlessServiceKey, signToken, streamBodyToFile, verifyToken } from "./http.ts";
import { parseMultipart } from "./multipart.ts";
import { handleTus, TUS_PATH } from "./tus.ts";

const STORAGE_BASE = "/storage/v1";

export async function resetStorage(ctx: EmulatorContext): Promise<void> {
  await ctx.storage.disk.reset();
}

/** Splits `<bucket>/<path...>`; the path part may be empty. */
function splitBucket(rest: string): { bucket: string; objectPath: string } {
  const slash = rest.indexOf("/");
  return slash === -1 ? { bucket: rest, objectPath: "" } : { bucket: rest.slice(0, slash), objectPath: rest.slice(slash + 1) };
}

function decodePath(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

export async function handleStorage(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname !== STORAGE_BASE && !url.pathname.startsWith(`${STORAGE_BASE}/`)) return undefined;
  const route = decodePath(url.pathname.slice(STORAGE_BASE.length));
  if (route === undefined) return errors.invalid("the path is not valid percent-encoding");

  // A signed URL is its own credential.
  if (route.startsWith("/object/sign/") && (req.method === "GET" || req.method === "HEAD")) {
    return await signedDownload(req, url, route.slice("/object/sign/".length), ctx);
  }
  const refused = refuseUnlessServiceKey(req, ctx);
  if (refused) return refused;

  if (route === TUS_PATH || route.startsWith(`${TUS_PATH}/`)) return await handleTus(req, url, route, ctx);
  if (route === "/bucket" || route.startsWith("/bucket/")) return await handleBucket(req, route.slice("/bucket".length).replace(/^\//, ""), ctx);
  if (route.startsWith("/object/list/") && req.method === "POST") return await listObjects(req, route.slice("/object/list/".length), ctx);
  if (route.startsWith("/object/info/") && req.method === "GET") {
    return await objectInfo(route.slice("/object/info/".length).replace(/^authenticated\//, ""), ctx);
  }
  if (route.startsWith("/object/sign/") && req.method === "POST") return await sign(req, route.slice("/object/sign/".length), ctx);
  if (route.startsWith("/object/authenticated/") && (req.method === "GET" || req.method === "HEAD")) {
    return await download(req, route.slice("/object/authenticated/".length), ctx);
  }
  if (route.startsWith("/object/")) {
    const rest = route.slice("/object/".length);
    const { bucket, objectPath } = splitBucket(rest);
    if (req.method === "DELETE" && objectPath === "") return await removeObjects(req, bucket, ctx);
    if (req.method === "DELETE") return await removeOne(bucket, objectPath, ctx);
    if (req.method === "GET" || req.method === "HEAD") return await download(req, rest, ctx);
    if (req.method === "POST" || req.method === "PUT") return await upload(req, bucket, objectPath, ctx);
  }
  return errors.invalid(`no Storage route for ${req.method} ${url.pathname}`);
}

async function handleBucket(req: Request, id: string, ctx: EmulatorContext): Promise<Response> {
  const disk = ctx.storage.disk;
  if (id === "" && req.method === "GET") return jsonResponse(await disk.listBuckets());
  if (id === "" && req.method === "POST") {
    const body = await readJsonBody(req);
    if (body instanceof Response) return body;
    const name = body.id ?? body.name;
    if (typeof name !== "string" || !validBucketName(name)) return errors.invalid("Bucket name invalid");
    const now = new Date().toISOString();
    const record: BucketRecord = {
      id: name,
      name,
      owner: "",
      public: body.public === true,
      file_size_limit: typeof body.file_size_limit === "number" ? body.file_size_limit : null,
      allowed_mime_types: Array.isArray(body.allowed_mime_types) ? body.allowed_mime_types.filter((m): m is string => typeof m === "string") : null,
      created_at: now,
      updated_at: now,
    };
    try {
      await disk.createBucket(record);
    } catch (error) {
      if (error instanceof StorageConflict) return errors.bucketExists();
      throw error;
    }
    return jsonResponse({ name });
  }
  if (id !== "" && !id.includes("/") && req.method === "GET") {
    const bucket = await disk.getBucket(id);
    return bucket ? jsonResponse(bucket) : errors.noSuchBucket();
  }
  if (id !== "" && !id.includes("/") && req.method === "DELETE") {
    const outcome = await disk.deleteBucket(id);
    if (outcome === "missing") return errors.noSuchBucket();
    if (outcome === "not_empty") return errors.invalid("Bucket not empty: delete its objects first");
    return jsonResponse({ message: "Successfully deleted" });
  }
  return errors.invalid(`no bucket route for ${req.method} /bucket/${id}`);
}

async function download(req: Request, rest: string, ctx: EmulatorContext): Promise<Response> {
  const { bucket, objectPath } = splitBucket(rest);
  if (!(await ctx.storage.disk.getBucket(bucket))) return errors.noSuchBucket();
  return await serveObject(req, bucket, objectPath, ctx);
}

async function serveObject(req: Request, bucket: string, objectPath: string, ctx: EmulatorContext): Promise<Response> {
  const found = await ctx.storage.disk.getObject(bucket, objectPath);
  if (!found) return req.method === "HEAD" ? new Response(null, { status: 404 }) : errors.noSuchKey();
  const r = found.record;
  const headers: Record<string, string> = {
    "content-type": r.content_type,
    "content-length": String(r.size),
    "cache-control": r.cache_control,
    etag: r.etag,
    "last-modified": new Date(r.updated_at).toUTCString(),
    "accept-ranges": "bytes",
  };
  const range = byteRange(req.headers.get("range"), r.size);
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { "content-range": `bytes */${r.size}`, "accept-ranges": "bytes" } });
  }
  // Bun.file streams from disk: a render is never held in memory whole.
  if (range !== null) {
    headers["content-length"] = String(range.end - range.start + 1);
    headers["content-range"] = `bytes ${range.start}-${range.end}/${r.size}`;
    return new Response(req.method === "HEAD" ? null : Bun.file(found.file).slice(range.start, range.end + 1), { status: 206, headers });
  }
  return new Response(req.method === "HEAD" ? null : Bun.file(found.file), { status: 200, headers });
}

/**
 * The one byte range of a `Range: bytes=...` header (RFC 9110 section 14): `a-b`, `a-` or the
 * suffix `-n`, the end clamped to the object. Null means "serve the whole object" (no header, a
 * unit other than bytes, several ranges, a malformed one: the RFC lets a server ignore those);
 * "unsatisfiable" is a range wholly past the end (416), as a <video> element's probe may send.
 */
export function byteRange(header: string | null, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const match = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === "" && match[2] === "")) return null;
  const [, first, last] = match;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

async function objectInfo(rest: string, ctx: EmulatorContext): Promise<Response> {
  const { bucket, objectPath } = splitBucket(rest);
  if (!(await ctx.storage.disk.getBucket(bucket))) return errors.noSuchBucket();
  const found = await ctx.storage.disk.getObject(bucket, objectPath);
  if (!found) return errors.noSuchKey();
  const r = found.record;
  return jsonResponse({
    id: r.id,
    version: r.id,
    name: objectPath,
    bucket_id: bucket,
    size: r.size,
    content_type: r.content_type,
    cache_control: r.cache_control,
    etag: r.etag,
    metadata: {},
    last_modified: r.updated_at,
    created_at: r.created_at,
  });
}

async function upload(req: Request, bucket: string, objectPath: string, ctx: EmulatorContext): Promise<Response> {
  const disk = ctx.storage.disk;
  const cap = ctx.storage.maxObjectBytes;
  if (!(await disk.getBucket(bucket))) return errors.noSuchBucket();
  if (!validObjectPath(objectPath)) return errors.invalidKey(objectPath);
  const upsert = req.method === "PUT" || req.headers.get("x-upsert") === "true";
  if (Number(req.headers.get("content-length") ?? "0") > cap) return errors.tooLarge(cap);
  if (!upsert && (await disk.getObject(bucket, objectPath))) return errors.duplicate();

  const requestType = req.headers.get("content-type") ?? "application/octet-stream";
  const multipart = requestType.toLowerCase().startsWith("multipart/form-data");
  const tmp = disk.tmpPath();
  try {
    // A multipart form carries a little framing around the file: allow for it, then check the file.
    const written = await streamBodyToFile(req.body, tmp, multipart ? cap + 64 * 1024 : cap);
    if (written === "too_large") return errors.tooLarge(cap);
    let contentType = requestType;
    let cacheControl = req.headers.get("cache-control") ?? "no-cache";
    if (multipart) {
      const form = parseMultipart(new Uint8Array(await readFile(tmp)), requestType);
      const file = form?.find((part) => part.filename !== undefined);
      if (!form || !file) return errors.invalid("the multipart form holds no file");
      if (file.body.length > cap) return errors.tooLarge(cap);
      const control = form.find((part) => part.name === "cacheControl" && part.filename === undefined);
      if (control) {
        const value = new TextDecoder().decode(control.body);
        cacheControl = /^\d+$/.test(value) ? `max-age=${value}` : value;
      }
      contentType = file.contentType ?? "application/octet-stream";
      await writeFile(tmp, file.body);
    }
    const record = await disk.commitObject(bucket, objectPath, tmp, { contentType, cacheControl, upsert });
    return jsonResponse({ Id: record.id, Key: `${bucket}/${objectPath}` });
  } catch (error) {
    if (error instanceof StorageConflict) return errors.duplicate();
    throw error;
  } finally {
    await rm(tmp, { force: true });
  }
}

async function listObjects(req: Request, bucket: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readJsonBody(req);
  if (body instanceof Response) return body;
  if (!(await ctx.storage.disk.getBucket(bucket))) return errors.noSuchBucket();
  const { prefix = "", limit = 100, offset = 0, search = "", sortBy = {} } = body as Record<string, unknown>;
  const sort = (sortBy ?? {}) as { column?: unknown; order?: unknown };
  const column = sort.column ?? "name";
  const order = sort.order ?? "asc";
  if (typeof prefix !== "string") return errors.invalid("prefix must be a string");
  if (typeof search !== "string") return errors.invalid("search must be a string");
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 1000) return errors.invalid("limit must be an integer from 1 to 1000");
  if (!Number.isInteger(offset) || (offset as number) < 0) return errors.invalid("offset must be a non-negative integer");
  if (typeof column !== "string" || !["name", "updated_at", "created_at", "last_accessed_at"].includes(column)) {
    return errors.invalid("sortBy.column must be name, updated_at, created_at or last_accessed_at");
  }
  if (order !== "asc" && order !== "desc") return errors.invalid("sortBy.order must be asc or desc");
  const listed = await ctx.storage.disk.list(bucket, prefix, { search, sortColumn: column, order });
  return jsonResponse(listed.slice(offset as number, (offset as number) + (limit as number)));
}

async function removeObjects(req: Request, bucket: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readJsonBody(req);
  if (body instanceof Response) return body;
  const prefixes = body.prefixes;
  if (!Array.isArray(prefixes) || prefixes.length === 0 || prefixes.length > 1000 || prefixes.some((p) => typeof p !== "string")) {
    return errors.invalid("prefixes must be a list of 1 to 1000 object paths");
  }
  if (!(await ctx.storage.disk.getBucket(bucket))) return errors.noSuchBucket();
  const removed = await ctx.storage.disk.removeObjects(bucket, prefixes as string[]);
  return jsonResponse(removed.map(({ name, record }) => ({
    name,
    bucket_id: bucket,
    id: record.id,
    updated_at: record.updated_at,
    created_at: record.created_at,
    last_accessed_at: record.updated_at,
    metadata: objectMetadata(record),
  })));
}

async function removeOne(bucket: string, objectPath: string, ctx: EmulatorContext): Promise<Response> {
  if (!(await ctx.storage.disk.getBucket(bucket))) return errors.noSuchBucket();
  const removed = await ctx.storage.disk.removeObjects(bucket, [objectPath]);
  return removed.length === 0 ? errors.noSuchKey() : jsonResponse({ message: "Successfully deleted" });
}

function expiresInFrom(body: Record<string, unknown>): number | Response {
  const expiresIn = body.expiresIn;
  if (typeof expiresIn !== "number" || !Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > 10 * 365 * 86400) {
    return errors.invalid("expiresIn must be a whole number of seconds, at least 1");
  }
  return expiresIn;
}

const signedPath = (objectUrl: string, token: string) => `/object/sign/${encodeURI(objectUrl)}?token=${token}`;

async function sign(req: Request, rest: string, ctx: EmulatorContext): Promise<Response> {
  const body = await readJsonBody(req);
  if (body instanceof Response) return body;
  const expiresIn = expiresInFrom(body);
  if (expiresIn instanceof Response) return expiresIn;
  const { bucket, objectPath } = splitBucket(rest);
  if (!(await ctx.storage.disk.getBucket(bucket))) return errors.noSuchBucket();
  if (objectPath === "") {
    const paths = body.paths;
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > 1000 || paths.some((p) => typeof p !== "string")) {
      return errors.invalid("paths must be a list of 1 to 1000 object paths");
    }
    const signed = [];
    for (const p of paths as string[]) {
      const exists = await ctx.storage.disk.getObject(bucket, p);
      signed.push(
        exists
          ? { error: null, path: p, signedURL: signedPath(`${bucket}/${p}`, signToken(ctx, `${bucket}/${p}`, expiresIn)) }
          : { error: "Either the object does not exist or you do not have access to it", path: p, signedURL: null },
      );
    }
    return jsonResponse(signed);
  }
  if (!(await ctx.storage.disk.getObject(bucket, objectPath))) return errors.noSuchKey();
  const objectUrl = `${bucket}/${objectPath}`;
  return jsonResponse({ signedURL: signedPath(objectUrl, signToken(ctx, objectUrl, expiresIn)) });
}

async function signedDownload(req: Request, url: URL, rest: string, ctx: EmulatorContext): Promise<Response> {
  const token = url.searchParams.get("token");
  if (!token) return errors.invalid("querystring must have required property 'token'");
  const granted = verifyToken(ctx, token);
  if ("refused" in granted) return errors.invalidSignature(granted.refused);
  if (granted.url !== rest) return errors.invalidSignature("the token was signed for another object");
  const { bucket, objectPath } = splitBucket(rest);
  return await serveObject(req, bucket, objectPath, ctx);
}
