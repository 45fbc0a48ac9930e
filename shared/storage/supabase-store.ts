/**
 * Supabase Storage backend, through supabase-js with the service-role key, one private bucket per
 * environment. Runs on Bun (workers) and Deno (Edge Functions): node: modules only.
 *
 * - Small objects (voice tracks, words, scene clips) go up in one request; anything over
 *   `largeObjectBytes` (renders) through Storage's TUS endpoint in 6 MB chunks, so an interrupted
 *   upload resumes from the last byte Storage holds. The TUS client is loaded only on that path.
 * - Keys are content-addressed: an upload that finds the object already there counts as done.
 * - Downloads stream to a temp file beside the target and are renamed into place: a render is
 *   never held in memory whole, and a reader never sees half a file.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { assertAssetKey, assertAssetPrefix, AssetNotFoundError, type AssetStore, type ListedAsset } from "./asset-store.ts";

/** Storage's standard uploads are meant for files up to 6 MB; past that, TUS. */
export const LARGE_OBJECT_BYTES = 6 * 1024 * 1024;
/** Supabase's TUS endpoint takes chunks of exactly 6 MB (the last one may be shorter). */
const TUS_CHUNK_BYTES = 6 * 1024 * 1024;
/** Content-addressed objects never change, so caches may keep them for a year. */
const IMMUTABLE_CACHE_SECONDS = "31536000";

interface SupabaseStoreOptions {
  /** Base URL of the project (Storage lives under `/storage/v1`). */
  url: string;
  serviceRoleKey: string;
  bucket: string;
  /** Objects bigger than this go up through TUS. */
  largeObjectBytes?: number;
  /** Waits (ms) before each TUS retry after a failed request; its length is the number of retries. */
  retryDelaysMs?: number[];
}

/** A failure Storage answered, with its HTTP status (undefined when the request never got an answer). */
class StorageRequestError extends Error {
  constructor(message: string, readonly status: number | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StorageRequestError";
  }
}

interface ApiError {
  message: string;
  status?: number;
  statusCode?: string;
  code?: string;
}

const isNotFound = (error: ApiError) => error.status === 404 || error.statusCode === "404" || error.code === "NoSuchKey" || error.code === "NoSuchBucket";
const isConflict = (error: ApiError) =>
  error.status === 409 || error.statusCode === "409" || error.code === "Duplicate" || error.code === "KeyAlreadyExists" || error.code === "BucketAlreadyExists";

function failure(action: string, error: ApiError): StorageRequestError {
  const status = error.status ?? (error.statusCode && /^\d+$/.test(error.statusCode) ? Number(error.statusCode) : undefined);
  return new StorageRequestError(`Supabase Storage ${action} failed${status ? ` (HTTP ${status})` : ""}: ${error.message}`, status, { cause: error });
}

/** One bucket check per process and bucket, shared by every store (concurrent callers wait on the same one). */
const bucketChecks = new Map<string, Promise<void>>();

export class SupabaseStore implements AssetStore {
  readonly backend = "supabase-storage";
  readonly bucket: string;
  readonly #client: SupabaseClient;
  readonly #options: SupabaseStoreOptions;

  constructor(options: SupabaseStoreOptions) {
    this.#options = { ...options, url: options.url.replace(/\/+$/, "") };
    this.bucket = options.bucket;
    this.#client = createClient(this.#options.url, options.serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
  }

  #files() {
    return this.#client.storage.from(this.bucket);
  }

  /** Creates the bucket, private, unless it exists; once per process (a failure is retried next time). */
  ensureBucket(): Promise<void> {
    const id = `${this.#options.url} ${this.bucket}`;
    let check = bucketChecks.get(id);
    if (!check) {
      check = this.#createBucketIfMissing().catch((error) => {
        bucketChecks.delete(id);
        throw error;
      });
      bucketChecks.set(id, check);
    }
    return check;
  }

  async #createBucketIfMissing(): Promise<void> {
    const found = await this.#client.storage.getBucket(this.bucket);
    if (!found.error) return;
    if (!isNotFound(found.error)) throw failure(`reading bucket ${this.bucket}`, found.error);
    const created = await this.#client.storage.createBucket(this.bucket, { public: false });
    // Another process may have created it between the two calls: that is just as good.
    if (created.error && !isConflict(created.error)) throw failure(`creating bucket ${this.bucket}`, created.error);
  }

  async putFile(key: string, localPath: string, contentType: string) {
    assertAssetKey(key);
    const size = (await stat(localPath)).size;
    await this.ensureBucket();
    if (size > (this.#options.largeObjectBytes ?? LARGE_OBJECT_BYTES)) {
      await this.#putResumable(key, localPath, contentType, size);
    } else {
      const { error } = await this.#files().upload(key, await readFile(localPath), { contentType, upsert: false, cacheControl: IMMUTABLE_CACHE_SECONDS });
      // Same key, same bytes: an object already there is the one this upload would have made.
      if (error && !isConflict(error)) throw failure(`upload of ${key}`, error);
    }
    return { key, size_bytes: size };
  }

  async #putResumable(key: string, localPath: string, contentType: string, size: number): Promise<void> {
    if (await this.exists(key)) return;
    const tus = await import("tus-js-client");
    const source = createReadStream(localPath);
    try {
      await new Promise<void>((resolve, reject) => {
        const upload = new tus.Upload(source, {
          endpoint: `${this.#options.url}/storage/v1/upload/resumable`,
          headers: { authorization: `Bearer ${this.#options.serviceRoleKey}`, apikey: this.#options.serviceRoleKey, "x-upsert": "false" },
          uploadSize: size,
          chunkSize: TUS_CHUNK_BYTES,
          retryDelays: this.#options.retryDelaysMs ?? [0, 1000, 3000, 5000, 10000],
          removeFingerprintOnSuccess: true,
          metadata: { bucketName: this.bucket, objectName: key, contentType, cacheControl: IMMUTABLE_CACHE_SECONDS },
          // A refused creation (409: the object exists) is final; a 409 on a chunk means "ask the
          // offset and resume", which tus-js-client does on retry.
          onShouldRetry: (error) => {
            const status = error.originalResponse?.getStatus();
            if (error.originalRequest?.getMethod() === "POST" && status !== undefined && status >= 400 && status < 500) return false;
            return status === undefined || status >= 500 || status === 409 || status === 423;
          },
          onError: (error) => {
            const detail = error as { originalRequest?: { getMethod(): string } | null; originalResponse?: { getStatus(): number } | null };
            const status = detail.originalResponse?.getStatus();
            // Created meanwhile by another writer: content-addressed, so the same bytes.
            if (status === 409 && detail.originalRequest?.getMethod() === "POST") resolve();
            else reject(new StorageRequestError(`Supabase Storage resumable upload of ${key} failed: ${error.message}`, status, { cause: error }));
          },
          onSuccess: () => resolve(),
        });
        upload.start();
      });
    } finally {
      source.destroy();
    }
  }

  async getFile(key: string, localPath: string): Promise<void> {
    assertAssetKey(key);
    const { data, error } = await this.#files().download(key).asStream();
    if (error) {
      if (isNotFound(error)) throw new AssetNotFoundError(key);
      throw failure(`download of ${key}`, error);
    }
    await mkdir(dirname(localPath), { recursive: true });
    const tmp = `${localPath}.${crypto.randomUUID()}.part`;
    const file = await open(tmp, "w");
    try {
      const reader = (data as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        await file.write(value);
      }
      await file.close();
      await rename(tmp, localPath);
    } catch (error) {
      await file.close().catch(() => {});
      await rm(tmp, { force: true });
      throw new StorageRequestError(`Supabase Storage download of ${key} broke off: ${error instanceof Error ? error.message : String(error)}`, undefined, {
        cause: error,
      });
    }
  }

  async exists(key: string): Promise<boolean> {
    assertAssetKey(key);
    const { error } = await this.#files().info(key);
    if (!error) return true;
    if (isNotFound(error)) return false;
    throw failure(`lookup of ${key}`, error);
  }

  async remove(key: string): Promise<void> {
    assertAssetKey(key);
    const { error } = await this.#files().remove([key]);
    if (error && !isNotFound(error)) throw failure(`removal of ${key}`, error);
  }

  async signedUrl(key: string, expiresInSeconds: number): Promise<string | null> {
    assertAssetKey(key);
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1) {
      throw new RangeError(`a signed URL lasts a whole number of seconds, at least 1: ${expiresInSeconds}`);
    }
    const { data, error } = await this.#files().createSignedUrl(key, expiresInSeconds);
    if (error) {
      if (isNotFound(error)) throw new AssetNotFoundError(key);
      throw failure(`signing of ${key}`, error);
    }
    return data.signedUrl;
  }

  async list(prefix: string): Promise<ListedAsset[]> {
    assertAssetPrefix(prefix);
    const assets: ListedAsset[] = [];
    const page = 1000;
    for (let offset = 0;; offset += page) {
      const { data, error } = await this.#files().list(prefix, { limit: page, offset, sortBy: { column: "name", order: "asc" } });
      if (error) {
        if (isNotFound(error)) return assets;
        throw failure(`listing of ${prefix}/`, error);
      }
      for (const entry of data) {
        // Folders have no id; only objects are assets.
        if (entry.id !== null) assets.push({ key: `${prefix}/${entry.name}`, size_bytes: Number(entry.metadata?.size ?? 0) });
      }
      if (data.length < page) return assets;
    }
  }
}
