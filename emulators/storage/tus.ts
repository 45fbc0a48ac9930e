/**
 * Supabase Storage's resumable uploads: the TUS 1.0.0 protocol (core + creation, termination) at
 * `/storage/v1/upload/resumable`, as Supabase documents it for tus-js-client:
 *
 *   POST   /upload/resumable            Upload-Length, Upload-Metadata (bucketName, objectName,
 *                                       contentType, cacheControl, base64), `x-upsert`
 *                                       -> 201 Location: /storage/v1/upload/resumable/{id}
 *   HEAD   /upload/resumable/{id}       -> 200 Upload-Offset, Upload-Length
 *   PATCH  /upload/resumable/{id}       Content-Type: application/offset+octet-stream, Upload-Offset
 *                                       -> 204 Upload-Offset; the object appears when the last byte lands
 *   DELETE /upload/resumable/{id}       -> 204, the upload is discarded
 *
 * A PATCH whose Upload-Offset is not the bytes received is 409 (the client asks HEAD and resumes).
 * Bytes received before a dropped connection are kept, so an interrupted chunk resumes where it
 * stopped. Without `x-upsert: true` an existing object makes the creation 409. Upload-Length past
 * the emulator's object cap is 413. Fault `storage/drop_after_bytes` drops a PATCH mid-body.
 */
import { randomUUID } from "node:crypto";
import { rename, rm, stat, writeFile } from "node:fs/promises";
import type { EmulatorContext } from "../context.ts";
import { droppedConnection } from "../context.ts";
import { KeyedLock } from "../keyed-lock.ts";
import { StorageConflict, validObjectPath } from "./disk.ts";
import { errors, storageError, streamBodyToFile } from "./http.ts";

export const TUS_PATH = "/upload/resumable";
const TUS_VERSION = "1.0.0";

interface TusUpload {
  id: string;
  bucket: string;
  object: string;
  content_type: string;
  cache_control: string;
  length: number;
  upsert: boolean;
  created_at: string;
  completed?: boolean;
}

/** PATCHes and HEADs of one upload never interleave. */
const locks = new KeyedLock();
const withLock = <T>(id: string, fn: () => Promise<T>) => locks.run(id, fn);

function tusHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { "tus-resumable": TUS_VERSION, "cache-control": "no-store", ...extra };
}

/** `key base64,key base64` -> record; undefined when malformed. */
function parseMetadata(header: string | null): Record<string, string> | undefined {
  const metadata: Record<string, string> = {};
  if (header === null || header.trim() === "") return metadata;
  for (const pair of header.split(",")) {
    const [key, value, extra] = pair.trim().split(" ");
    if (!key || extra !== undefined) return undefined;
    if (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return undefined;
    metadata[key] = value === undefined ? "" : Buffer.from(value, "base64").toString("utf8");
  }
  return metadata;
}

async function readUpload(ctx: EmulatorContext, id: string): Promise<TusUpload | undefined> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
  try {
    return JSON.parse(await Bun.file(ctx.storage.disk.tusFile(id, "json")).text()) as TusUpload;
  } catch {
    return undefined;
  }
}

async function saveUpload(ctx: EmulatorContext, upload: TusUpload): Promise<void> {
  const file = ctx.storage.disk.tusFile(upload.id, "json");
  const tmp = `${file}.${randomUUID()}.tmp`;
  await writeFile(tmp, JSON.stringify(upload));
  await rename(tmp, file);
}

const received = async (ctx: EmulatorContext, upload: TusUpload) =>
  upload.completed ? upload.length : await stat(ctx.storage.disk.tusFile(upload.id, "bin")).then((s) => s.size, () => 0);

export async function handleTus(req: Request, url: URL, route: string, ctx: EmulatorContext): Promise<Response> {
  if (req.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: tusHeaders({
        "tus-version": TUS_VERSION,
        "tus-extension": "creation,creation-with-upload,termination",
        "tus-max-size": String(ctx.storage.maxObjectBytes),
      }),
    });
  }
  if (req.headers.get("tus-resumable") !== TUS_VERSION) {
    return new Response(null, { status: 412, headers: { "tus-version": TUS_VERSION } });
  }
  if (route === TUS_PATH) {
    return req.method === "POST" ? await create(req, url, ctx) : errors.invalid(`${req.method} is not allowed on ${TUS_PATH}`);
  }
  const id = route.slice(TUS_PATH.length + 1);
  return await withLock(id, async () => {
    const upload = await readUpload(ctx, id);
    if (!upload) return storageError(404, "NoSuchUpload", "not_found", "Upload not found");
    if (req.method === "HEAD") {
      return new Response(null, {
        status: 200,
        headers: tusHeaders({ "upload-offset": String(await received(ctx, upload)), "upload-length": String(upload.length) }),
      });
    }
    if (req.method === "PATCH") return await patch(req, upload, ctx);
    if (req.method === "DELETE") {
      await rm(ctx.storage.disk.tusFile(id, "bin"), { force: true });
      await rm(ctx.storage.disk.tusFile(id, "json"), { force: true });
      return new Response(null, { status: 204, headers: tusHeaders() });
    }
    return errors.invalid(`${req.method} is not allowed on an upload`);
  });
}

async function create(req: Request, url: URL, ctx: EmulatorContext): Promise<Response> {
  const disk = ctx.storage.disk;
  const rawLength = req.headers.get("upload-length");
  if (rawLength === null || !/^\d+$/.test(rawLength)) {
    return errors.invalid("Upload-Length must be given as a whole number of bytes (deferred lengths are not supported)");
  }
  const length = Number(rawLength);
  if (length > ctx.storage.maxObjectBytes) return errors.tooLarge(ctx.storage.maxObjectBytes);
  const metadata = parseMetadata(req.headers.get("upload-metadata"));
  if (!metadata) return errors.invalid("Upload-Metadata is malformed: expected `key base64` pairs separated by commas");
  const { bucketName, objectName } = metadata;
  if (!bucketName) return errors.invalid("Upload-Metadata must carry bucketName");
  if (!objectName) return errors.invalid("Upload-Metadata must carry objectName");
  if (!(await disk.getBucket(bucketName))) return errors.noSuchBucket();
  if (!validObjectPath(objectName)) return errors.invalidKey(objectName);
  const upsert = req.headers.get("x-upsert") === "true";
  if (!upsert && (await disk.getObject(bucketName, objectName))) return errors.duplicate();

  const upload: TusUpload = {
    id: randomUUID(),
    bucket: bucketName,
    object: objectName,
    content_type: metadata.contentType || "application/octet-stream",
    cache_control: metadata.cacheControl ? (/^\d+$/.test(metadata.cacheControl) ? `max-age=${metadata.cacheControl}` : metadata.cacheControl) : "no-cache",
    length,
    upsert,
    created_at: new Date().toISOString(),
  };
  await writeFile(disk.tusFile(upload.id, "bin"), new Uint8Array());
  await saveUpload(ctx, upload);
  const location = `${url.origin}/storage/v1${TUS_PATH}/${upload.id}`;
  const withData = req.headers.get("content-type") === "application/offset+octet-stream" && req.body !== null;
  if (withData || length === 0) {
    const outcome = await withLock(upload.id, () => patch(req, upload, ctx, 0));
    if (outcome.status !== 204) return outcome;
    return new Response(null, { status: 201, headers: tusHeaders({ location, "upload-offset": outcome.headers.get("upload-offset") ?? "0" }) });
  }
  return new Response(null, { status: 201, headers: tusHeaders({ location }) });
}

async function patch(req: Request, upload: TusUpload, ctx: EmulatorContext, offsetOverride?: number): Promise<Response> {
  const disk = ctx.storage.disk;
  if (offsetOverride === undefined && req.headers.get("content-type") !== "application/offset+octet-stream") {
    return storageError(415, "InvalidRequest", "Unsupported Media Type", "a PATCH must have Content-Type: application/offset+octet-stream");
  }
  const offset = offsetOverride ?? Number(req.headers.get("upload-offset") ?? "NaN");
  const have = await received(ctx, upload);
  if (!Number.isInteger(offset) || offset !== have) {
    return storageError(
      409,
      "InvalidRequest",
      "Conflict",
      `Upload-Offset ${req.headers.get("upload-offset")} does not match the ${have} bytes received; ask HEAD and resume from there`,
    );
  }
  if (!upload.completed && have < upload.length) {
    const fault = ctx.faults.take("storage", (kind) => kind === "drop_after_bytes");
    const outcome = await streamBodyToFile(req.body, disk.tusFile(upload.id, "bin"), upload.length - have, fault?.bytes ?? Infinity);
    if (outcome === "dropped") return droppedConnection();
    if (outcome === "too_large") return storageError(413, "EntityTooLarge", "Payload too large", "the chunk runs past Upload-Length");
  }
  const now = await received(ctx, upload);
  if (now === upload.length && !upload.completed) {
    try {
      await disk.commitObject(upload.bucket, upload.object, disk.tusFile(upload.id, "bin"), {
        contentType: upload.content_type,
        cacheControl: upload.cache_control,
        upsert: upload.upsert,
      });
    } catch (error) {
      if (error instanceof StorageConflict) {
        await rm(disk.tusFile(upload.id, "json"), { force: true });
        return errors.duplicate();
      }
      throw error;
    }
    // The record stays, marked complete, so a client whose last response was lost finds the offset at the end.
    await saveUpload(ctx, { ...upload, completed: true });
  }
  return new Response(null, { status: 204, headers: tusHeaders({ "upload-offset": String(now) }) });
}
