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
 *   bun scripts/sql/schema-diff.ts [--keep]   (--keep leaves both databases for inspection)
 */
import process from "node:process";
import { run as migra } from "@pgkit/migra/dist/command.js";
import postgres, { type Sql } from "postgres";
import { LOCAL_STACK } from "../../shared/config/local-stack.ts";
import * as catalog from "./catalog.ts";
import { buildDatabase, declaredSchemaFiles, dropDatabase, migrationFiles } from "./scratch-databases.ts";

export const FROM_MIGRATIONS = "mdame_from_migrations";
export const FROM_DECLARED = "mdame_from_declared";

export interface SchemaDiff {
  /** SQL that would turn the migrations' database into the declared one, from migra. */
  migraSql: string;
  /** The first line of each of migra's statements: which objects differ, at a glance. */
  migraObjects: string[];
  /** One line per difference migra does not see: `<object>: migrations <a> | declared <b>`. */
  other: string[];
}

export function isEmpty(diff: SchemaDiff): boolean {
  return diff.migraSql.trim() === "" && diff.other.length === 0;
}

function dbUrl(database: string): string {
  return `postgresql://postgres:postgres@${LOCAL_STACK.host}:${LOCAL_STACK.dbPort}/${database}`;
}

function connect(database: string): Sql {
  return postgres(dbUrl(database), { max: 1, onnotice: () => {} });
}

/** Keyed snapshots of what migra does not compare. */
async function extras(sql: Sql): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const fn of await catalog.functions(sql)) out.set(`function ${fn.signature} privileges`, fn.acl.join(" ") || "(none)");
  out.set(`schema ${catalog.SCHEMA} privileges`, (await catalog.schemaAcl(sql)).join(" ") || "(none)");
  for (const [table, rows] of await catalog.tableRows(sql)) rows.forEach((row, i) => out.set(`rows of ${catalog.SCHEMA}.${table} #${i + 1}`, row));
  for (const job of await catalog.cronJobs(sql)) out.set(`pg_cron job ${job.jobname}`, `${job.schedule} ${job.command}${job.active ? "" : " (inactive)"}`);
  for (const queue of await catalog.queues(sql)) out.set(`pgmq queue ${queue}`, "exists");
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
  const migration = await migra(dbUrl(fromMigrations), dbUrl(fromDeclared), { schema: catalog.SCHEMA, withPrivileges: true, unsafe: true });
  const a = connect(fromMigrations);
  const b = connect(fromDeclared);
  try {
    const migraObjects = [...migration.statements].map((s) => String(s).trim().split("\n")[0]!.slice(0, 200)).filter((line) => line && !/^set check_function_bodies/i.test(line));
    return { migraSql: migration.sql, migraObjects, other: compareExtras(await extras(a), await extras(b)) };
  } finally {
    await Promise.all([a.end({ timeout: 2 }), b.end({ timeout: 2 })]);
  }
}

/** Builds both databases, diffs them and, unless `keep`, drops them. */
export async function schemaDiff(options: { keep?: boolean; log?: (line: string) => void } = {}): Promise<SchemaDiff> {
  const log = options.log ?? (() => {});
  try {
    const migrations = migrationFiles();
    log(`building ${FROM_MIGRATIONS} from ${migrations.length} migrations`);
    await buildDatabase(FROM_MIGRATIONS, migrations);
    const declared = declaredSchemaFiles();
    log(`building ${FROM_DECLARED} from ${declared.length} declared schema files`);
    await buildDatabase(FROM_DECLARED, declared);
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

if (import.meta.main) {
  const keep = process.argv.includes("--keep");
  const started = performance.now();
  schemaDiff({ keep, log: console.log }).then(
    (diff) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (isEmpty(diff)) {
        console.log(`no differences: the declared schema builds what the migrations build (${seconds} s)`);
        process.exit(0);
      }
      console.log(describe(diff));
      console.log(`\nthe declared schema differs from the migrations (${seconds} s); see docs/reference/sql-layout.md${keep ? `; kept ${FROM_MIGRATIONS} and ${FROM_DECLARED}` : ""}`);
      process.exit(1);
    },
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    },
  );
}
