/**
 * A small stored asset (a chart, a cover image) read whole into memory through a scratch file, the
 * way every AssetStore backend can serve it; throws AssetNotFoundError when the key is absent.
 * Runs on Bun and on Deno (node: modules only).
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AssetStore } from "./asset-store.ts";
import { makeScratchDir } from "./scratch-dirs.ts";

export async function readAssetBytes(store: AssetStore, key: string, kind: string): Promise<Uint8Array> {
  const dir = await makeScratchDir(kind);
  try {
    const path = join(dir, "asset");
    await store.getFile(key, path);
    return new Uint8Array(await readFile(path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
