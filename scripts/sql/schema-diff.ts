/**
 * `npm run schema:diff`: builds one database from supabase/migrations and one from the declared
 * schema (supabase/schemas, in config.toml's schema_paths order) on the local cluster, and lists
 * every mdame object on which they differ.
 *
 * migra (@pgkit/migra) compares what it knows: tables, columns, constraints, indexes, policies,
 * triggers, types, views, functions (pg_get_functiondef, so search_path and security definer too)
 * and table privileges. It does not look at function privileges, the schema's own privileges,
 * rows, pg_cron jobs or pgmq queues, so those are compared here from the catalogs.
 *
 *   bun scripts/sql/schema-diff.ts [--keep]          (--keep leaves both databases for inspection)
 *   bun scripts/sql/schema-diff.ts --write <name>    writes what differs as the next migration,
 *                                                    supabase/migrations/<version>_<name>.sql,
 *                                                    then diffs again to show it is complete
 */
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { run as migra } from "@pgkit/migra/dist/command.js";
import type { Sql } from "postgres";
import * as catalog from "./catalog.ts";
import { buildDatabase, declaredSchemaFiles, dropDatabase, migrationFiles, scratchDbUrl, scratchSql, SUPABASE_DIR } from "./scratch-databases.ts";
import { MIGRATION_NAME, migrationSql, nextVersion, UnwritableDifference } from "./write-migration.ts";
import { paths } from "../../stack/paths.ts";

export const FROM_MIGRATIONS = "mdame_from_migrations";
export const FROM_DECLARED = "mdame_from_declared";

export interface SchemaDiff {
  /** SQL that would turn the migrations' database into the declared one, from migra. */
  migraSql: string;
  /** The first line of each of migra's statements: which objects differ, at a glance. */
  migraObjects: string[];
  /** One line per difference migra does not see: `<object>: migrations <a> | declared <b>`. */
  other: string[];
  /** What migra does not compare, as each database holds it. */
  fromMigrations: catalog.Snapshot;
  fromDeclared: catalog.Snapshot;
}

export function isEmpty(diff: SchemaDiff): boolean {
  return diff.migraSql.trim() === "" && diff.other.length === 0;
}

async function snapshot(sql: Sql): Promise<catalog.Snapshot> {
  return {
    functionAcl: new Map((await catalog.functions(sql)).map((fn) => [fn.signature, fn.acl])),
    comments: new Map([
      ...(await catalog.functions(sql)).map((fn) => [`function ${fn.signature}`, fn.comment] as const),
      ...(await catalog.tables(sql)).map((table) => [`table ${catalog.SCHEMA}.${table.name}`, table.comment] as const),
    ]),
    schemaAcl: await catalog.schemaAcl(sql),
    rows: await catalog.tableRows(sql),
    cronJobs: await catalog.cronJobs(sql),
    queues: await catalog.queues(sql),
  };
}

/** A snapshot keyed for comparison, one entry per object. */
function extras(snap: catalog.Snapshot): Map<string, string> {
  const out = new Map<string, string>();
  for (const [signature, acl] of snap.functionAcl) out.set(`function ${signature} privileges`, acl.join(" ") || "(none)");
  out.set(`schema ${catalog.SCHEMA} privileges`, snap.schemaAcl.join(" ") || "(none)");
  for (const [object, comment] of snap.comments) out.set(`${object} comment`, comment ?? "(none)");
  for (const [table, rows] of snap.rows) rows.forEach((row, i) => out.set(`rows of ${catalog.SCHEMA}.${table} #${i + 1}`, row));
  for (const job of snap.cronJobs) out.set(`pg_cron job ${job.jobname}`, `${job.schedule} ${job.command}${job.active ? "" : " (inactive)"}`);
  for (const queue of snap.queues) out.set(`pgmq queue ${queue}`, "exists");
  return out;
}

function compareExtras(fromMigrations: Map<string, string>, fromDeclared: Map<string, string>): string[] {
  const keys = [...new Set([...fromMigrations.keys(), ...fromDeclared.keys()])].sort();
  return keys
    .filter((k) => fromMigrations.get(k) !== fromDeclared.get(k))
    .map((k) => `${k}: migrations ${fromMigrations.get(k) ?? "(absent)"} | declared ${fromDeclared.get(k) ?? "(absent)"}`);
}

/** Diffs two databases that already exist on the local cluster. */
export async function diffDatabases(fromMigrations: string, fromDeclared: string): Promise<SchemaDiff> {
  const migration = await migra(scratchDbUrl(fromMigrations), scratchDbUrl(fromDeclared), { schema: catalog.SCHEMA, withPrivileges: true, unsafe: true });
  const a = scratchSql(fromMigrations);
  const b = scratchSql(fromDeclared);
  try {
    const migraObjects = [...migration.statements].map((s) => String(s).trim().split("\n")[0]!.slice(0, 200)).filter((line) =>
      line && !/^set check_function_bodies/i.test(line)
    );
    const [fromMigrations, fromDeclared] = await Promise.all([snapshot(a), snapshot(b)]);
    return { migraSql: migration.sql, migraObjects, other: compareExtras(extras(fromMigrations), extras(fromDeclared)), fromMigrations, fromDeclared };
  } finally {
    await Promise.all([a.end({ timeout: 2 }), b.end({ timeout: 2 })]);
  }
}

/**
 * Builds both databases, diffs them and, unless `keep`, drops them. `declaredBuilt`: the declared
 * schema's database is the one a kept diff of the same declared files left, and is not built again.
 */
export async function schemaDiff(
  options: { keep?: boolean; declaredBuilt?: boolean; log?: (line: string) => void; supabaseDir?: string } = {},
): Promise<SchemaDiff> {
  const log = options.log ?? (() => {});
  const dir = options.supabaseDir ?? SUPABASE_DIR;
  try {
    const migrations = migrationFiles(dir);
    log(`building ${FROM_MIGRATIONS} from ${migrations.length} migrations`);
    await buildDatabase(FROM_MIGRATIONS, migrations, dir);
    if (!options.declaredBuilt) {
      const declared = declaredSchemaFiles(dir);
      log(`building ${FROM_DECLARED} from ${declared.length} declared schema files`);
      await buildDatabase(FROM_DECLARED, declared, dir);
    }
    return await diffDatabases(FROM_MIGRATIONS, FROM_DECLARED);
  } finally {
    if (!options.keep) {
      await dropDatabase(FROM_MIGRATIONS);
      await dropDatabase(FROM_DECLARED);
    }
  }
}

/** What differs, readably: migra's statements first, then the other differences. */
export function describe(diff: SchemaDiff): string {
  const parts: string[] = [];
  if (diff.migraSql.trim()) {
    parts.push("objects migra finds different (its statements' first lines):", ...diff.migraObjects.map((line) => `  ${line}`), "");
    parts.push("migra: SQL that would turn the migrations' database into the declared schema's:", diff.migraSql.trim());
  }
  if (diff.other.length) parts.push("other differences:", ...diff.other.map((line) => `  ${line}`));
  return parts.join("\n");
}

const USAGE = "usage: npm run schema:diff [-- --keep | -- --write <name>]  (name: a-z, 0-9 and _, up to 60)";

/**
 * `--write <name>`: the next migration from what differs, then a second diff that must find
 * nothing. Returns the exit code and the file written, if any.
 */
export async function writeMigration(
  name: string,
  log: (line: string) => void,
  supabaseDir: string = SUPABASE_DIR,
): Promise<{ code: number; file: string | null }> {
  const started = performance.now();
  // The declared schema's database is kept for the second diff: only the migrations change between the two.
  const diff = await schemaDiff({ log, supabaseDir, keep: true });
  if (isEmpty(diff)) {
    await Promise.all([dropDatabase(FROM_MIGRATIONS), dropDatabase(FROM_DECLARED)]);
    log("no differences: the migrations already build the declared schema; nothing written");
    return { code: 0, file: null };
  }
  let text: string;
  try {
    text = migrationSql(name, diff.migraSql, diff.fromMigrations, diff.fromDeclared, supabaseDir);
  } catch (error) {
    if (error instanceof UnwritableDifference) {
      await Promise.all([dropDatabase(FROM_MIGRATIONS), dropDatabase(FROM_DECLARED)]);
      console.error(`schema:diff: nothing written: ${error.message}`);
      return { code: 1, file: null };
    }
    throw error;
  }
  const file = join(supabaseDir, "migrations", `${nextVersion(join(supabaseDir, "migrations"))}_${name}.sql`);
  writeFileSync(file, text);
  log(`written ${relative(paths.root, file)} (${text.split("\n").length} lines): ${describe(diff).split("\n").length} lines of differences`);
  const again = await schemaDiff({ log, supabaseDir, declaredBuilt: true });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (isEmpty(again)) {
    log(`no differences: with ${relative(paths.root, file)} the migrations build the declared schema (${seconds} s); read it before it lands`);
    return { code: 0, file };
  }
  log(describe(again));
  log(`\n${relative(paths.root, file)} is written but does not cover everything above (${seconds} s): complete it by hand`);
  return { code: 1, file };
}

if (import.meta.main) {
  let values: { keep?: boolean; write?: string };
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: { keep: { type: "boolean" }, write: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
    if (values.write !== undefined && !MIGRATION_NAME.test(values.write)) {
      throw new Error(`--write takes the migration's name, got ${JSON.stringify(values.write)}`);
    }
    if (values.write !== undefined && values.keep) throw new Error("--keep and --write do not go together");
  } catch (error) {
    console.error(`schema:diff: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.write !== undefined) {
    writeMigration(values.write, console.log).then(({ code }) => process.exit(code), (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    });
  } else {
    const keep = values.keep === true;
    const started = performance.now();
    schemaDiff({ keep, log: console.log }).then(
      (diff) => {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        if (isEmpty(diff)) {
          console.log(`no differences: the declared schema builds what the migrations build (${seconds} s)`);
          process.exit(0);
        }
        console.log(describe(diff));
        console.log(
          `\nthe declared schema differs from the migrations (${seconds} s); write the migration with \`npm run schema:diff -- --write <name>\` (docs/reference/sql-layout.md)${
            keep ? `; kept ${FROM_MIGRATIONS} and ${FROM_DECLARED}` : ""
          }`,
        );
        process.exit(1);
      },
      (error) => {
        console.error(error instanceof Error ? error.message : error);
        process.exit(2);
      },
    );
  }
}
