/**
 * Doctor's storage line through supabase-js `storage.getBucket`: unreachable, key refused, bucket
 * missing, bucket present, and the local-directory backend. The Supabase side is a small loopback
 * server answering `GET /storage/v1/bucket/{id}` with the bodies Supabase Storage documents
 * (`{statusCode, error, message}` errors), until the Storage emulator is part of the stack.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { resolveDoctorConfig } from "../../scripts/doctor/config.ts";
import { checkStorage } from "../../scripts/doctor/storage.ts";
import { freePort } from "./fixtures/emulator-harness.ts";

const KEY = "sb_secret_storage-check-key-0123456789";
let server: ReturnType<typeof Bun.serve>;
let dir: string;
const requests: { path: string; authorization: string | null; apikey: string | null }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-doctor-storage-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      requests.push({ path: url.pathname, authorization: request.headers.get("authorization"), apikey: request.headers.get("apikey") });
      const match = /^\/storage\/v1\/bucket\/([^/]+)$/.exec(url.pathname);
      if (!match || request.method !== "GET") return Response.json({ statusCode: "404", error: "Not Found", message: "Route not found" }, { status: 404 });
      if (request.headers.get("authorization") !== `Bearer ${KEY}`) {
        return Response.json({ statusCode: "403", error: "Unauthorized", message: "invalid signature" }, { status: 400 });
      }
      if (match[1] !== "mdame-prod") return Response.json({ statusCode: "404", error: "Bucket not found", message: "Bucket not found" }, { status: 400 });
      return Response.json({
        id: "mdame-prod", name: "mdame-prod", owner: "", public: false, file_size_limit: null, allowed_mime_types: null,
        created_at: "2026-11-01T00:00:00.000Z", updated_at: "2026-11-01T00:00:00.000Z",
      });
    },
  });
});

afterAll(async () => {
  server?.stop(true);
  await rm(dir, { recursive: true, force: true });
});

const check = (env: Record<string, string>) => checkStorage(resolveDoctorConfig({ ENV: "dev", ...env }, join(dir, "none.env")), 5_000);
const base = () => `http://127.0.0.1:${server.port}`;

describe("doctor's storage check", () => {
  test("a bucket that exists, asked with the service-role key supabase-js sends", async () => {
    const result = await check({ STORAGE_BACKEND: "supabase", SUPABASE_URL: base(), SUPABASE_SERVICE_ROLE_KEY: KEY, STORAGE_BUCKET: "mdame-prod" });
    expect(result).toEqual({ family: "providers", name: "storage", status: "ok", message: `Supabase Storage at ${base()}: bucket mdame-prod exists (private)` });
    expect(requests.at(-1)).toEqual({ path: "/storage/v1/bucket/mdame-prod", authorization: `Bearer ${KEY}`, apikey: KEY });
  });

  test("a refused key is named, with where to get the right one", async () => {
    const result = await check({ STORAGE_BACKEND: "supabase", SUPABASE_URL: base(), SUPABASE_SERVICE_ROLE_KEY: "sb_secret_not-this-project-000000", STORAGE_BUCKET: "mdame-prod" });
    expect(result.status).toBe("fail");
    expect(result.message).toBe(`Supabase Storage at ${base()} refused SUPABASE_SERVICE_ROLE_KEY (invalid signature)`);
    expect(result.fix).toContain("service_role");
  });

  test("a missing bucket says how to create it", async () => {
    const result = await check({ STORAGE_BACKEND: "supabase", SUPABASE_URL: base(), SUPABASE_SERVICE_ROLE_KEY: KEY, STORAGE_BUCKET: "mdame-dev" });
    expect(result.status).toBe("fail");
    expect(result.message).toBe(`bucket mdame-dev does not exist in ${base()}`);
    expect(result.fix).toBe('create it: Supabase dashboard > Storage > New bucket "mdame-dev" (private), or set STORAGE_BUCKET');
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
      family: "providers", name: "storage", status: "ok", message: `local directory ${writable} is writable (STORAGE_BACKEND=local)`,
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
