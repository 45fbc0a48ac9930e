/**
 * Doctor's storage line through supabase-js `storage.getBucket`, against the Storage emulator:
 * unreachable, key refused, bucket not created yet, bucket present, and the local-directory backend.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createClient } from "@supabase/supabase-js";
import { type RunningEmulator, startEmulator } from "../../emulators/main.ts";
import { resolveDoctorConfig } from "../../cli/doctor/config.ts";
import { checkStorage } from "../../cli/doctor/storage.ts";
import { freePort } from "./fixtures/emulator-harness.ts";

const KEY = "sb_secret_storage-check-key-0123456789";
let emulator: RunningEmulator;
let dir: string;
const requests: { method: unknown; path: unknown }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-doctor-storage-"));
  emulator = await startEmulator({
    port: 0,
    dataDir: join(dir, "emulator"),
    storageServiceKey: KEY,
    log: (entry) => requests.push({ method: entry.method, path: entry.path }),
  });
  const created = await createClient(emulator.url, KEY, { auth: { persistSession: false } }).storage.createBucket("mdame-prod", { public: false });
  if (created.error) throw created.error;
});

afterAll(async () => {
  await emulator?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

const check = (env: Record<string, string>) => checkStorage(resolveDoctorConfig({ ENV: "dev", ...env }, join(dir, "none.env")), 5_000);
const base = () => emulator.url;

describe("doctor's storage check", () => {
  test("a bucket that exists, asked with the service-role key supabase-js sends", async () => {
    const result = await check({ STORAGE_BACKEND: "supabase", SUPABASE_URL: base(), SUPABASE_SERVICE_ROLE_KEY: KEY, STORAGE_BUCKET: "mdame-prod" });
    expect(result).toEqual({
      family: "providers",
      name: "storage",
      status: "ok",
      message: `Supabase Storage at ${base()}: bucket mdame-prod exists (private)`,
    });
    expect(requests.at(-1)).toEqual({ method: "GET", path: "/storage/v1/bucket/mdame-prod" });
  });

  test("a refused key is named, with where to get the right one", async () => {
    const result = await check({
      STORAGE_BACKEND: "supabase",
      SUPABASE_URL: base(),
      SUPABASE_SERVICE_ROLE_KEY: "sb_secret_not-this-project-000000",
      STORAGE_BUCKET: "mdame-prod",
    });
    expect(result.status).toBe("fail");
    expect(result.message).toStartWith(`Supabase Storage at ${base()} refused SUPABASE_SERVICE_ROLE_KEY (`);
    expect(result.fix).toContain("service_role");
  });

  test("a bucket not created yet is fine: the key is accepted and the first upload creates it", async () => {
    const result = await check({ STORAGE_BACKEND: "supabase", SUPABASE_URL: base(), SUPABASE_SERVICE_ROLE_KEY: KEY, STORAGE_BUCKET: "mdame-dev" });
    expect(result).toEqual({
      family: "providers",
      name: "storage",
      status: "ok",
      message: `Supabase Storage at ${base()} accepts the key; bucket mdame-dev does not exist yet and is created (private) on the first upload`,
    });
  });

  test("an unreachable project (connection refused) is named", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await check({ STORAGE_BACKEND: "supabase", SUPABASE_URL: closed, SUPABASE_SERVICE_ROLE_KEY: KEY });
    expect(result.status).toBe("fail");
    expect(result.message).toStartWith(`cannot reach Supabase Storage at ${closed}: `);
    expect(result.message).toMatch(/ECONNREFUSED|Unable to connect/);
  });

  test("without SUPABASE_URL the storage line says what is missing", async () => {
    const result = await check({ STORAGE_BACKEND: "supabase", SUPABASE_SERVICE_ROLE_KEY: KEY });
    expect(result.status).toBe("fail");
    expect(result.message).toBe("STORAGE_BACKEND=supabase needs SUPABASE_URL");
  });

  test("the local backend needs a writable directory", async () => {
    const writable = join(dir, "assets");
    expect(await check({ STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: writable })).toEqual({
      family: "providers",
      name: "storage",
      status: "ok",
      message: `local directory ${writable} is writable (STORAGE_BACKEND=local)`,
    });
    const prod = await check({ ENV: "prod", STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: writable });
    expect(prod.status).toBe("warn");
    if (process.getuid?.() !== 0) {
      // Root writes anywhere; as another user a read-only directory must fail.
      const locked = join(dir, "locked");
      await check({ STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: locked });
      await chmod(locked, 0o500);
      const result = await check({ STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: locked });
      expect(result.status).toBe("fail");
      expect(result.message).toStartWith(`local directory ${locked} is not writable`);
    }
  });
});
