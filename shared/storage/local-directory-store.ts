import { copyFile, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { assertAssetKey, assertAssetPrefix, AssetNotFoundError, type AssetStore, type ListedAsset } from "./asset-store.ts";

/**
 * Local directory backend: `<root>/<key>`. Both directions go through a temp file and a rename, so
 * neither the store nor the caller ever holds half an asset. For tests and single-machine setups:
 * workers on other machines cannot share it.
 */
export class LocalDirectoryStore implements AssetStore {
  readonly backend = "local-directory";
  constructor(readonly root: string) {}

  pathOf(key: string): string {
    assertAssetKey(key);
    return join(this.root, key);
  }

  async putFile(key: string, localPath: string, _contentType: string) {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${crypto.randomUUID()}.part`;
    await copyFile(localPath, tmp);
    await rename(tmp, target);
    return { key, size_bytes: (await stat(target)).size };
  }

  async getFile(key: string, localPath: string) {
    const source = this.pathOf(key);
    if (!(await this.exists(key))) throw new AssetNotFoundError(key);
    await mkdir(dirname(localPath), { recursive: true });
    const tmp = `${localPath}.${crypto.randomUUID()}.part`;
    try {
      await copyFile(source, tmp);
      await rename(tmp, localPath);
    } catch (error) {
      await rm(tmp, { force: true });
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !(await this.exists(key))) throw new AssetNotFoundError(key);
      throw error;
    }
  }

  async exists(key: string) {
    const file = this.pathOf(key);
    try {
      return (await stat(file)).isFile();
    } catch {
      return false;
    }
  }

  async remove(key: string) {
    await rm(this.pathOf(key), { force: true });
  }

  /** A local directory has no server to sign a URL for: always null once the key is known to exist. */
  async signedUrl(key: string, _expiresInSeconds: number): Promise<string | null> {
    if (!(await this.exists(key))) throw new AssetNotFoundError(key);
    return null;
  }

  async list(prefix: string): Promise<ListedAsset[]> {
    assertAssetPrefix(prefix);
    const entries = await readdir(join(this.root, prefix), { withFileTypes: true }).catch(() => []);
    const assets: ListedAsset[] = [];
    // Temp files of writes in progress end in `.part`; they are not assets yet.
    for (const entry of entries.filter((e) => e.isFile() && !e.name.endsWith(".part")).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      assets.push({ key: `${prefix}/${entry.name}`, size_bytes: (await stat(join(this.root, prefix, entry.name))).size });
    }
    return assets;
  }
}
