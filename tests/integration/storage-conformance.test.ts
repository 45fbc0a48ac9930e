/**
 * One conformance suite for every AssetStore backend: the local directory, and Supabase Storage
 * through supabase-js against the Storage emulator (a real HTTP server, its files on disk).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmulator } from "../../emulators/main.ts";
import { AssetNotFoundError, type AssetStore } from "../../shared/storage/asset-store.ts";
import { createAssetStore } from "../../shared/storage/create-asset-store.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import { LARGE_OBJECT_BYTES, SupabaseStore } from "../../shared/storage/supabase-store.ts";

const SERVICE_KEY = randomBytes(32).toString("hex");
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let workDir: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let small: { file: string; bytes: Uint8Array };
let large: { file: string; bytes: Uint8Array };

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "mdame-storage-conformance-"));
  emulator = await startEmulator({ port: 0, dataDir: path.join(workDir, "emulator"), storageServiceKey: SERVICE_KEY, log: () => {} });
  small = { file: path.join(workDir, "voice.mp3"), bytes: new Uint8Array(randomBytes(300_001)) };
  // Two full TUS chunks and a partial one.
  large = { file: path.join(workDir, "render.mp4"), bytes: new Uint8Array(randomBytes(2 * LARGE_OBJECT_BYTES + 777_777)) };
  await writeFile(small.file, small.bytes);
  await writeFile(large.file, large.bytes);
});

afterAll(async () => {
  await emulator?.stop();
  await rm(workDir, { recursive: true, force: true });
}, 60_000);

const backends: Array<[string, () => AssetStore]> = [
  ["local directory", () => new LocalDirectoryStore(path.join(workDir, "local-store"))],
  [
    "Supabase Storage (supabase-js -> emulator)",
    () =>
      createAssetStore({
        STORAGE_BACKEND: "supabase",
        STORAGE_LOCAL_DIR: "unused",
        SUPABASE_URL: emulator.url,
        SUPABASE_SERVICE_ROLE_KEY: SERVICE_KEY,
        STORAGE_BUCKET: "mdame-conformance",
      }),
  ],
];

describe.each(backends)("%s", (_name, makeStore) => {
  let store: AssetStore;
  let out: string;
  beforeAll(async () => {
    store = makeStore();
    out = await mkdtemp(path.join(workDir, "out-"));
  });

  test("a stored file comes back byte for byte, and is listed under its folder", async () => {
    const stored = await store.putFile("voice/abc123.mp3", small.file, "audio/mpeg");
    expect(stored).toEqual({ key: "voice/abc123.mp3", size_bytes: small.bytes.length });
    await store.getFile("voice/abc123.mp3", path.join(out, "nested", "voice.mp3"));
    expect(sha256(await readFile(path.join(out, "nested", "voice.mp3")))).toBe(sha256(small.bytes));
    expect(await store.list("voice")).toEqual([{ key: "voice/abc123.mp3", size_bytes: small.bytes.length }]);
  });

  test("exists tells a stored key from an absent one", async () => {
    await store.putFile("scenes/exists-check.mp4", small.file, "video/mp4");
    expect(await store.exists("scenes/exists-check.mp4")).toBe(true);
    expect(await store.exists("scenes/never-stored.mp4")).toBe(false);
  });

  test("remove deletes the asset; removing an absent key is fine", async () => {
    await store.putFile("scenes/to-remove.mp4", small.file, "video/mp4");
    await store.remove("scenes/to-remove.mp4");
    expect(await store.exists("scenes/to-remove.mp4")).toBe(false);
    await store.remove("scenes/to-remove.mp4");
    await store.remove("scenes/never-stored.mp4");
    expect((await store.list("scenes")).map((a) => a.key)).not.toContain("scenes/to-remove.mp4");
  });

  test("reading an absent key throws AssetNotFoundError and leaves no file behind", async () => {
    const target = path.join(out, "missing.mp4");
    const error = await store.getFile("scenes/never-stored.mp4", target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AssetNotFoundError);
    expect((error as AssetNotFoundError).key).toBe("scenes/never-stored.mp4");
    expect(existsSync(target)).toBe(false);
    expect((await readdir(out)).filter((n) => n.startsWith("missing"))).toEqual([]);
  });

  test("storing a key that is already there counts as done and keeps its bytes", async () => {
    await store.putFile("scenes/twice.mp4", small.file, "video/mp4");
    const again = await store.putFile("scenes/twice.mp4", small.file, "video/mp4");
    expect(again).toEqual({ key: "scenes/twice.mp4", size_bytes: small.bytes.length });
    await store.getFile("scenes/twice.mp4", path.join(out, "twice.mp4"));
    expect(sha256(await readFile(path.join(out, "twice.mp4")))).toBe(sha256(small.bytes));
  });

  test("a render bigger than one upload request round-trips, streamed to disk", async () => {
    // Past this size the Supabase backend switches to TUS (storage-emulator.test.ts follows its requests).
    expect(large.bytes.length).toBeGreaterThan(LARGE_OBJECT_BYTES);
    const stored = await store.putFile("renders/big.mp4", large.file, "video/mp4");
    expect(stored.size_bytes).toBe(large.bytes.length);
    // A second store of the same render is done without sending it again.
    expect((await store.putFile("renders/big.mp4", large.file, "video/mp4")).size_bytes).toBe(large.bytes.length);
    const target = path.join(out, "big.mp4");
    await writeFile(target, "an older file the download replaces");
    await store.getFile("renders/big.mp4", target);
    expect(sha256(await readFile(target))).toBe(sha256(large.bytes));
    expect((await readdir(out)).filter((n) => n.endsWith(".part"))).toEqual([]);
  });

  test("a signed URL serves the asset's bytes where the backend can sign; the local directory cannot", async () => {
    await store.putFile("renders/signed.mp4", small.file, "video/mp4");
    const url = await store.signedUrl("renders/signed.mp4", 600);
    if (store instanceof LocalDirectoryStore) {
      expect(url).toBeNull();
    } else {
      expect(url).not.toBeNull();
      const response = await fetch(url!);
      expect(response.status).toBe(200);
      expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(small.bytes));
    }
    await expect(store.signedUrl("renders/never-stored.mp4", 600)).rejects.toBeInstanceOf(AssetNotFoundError);
    await expect(store.signedUrl("../escape.mp4", 600)).rejects.toThrow("invalid asset key");
  });

  test("keys that could escape the store are refused before anything is stored", async () => {
    for (const key of ["../escape.mp4", "scenes/../../etc/passwd", "/abs/path.mp4", "scenes/", "scenes", "Scenes/x.mp4", "scenes/a b.mp4"]) {
      await expect(store.putFile(key, small.file, "video/mp4")).rejects.toThrow("invalid asset key");
      await expect(store.getFile(key, path.join(out, "x"))).rejects.toThrow("invalid asset key");
      await expect(store.exists(key)).rejects.toThrow("invalid asset key");
      await expect(store.remove(key)).rejects.toThrow("invalid asset key");
    }
    await expect(store.list("../")).rejects.toThrow("invalid asset prefix");
  });
});

test("the Supabase backend needs its URL, key and bucket", () => {
  expect(() => createAssetStore({ STORAGE_BACKEND: "supabase", STORAGE_LOCAL_DIR: "x", SUPABASE_URL: emulator.url })).toThrow(
    "STORAGE_BACKEND=supabase needs SUPABASE_SERVICE_ROLE_KEY, STORAGE_BUCKET",
  );
  expect(createAssetStore({ STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: workDir })).toBeInstanceOf(LocalDirectoryStore);
  expect(
    createAssetStore({
      STORAGE_BACKEND: "supabase",
      STORAGE_LOCAL_DIR: "x",
      SUPABASE_URL: emulator.url,
      SUPABASE_SERVICE_ROLE_KEY: SERVICE_KEY,
      STORAGE_BUCKET: "b1",
    }),
  ).toBeInstanceOf(SupabaseStore);
});
