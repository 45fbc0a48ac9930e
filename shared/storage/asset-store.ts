/**
 * One interface for every asset the engine stores (voice tracks, scene clips, renders).
 * Keys are content-addressed (`scenes/<scene_hash>.mp4`): the same key always holds the same bytes,
 * so a rerun finds what an earlier attempt stored and storing a key that is already there is done.
 */
export interface AssetStore {
  /** Human-readable backend name, for logs. */
  readonly backend: string;
  /** Stores a local file under `key`; a key already stored counts as done. Readers never see part of an object. */
  putFile(key: string, localPath: string, contentType: string): Promise<{ key: string; size_bytes: number }>;
  /** Streams the asset at `key` to `localPath` (replaced whole); throws AssetNotFoundError when absent. */
  getFile(key: string, localPath: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Deletes the asset; absent keys are fine. */
  remove(key: string): Promise<void>;
  /** The assets directly under `prefix` (`scenes` lists `scenes/<hash>.mp4`), by key. */
  list(prefix: string): Promise<ListedAsset[]>;
  /**
   * A URL anyone holding it may GET the asset through for `expiresInSeconds` (a browser plays a
   * render from it; Range requests are answered 206). Null when the backend cannot sign (the local
   * directory has no server to sign for); throws AssetNotFoundError when the key is absent.
   */
  signedUrl(key: string, expiresInSeconds: number): Promise<string | null>;
}

export interface ListedAsset {
  key: string;
  size_bytes: number;
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

/** Rejects list prefixes that are not a plain folder path (`renders`, `scenes/abc`). */
export function assertAssetPrefix(prefix: string): void {
  if (!/^[a-z0-9_-]+(\/[A-Za-z0-9._-]+)*$/.test(prefix) || prefix.split("/").some((part) => part === ".." || part === ".")) {
    throw new Error(`invalid asset prefix: ${JSON.stringify(prefix)}`);
  }
}
