import { copyFile, mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AssetNotFoundError, assertAssetKey, type AssetStore } from "./asset-store.ts";

/** Local directory backend: `<root>/<key>`, written via a temp file and rename. */
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
    await copyFile(source, localPath);
  }

  async exists(key: string) {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch {
      return false;
    }
  }

  async remove(key: string) {
    await rm(this.pathOf(key), { force: true });
  }
}
