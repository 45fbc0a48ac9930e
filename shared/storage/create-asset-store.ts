/**
 * Builds the asset store the environment configures: `STORAGE_BACKEND=supabase` (the default)
 * -> Supabase Storage through supabase-js; `local` -> a directory (tests, one-machine setups).
 */
import { resolve } from "node:path";
import { ConfigError, type EngineEnv } from "../config/env.ts";
import type { AssetStore } from "./asset-store.ts";
import { LocalDirectoryStore } from "./local-directory-store.ts";
import { SupabaseStore } from "./supabase-store.ts";

/** What `loadEnv(STORAGE_ENV_KEYS)` yields: the Supabase keys are absent for the local backend. */
type StorageEnv =
  & Pick<EngineEnv, "STORAGE_BACKEND" | "STORAGE_LOCAL_DIR">
  & Partial<Pick<EngineEnv, "SUPABASE_URL" | "SUPABASE_SERVICE_ROLE_KEY" | "STORAGE_BUCKET">>;

export function createAssetStore(env: StorageEnv): AssetStore {
  if (env.STORAGE_BACKEND === "local") return new LocalDirectoryStore(resolve(env.STORAGE_LOCAL_DIR));
  const missing = (["SUPABASE_URL", "SUPABASE_SERVICE_ROLE_KEY", "STORAGE_BUCKET"] as const).filter((k) => !env[k]);
  if (missing.length > 0) throw new ConfigError(`STORAGE_BACKEND=supabase needs ${missing.join(", ")}`);
  return new SupabaseStore({ url: env.SUPABASE_URL!, serviceRoleKey: env.SUPABASE_SERVICE_ROLE_KEY!, bucket: env.STORAGE_BUCKET! });
}

/** Where the store keeps assets, for a start-up log line (never the key). */
export function describeAssetStore(env: StorageEnv): string {
  return env.STORAGE_BACKEND === "local"
    ? `local directory ${resolve(env.STORAGE_LOCAL_DIR)}`
    : `Supabase Storage ${env.SUPABASE_URL} bucket ${env.STORAGE_BUCKET}`;
}
