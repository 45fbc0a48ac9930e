/**
 * One interface for every asset the engine stores (voice tracks, scene clips, renders).
 * Keys are content-addressed (`scenes/<scene_hash>.mp4`), so a rerun finds what an earlier
 * attempt stored and a write of the same key is a no-op.
 */
export interface AssetStore {
  /** Human-readable backend name, for logs. */
  readonly backend: string;
  /** Stores a local file under `key`. Writing an existing key replaces it atomically. */
  putFile(key: string, localPath: string, contentType: string): Promise<{ key: string; size_bytes: number }>;
  /** Copies the asset at `key` to `localPath`; throws AssetNotFoundError when absent. */
  getFile(key: string, localPath: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Deletes the asset; absent keys are fine. */
  remove(key: string): Promise<void>;
}

export class AssetNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`asset not found: ${key}`);
    this.name = "AssetNotFoundError";
  }
}

/** Rejects keys that could escape the store or are not plain relative paths. */
export function assertAssetKey(key: string): void {
  if (!/^[a-z0-9_-]+(\/[A-Za-z0-9._-]+)+$/.test(key) || key.split("/").some((part) => part === ".." || part === ".")) {
    throw new Error(`invalid asset key: ${JSON.stringify(key)}`);
  }
}
