/**
 * On-disk state of the Storage emulator, under `<data dir>/storage/`, so buckets and objects
 * survive an emulator restart:
 *
 *   buckets/<bucket>.json          the bucket record
 *   objects/<bucket>/<path>        an object's bytes
 *   meta/<bucket>/<path>.json      its record: id, content type, size, times, etag
 *   tus/<upload id>.json|.bin      a resumable upload in progress and the bytes received so far
 *   tmp/                           writes in progress, renamed into place when complete
 *
 * Every write lands through a rename (or a hard link when the target must not exist yet), so a
 * reader or a restarted emulator sees a whole object or none.
 */
import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { link, mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";

export interface BucketRecord {
  id: string;
  name: string;
  owner: string;
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
  created_at: string;
  updated_at: string;
}

interface ObjectRecord {
  id: string;
  content_type: string;
  cache_control: string;
  size: number;
  etag: string;
  created_at: string;
  updated_at: string;
}

interface ListedEntry {
  name: string;
  id: string | null;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: Record<string, unknown> | null;
}

/** Thrown by writes the caller turns into Storage's JSON errors. */
export class StorageConflict extends Error {}

const BUCKET_NAME = /^[A-Za-z0-9_.-]{1,63}$/;
const segmentOk = (part: string) => part !== "" && part !== "." && part !== ".." && !part.includes("\0");

/** An object path is a relative path with no empty, `.` or `..` segments. */
export function validObjectPath(objectPath: string): boolean {
  return objectPath.length > 0 && objectPath.length <= 1024 && objectPath.split("/").every(segmentOk);
}

export function validBucketName(name: string): boolean {
  return BUCKET_NAME.test(name) && name !== "." && name !== "..";
}

async function writeJsonAtomically(file: string, value: unknown, tmpDir: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(tmpDir, `${randomUUID()}.json`);
  await writeFile(tmp, JSON.stringify(value));
  await rename(tmp, file);
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

export class StorageDisk {
  readonly root: string;
  readonly tmpDir: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, "storage");
    this.tmpDir = path.join(this.root, "tmp");
  }

  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
    await mkdir(path.join(this.root, "tus"), { recursive: true });
  }

  async reset(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
    await this.init();
  }

  #bucketFile(bucket: string) {
    return path.join(this.root, "buckets", `${bucket}.json`);
  }

  objectFile(bucket: string, objectPath: string): string {
    return path.join(this.root, "objects", bucket, objectPath);
  }

  #metaFile(bucket: string, objectPath: string) {
    return path.join(this.root, "meta", bucket, `${objectPath}.json`);
  }

  tusFile(id: string, ext: "json" | "bin"): string {
    return path.join(this.root, "tus", `${id}.${ext}`);
  }

  /** A fresh path under tmp/ for a write in progress. */
  tmpPath(): string {
    return path.join(this.tmpDir, `${randomUUID()}.part`);
  }

  async getBucket(bucket: string): Promise<BucketRecord | undefined> {
    return validBucketName(bucket) ? await readJson<BucketRecord>(this.#bucketFile(bucket)) : undefined;
  }

  async listBuckets(): Promise<BucketRecord[]> {
    const names = await readdir(path.join(this.root, "buckets")).catch(() => [] as string[]);
    const records = await Promise.all(names.filter((n) => n.endsWith(".json")).map((n) => readJson<BucketRecord>(path.join(this.root, "buckets", n))));
    return records.filter((r): r is BucketRecord => r !== undefined).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Creates the bucket; throws StorageConflict when it exists (checked atomically with a hard link). */
  async createBucket(record: BucketRecord): Promise<void> {
    const file = this.#bucketFile(record.id);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = path.join(this.tmpDir, `${randomUUID()}.json`);
    await writeFile(tmp, JSON.stringify(record));
    try {
      await link(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new StorageConflict(`bucket ${record.id} exists`);
      throw error;
    } finally {
      await unlink(tmp).catch(() => {});
    }
  }

  async deleteBucket(bucket: string): Promise<"deleted" | "missing" | "not_empty"> {
    if (!(await this.getBucket(bucket))) return "missing";
    const entries = await readdir(path.join(this.root, "objects", bucket)).catch(() => [] as string[]);
    if (entries.length > 0) return "not_empty";
    await rm(this.#bucketFile(bucket), { force: true });
    return "deleted";
  }

  async getObject(bucket: string, objectPath: string): Promise<{ file: string; record: ObjectRecord } | undefined> {
    if (!validObjectPath(objectPath)) return undefined;
    const file = this.objectFile(bucket, objectPath);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const stored = await readJson<ObjectRecord>(this.#metaFile(bucket, objectPath));
    // A crash between the bytes and their record leaves bytes only: describe them from the file.
    const record = stored && stored.size === info.size ? stored : {
      id: randomUUID(),
      content_type: "application/octet-stream",
      cache_control: "no-cache",
      size: info.size,
      etag: `"${info.size}-${info.mtimeMs}"`,
      created_at: info.mtime.toISOString(),
      updated_at: info.mtime.toISOString(),
    };
    return { file, record };
  }

  /**
   * Moves a completed temp file into place as the object. Without `upsert` an existing object
   * makes it throw StorageConflict (decided atomically by a hard link), and the temp file is gone
   * either way.
   */
  async commitObject(
    bucket: string,
    objectPath: string,
    tmp: string,
    options: { contentType: string; cacheControl: string; upsert: boolean },
  ): Promise<ObjectRecord> {
    const target = this.objectFile(bucket, objectPath);
    await mkdir(path.dirname(target), { recursive: true });
    const size = (await stat(tmp)).size;
    const etag = `"${await md5File(tmp)}"`;
    try {
      if (options.upsert) {
        await rename(tmp, target);
      } else {
        try {
          await link(tmp, target);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new StorageConflict(`${bucket}/${objectPath} exists`);
          throw error;
        }
      }
    } finally {
      await unlink(tmp).catch(() => {});
    }
    const now = new Date().toISOString();
    const previous = await readJson<ObjectRecord>(this.#metaFile(bucket, objectPath));
    const record: ObjectRecord = {
      id: previous?.id ?? randomUUID(),
      content_type: options.contentType,
      cache_control: options.cacheControl,
      size,
      etag,
      created_at: previous?.created_at ?? now,
      updated_at: now,
    };
    await writeJsonAtomically(this.#metaFile(bucket, objectPath), record, this.tmpDir);
    return record;
  }

  /** Deletes the named objects; returns those that existed (absent ones are skipped, as Storage does). */
  async removeObjects(bucket: string, objectPaths: string[]): Promise<{ name: string; record: ObjectRecord }[]> {
    const removed: { name: string; record: ObjectRecord }[] = [];
    for (const objectPath of objectPaths) {
      const found = await this.getObject(bucket, objectPath);
      if (!found) continue;
      await rm(found.file, { force: true });
      await rm(this.#metaFile(bucket, objectPath), { force: true });
      await this.#pruneEmptyFolders(bucket, objectPath);
      removed.push({ name: objectPath, record: found.record });
    }
    return removed;
  }

  /** Storage has no empty folders: once a folder's last object goes, so does the folder. */
  async #pruneEmptyFolders(bucket: string, objectPath: string): Promise<void> {
    const parts = objectPath.split("/").slice(0, -1);
    for (let i = parts.length; i > 0; i--) {
      const folder = parts.slice(0, i).join("/");
      try {
        await rmdir(this.objectFile(bucket, folder));
        await rmdir(path.join(this.root, "meta", bucket, folder)).catch(() => {});
      } catch {
        return;
      }
    }
  }

  /** The folders and objects directly under `prefix`, as `POST /object/list` answers them. */
  async list(bucket: string, prefix: string, options: { search: string; sortColumn: string; order: "asc" | "desc" }): Promise<ListedEntry[]> {
    const folder = prefix.replace(/^\/+|\/+$/g, "");
    if (folder !== "" && !validObjectPath(folder)) return [];
    const dir = folder === "" ? path.join(this.root, "objects", bucket) : this.objectFile(bucket, folder);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const listed: ListedEntry[] = [];
    for (const entry of entries) {
      if (options.search !== "" && !entry.name.toLowerCase().startsWith(options.search.toLowerCase())) continue;
      if (entry.isDirectory()) {
        listed.push({ name: entry.name, id: null, updated_at: null, created_at: null, last_accessed_at: null, metadata: null });
      } else if (entry.isFile()) {
        const found = await this.getObject(bucket, folder === "" ? entry.name : `${folder}/${entry.name}`);
        if (!found) continue;
        const r = found.record;
        listed.push({
          name: entry.name,
          id: r.id,
          updated_at: r.updated_at,
          created_at: r.created_at,
          last_accessed_at: r.updated_at,
          metadata: objectMetadata(r),
        });
      }
    }
    const column = options.sortColumn as keyof ListedEntry;
    listed.sort((a, b) => {
      // Folders carry no times: Storage sorts them by name whatever the column.
      const left = String(a[column] ?? a.name);
      const right = String(b[column] ?? b.name);
      return left < right ? -1 : left > right ? 1 : 0;
    });
    if (options.order === "desc") listed.reverse();
    return listed;
  }
}

/** The `metadata` object Storage reports for an object. */
export function objectMetadata(r: ObjectRecord): Record<string, unknown> {
  return {
    eTag: r.etag,
    size: r.size,
    mimetype: r.content_type,
    cacheControl: r.cache_control,
    lastModified: r.updated_at,
    contentLength: r.size,
    httpStatusCode: 200,
  };
}

async function md5File(file: string): Promise<string> {
  const hash = createHash("md5");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
