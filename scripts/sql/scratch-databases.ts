/**
 * Scratch databases on the local cluster, built the way a db reset builds `postgres` (platform SQL,
 * pgmq, then SQL files in order), so the migrations and the declared schema can be compared.
 *
 * pg_cron only lets `create extension pg_cron` run in the database named by `cron.database_name`
 * (`postgres`, which the running stack and pg_cron's scheduler hold) or in one named
 * `contrib_regression`, the name its own regression suite builds in. So a scratch database is built
 * under that name with the real pg_cron, then renamed. Its jobs never run: the scheduler reads
 * `cron.job` in `postgres` only. One build runs at a time on a cluster.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pgEnv, runCommand } from "../../stack/db.ts";
import { pgBinDir } from "../../stack/pg-server.ts";
import { paths } from "../../stack/paths.ts";
import { PLATFORM_SQL } from "../../stack/platform-sql.ts";
import postgres, { type Sql } from "postgres";
import { LOCAL_STACK } from "../../shared/config/local-stack.ts";

/** The only database besides `cron.database_name` where pg_cron's install script runs. */
const BUILD_NAME = "contrib_regression";

export const SUPABASE_DIR = join(paths.root, "supabase");

/** A SQL file that failed while building a scratch database, with psql's message. */
export class BuildError extends Error {
  constructor(readonly database: string, readonly file: string, readonly psqlOutput: string) {
    super(`building ${database}: ${file} failed:\n${psqlOutput.trim()}`);
    this.name = "BuildError";
  }
}

async function psql(database: string, args: string[]): Promise<{ code: number; output: string }> {
  const result = await runCommand([join(pgBinDir(), "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", ...args], { env: pgEnv(database) });
  return { code: result.code, output: result.stderr || result.stdout };
}

async function run(database: string, label: string, sql: string): Promise<string> {
  const result = await runCommand([join(pgBinDir(), "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql], { env: pgEnv(database) });
  if (result.code !== 0) throw new BuildError(database, label, result.stderr || result.stdout);
  return result.stdout.trim();
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A scratch database's URL on the local cluster, as the superuser. */
export function scratchDbUrl(database: string): string {
  return `postgresql://postgres:postgres@${LOCAL_STACK.host}:${LOCAL_STACK.dbPort}/${database}`;
}

/** One connection to a scratch database, as the superuser. */
export function scratchSql(database: string): Sql {
  return postgres(scratchDbUrl(database), { max: 1, onnotice: () => {} });
}

export async function dropDatabase(name: string): Promise<void> {
  await run("postgres", `drop ${name}`, `drop database if exists ${quoteIdent(name)} with (force)`);
}

/** Migration files in the order the Supabase CLI applies them (file name order). */
export function migrationFiles(supabaseDir: string = SUPABASE_DIR): string[] {
  const dir = join(supabaseDir, "migrations");
  return readdirSync(dir).filter((f) => f.endsWith(".sql")).sort().map((f) => join(dir, f));
}

/**
 * Creates `name` from scratch: platform roles and extensions, pgmq (the extension where the server
 * has it, else supabase/pgmq-compat/pgmq.sql), then each file in its own transaction, as
 * `supabase db reset` applies each migration. Throws BuildError naming the file that failed.
 */
export async function buildDatabase(name: string, files: string[], supabaseDir: string = SUPABASE_DIR): Promise<void> {
  await dropDatabase(name);
  await dropDatabase(BUILD_NAME);
  await run("postgres", `create ${name}`, `create database ${BUILD_NAME}`);
  try {
    await run(BUILD_NAME, "platform setup", PLATFORM_SQL);
    const hasPgmq = (await run(BUILD_NAME, "pgmq check", "select count(*) from pg_available_extensions where name = 'pgmq'")) !== "0";
    if (hasPgmq) await run(BUILD_NAME, "create extension pgmq", "create extension if not exists pgmq");
    else await applyFile(BUILD_NAME, join(supabaseDir, "pgmq-compat", "pgmq.sql"));
    await applyFiles(BUILD_NAME, files);
  } catch (error) {
    await dropDatabase(BUILD_NAME);
    if (error instanceof BuildError) throw new BuildError(name, error.file, error.psqlOutput);
    throw error;
  }
  await run("postgres", `rename to ${name}`, `alter database ${BUILD_NAME} rename to ${quoteIdent(name)}`);
}

/**
 * Applies `files` in order in one psql session, each in its own transaction (as `--single-transaction`
 * would per file, without a process and a connection per file); psql stops at the first error, whose
 * message names the file.
 */
async function applyFiles(database: string, files: string[]): Promise<void> {
  if (files.length === 0) return;
  const dir = mkdtempSync(join(tmpdir(), "mdame-build-"));
  const script = join(dir, "build.sql");
  writeFileSync(script, files.map((file) => `begin;\n\\i '${file.replaceAll("'", "''")}'\ncommit;\n`).join(""));
  try {
    const result = await psql(database, ["-f", script]);
    if (result.code === 0) return;
    const at = /^psql:(.+?):\d+: (?:ERROR|FATAL|error):/m.exec(result.output)?.[1];
    const failed = files.find((file) => file === at);
    throw new BuildError(database, failed ? relative(paths.root, failed) || failed : "one of the schema files", result.output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function applyFile(database: string, file: string): Promise<void> {
  const result = await psql(database, ["--single-transaction", "-f", file]);
  if (result.code !== 0) throw new BuildError(database, relative(paths.root, file) || file, result.output);
}

/**
 * The declared schema files in the order `[db.migrations] schema_paths` of supabase/config.toml
 * lists them: each entry a path or a glob relative to supabase/, a glob's matches sorted by name,
 * a file matched twice applied once (where it first appears).
 */
export function declaredSchemaFiles(supabaseDir: string = SUPABASE_DIR): string[] {
  const patterns = schemaPathsFromConfig(readFileSync(join(supabaseDir, "config.toml"), "utf8"));
  if (patterns.length === 0) throw new Error("supabase/config.toml has no [db.migrations] schema_paths");
  const seen = new Set<string>();
  const files: string[] = [];
  for (const pattern of patterns) {
    const matches = [...new Bun.Glob(pattern.replace(/^\.\//, "")).scanSync({ cwd: supabaseDir, onlyFiles: true })].sort();
    if (matches.length === 0) throw new Error(`schema_paths entry ${pattern} matches no file under supabase/`);
    for (const match of matches) {
      const file = join(supabaseDir, match);
      if (seen.has(file) || !existsSync(file)) continue;
      seen.add(file);
      files.push(file);
    }
  }
  return files;
}

/** The `schema_paths` array of the `[db.migrations]` table (a string array, one entry per line or not). */
export function schemaPathsFromConfig(toml: string): string[] {
  const section = /^\[db\.migrations\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(toml);
  if (!section) return [];
  const array = /^\s*schema_paths\s*=\s*\[([\s\S]*?)\]/m.exec(section[1]!);
  if (!array) return [];
  const withoutComments = array[1]!.split("\n").map((line) => line.replace(/#.*$/, "")).join("\n");
  return [...withoutComments.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}
