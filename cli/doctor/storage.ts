/**
 * Asset storage. With STORAGE_BACKEND=supabase: `storage.getBucket(STORAGE_BUCKET)` through
 * supabase-js against SUPABASE_URL with the service-role key, which proves the project answers,
 * the key is accepted and the bucket exists. With `local`: the directory is writable.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import process from "node:process";
import { createClient } from "@supabase/supabase-js";
import { type CheckResult, describeError, fail, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";
const NAME = "storage";

interface StorageFailure {
  name?: string;
  message?: string;
  status?: number;
  statusCode?: string;
  originalError?: unknown;
}

/** fetch bound to an abort signal, typed as the global fetch supabase-js asks for. */
function fetchWithSignal(signal: AbortSignal): typeof fetch {
  const bound = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => fetch(input, { ...init, signal });
  return Object.assign(bound, { preconnect: fetch.preconnect });
}

export async function checkStorage(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const env = config.env;
  const backend = env.STORAGE_BACKEND || "supabase";
  if (backend === "local") return checkLocalDirectory(env.STORAGE_LOCAL_DIR || ".local/storage", env.ENV === "prod");
  if (backend !== "supabase") return fail(FAMILY, NAME, `STORAGE_BACKEND=${backend} is neither supabase nor local`, hintFor("STORAGE_BACKEND"));
  const missing = ["SUPABASE_URL", "SUPABASE_SERVICE_ROLE_KEY", "STORAGE_BUCKET"].filter((k) => !env[k]);
  if (missing.length > 0) return fail(FAMILY, NAME, `STORAGE_BACKEND=supabase needs ${missing.join(", ")}`, hintFor(missing[0]!));
  const base = env.SUPABASE_URL!;
  const bucket = env.STORAGE_BUCKET!;
  try {
    const { data, error } = await withTimeout(timeoutMs, (signal) => {
      const client = createClient(base, env.SUPABASE_SERVICE_ROLE_KEY!, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        global: { fetch: fetchWithSignal(signal) },
      });
      return client.storage.getBucket(bucket);
    });
    if (!error) return ok(FAMILY, NAME, `Supabase Storage at ${base}: bucket ${data.name} exists (${data.public ? "public" : "private"})`);
    const failure = error as StorageFailure;
    if (failure.name === "StorageUnknownError" || failure.status === undefined) {
      return fail(
        FAMILY,
        NAME,
        `cannot reach Supabase Storage at ${base}: ${describeError(failure.originalError ?? error)}`,
        `check SUPABASE_URL: ${hintFor("SUPABASE_URL")}`,
      );
    }
    const code = failure.statusCode ?? String(failure.status);
    if (code === "404" || /not found/i.test(failure.message ?? "")) {
      // Storage checks the key before it looks for the bucket, and the engine creates its bucket
      // (private) with that key on its first upload: nothing to fix.
      return ok(FAMILY, NAME, `Supabase Storage at ${base} accepts the key; bucket ${bucket} does not exist yet and is created (private) on the first upload`);
    }
    if (
      failure.status === 401 || failure.status === 403 || code === "401" || code === "403" ||
      /signature|jws|jwt|unauthori[sz]ed|invalid.*key/i.test(failure.message ?? "")
    ) {
      return fail(
        FAMILY,
        NAME,
        `Supabase Storage at ${base} refused SUPABASE_SERVICE_ROLE_KEY (${failure.message ?? `HTTP ${failure.status}`})`,
        hintFor("SUPABASE_SERVICE_ROLE_KEY"),
      );
    }
    return fail(FAMILY, NAME, `Supabase Storage at ${base} answered HTTP ${failure.status}: ${failure.message ?? ""}`.trim(), hintFor("SUPABASE_URL"));
  } catch (error) {
    return fail(FAMILY, NAME, `cannot reach Supabase Storage at ${base}: ${describeError(error)}`, `check SUPABASE_URL: ${hintFor("SUPABASE_URL")}`);
  }
}

async function checkLocalDirectory(dir: string, prod: boolean): Promise<CheckResult> {
  const root = resolve(dir);
  const probe = join(root, `.mdame-doctor-${process.pid}`);
  try {
    await mkdir(root, { recursive: true });
    await writeFile(probe, "");
    await rm(probe, { force: true });
  } catch (error) {
    return fail(FAMILY, NAME, `local directory ${root} is not writable: ${describeError(error)}`, hintFor("STORAGE_LOCAL_DIR"));
  }
  if (prod) {
    return warn(
      FAMILY,
      NAME,
      `STORAGE_BACKEND=local with ENV=prod: assets stay in ${root}, out of reach of workers on other machines`,
      "set STORAGE_BACKEND=supabase with SUPABASE_URL and the service-role key, unless the whole engine runs on this machine",
    );
  }
  return ok(FAMILY, NAME, `local directory ${root} is writable (STORAGE_BACKEND=local)`);
}
