/**
 * The real Supabase CLI (devDependency `supabase`, pinned) as the local stack uses it: without Docker,
 * `supabase db reset --db-url <url>` resets a running Postgres the way it resets a remote project.
 *
 * What it does to that database (CLI 2.117.0, checked against its embedded SQL and by running it):
 * - drops every schema no extension created, except information_schema, pg_*, pgmq, vault,
 *   extensions, public, supabase_migrations, pgbouncer, pgsodium, pgtle and Supabase's internal ones;
 *   so `mdame` goes, and the pgmq-compatible SQL in schema `pgmq` stays, queue rows included;
 * - drops every extension except pg_graphql, pg_net, pg_stat_statements, pgcrypto, pgjwt, pgsodium,
 *   supabase_vault and uuid-ossp: pg_cron (with its jobs), pgmq and pgTAP go;
 * - empties schema public (routines, views, tables, sequences, types), drops every row-level
 *   security policy and every publication, truncates supabase_migrations;
 * - applies supabase/migrations in filename order, each file in its own transaction, recording each
 *   version in supabase_migrations.schema_migrations, then the [db.seed] files of config.toml.
 * It keeps roles, database settings and anything inside the schemas it keeps.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import process from "node:process";
import { paths } from "./paths.ts";

/** The CLI's own launcher, installed by npm ci. */
const SUPABASE_CLI = join(paths.root, "node_modules", ".bin", "supabase");

/**
 * The CLI would otherwise ask for telemetry consent, report usage and look for a newer release over
 * the network; none of that belongs in a database reset. Its state stays inside the project.
 */
function supabaseCliEnv(): Record<string, string> {
  return {
    SUPABASE_TELEMETRY_DISABLED: "1",
    DO_NOT_TRACK: "1",
    SUPABASE_NO_UPDATE_NOTIFIER: "1",
    SUPABASE_HOME: join(paths.local, "supabase-home"),
  };
}

/** A failed `supabase db reset`: the file the CLI was applying (when it says) and what it printed. */
export class SupabaseResetError extends Error {
  constructor(readonly file: string | null, readonly cliOutput: string) {
    super(`${file ? `${file} failed` : "supabase db reset failed"}:\n${cliOutput.trim()}`);
    this.name = "SupabaseResetError";
  }
}

const APPLYING = /^Applying migration (\S+?)\.\.\.$/;
const SEEDING = /^Seeding data from (\S+?)\.\.\.$/;

/**
 * The file the CLI was applying when it stopped, relative to the project, and the output from its
 * error on. The CLI prints one progress line per file, then `ERROR: ... (SQLSTATE ...)`.
 */
function locateFailure(output: string, supabaseDir: string): { file: string | null; detail: string } {
  const lines = output.split("\n");
  let file: string | null = null;
  let errorAt = -1;
  lines.forEach((line, index) => {
    const migration = APPLYING.exec(line.trim());
    const seed = SEEDING.exec(line.trim());
    if (migration) file = relative(paths.root, join(supabaseDir, "migrations", migration[1]!));
    else if (seed) file = relative(paths.root, join(dirname(supabaseDir), seed[1]!));
    if (errorAt < 0 && /^ERROR:/.test(line.trim())) errorAt = index;
  });
  if (errorAt < 0) return { file: null, detail: output.trim() };
  return { file, detail: lines.slice(errorAt).join("\n").trim() };
}

interface SupabaseResetOptions {
  /** The project's `supabase` folder (config.toml, migrations/, seed.sql). */
  supabaseDir: string;
  /** postgresql:// URL of the database to reset. */
  dbUrl: string;
  log: (line: string) => void;
  timeoutMs?: number;
}

/** Runs `supabase db reset --db-url ... --yes`, streaming its progress lines to `log`. */
export function supabaseDbReset(options: SupabaseResetOptions): Promise<void> {
  if (basename(options.supabaseDir) !== "supabase") {
    return Promise.reject(new Error(`the Supabase CLI needs a folder named supabase, not ${options.supabaseDir}`));
  }
  if (!existsSync(SUPABASE_CLI)) {
    return Promise.reject(new Error(`the Supabase CLI is not installed (${relative(paths.root, SUPABASE_CLI)}); run: npm ci`));
  }
  const argv = [
    "db",
    "reset",
    "--db-url",
    options.dbUrl,
    // --yes answers the "reset the remote database?" prompt; --agent no keeps the plain text output.
    "--yes",
    "--agent",
    "no",
    "--workdir",
    dirname(options.supabaseDir),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(SUPABASE_CLI, argv, {
      cwd: paths.root,
      env: { ...process.env, ...supabaseCliEnv() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let pending = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (APPLYING.test(line.trim()) || SEEDING.test(line.trim())) options.log(`reset: ${line.trim()}`);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`could not run the Supabase CLI: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const { file, detail } = locateFailure(output, options.supabaseDir);
      const why = signal ? `(killed by ${signal} after ${options.timeoutMs ?? 180_000} ms)\n` : "";
      reject(new SupabaseResetError(file, `${why}${detail}`));
    });
  });
}
