/**
 * `npm run db:reset`: `supabase db reset` on the local cluster. Creates and starts the cluster when
 * needed, then recreates the database with the Supabase CLI from supabase/migrations and
 * supabase/seed.sql (stack/db.ts, reset()).
 */
import process from "node:process";
import { LOCAL_DB_URL } from "../shared/config/local-stack.ts";
import { ensureRunning, reset, SqlFileError } from "./db.ts";

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

try {
  await ensureRunning();
  await reset();
  console.log(`db:reset done in ${elapsed()}: ${LOCAL_DB_URL}`);
} catch (error) {
  if (error instanceof SqlFileError) {
    console.error(`db:reset failed after ${elapsed()} in ${error.file}:\n${error.psqlOutput.trim()}`);
  } else {
    console.error(`db:reset failed after ${elapsed()}: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
}
