/**
 * Rewrites the generated part of supabase/schemas from a database built by the migrations:
 *   mdame/types/<type>.sql, mdame/tables/<table>.sql, mdame/functions/<name>.sql, mdame/views/<view>.sql,
 *   mdame/queues.sql, and the schema_paths list of supabase/config.toml.
 * preamble/*.sql, mdame/schema.sql, mdame/grants.sql and mdame/schedules.sql (which schedules the rows of
 * mdame.engine_jobs, a table this script does write) are written by hand and left alone.
 *
 * A file's leading comment block is kept when the file already exists; a new file gets the comments
 * the migrations wrote above the object's statements. Files of objects that no longer exist go.
 *
 *   bun scripts/sql/refresh-declared-schema.ts        (the local cluster must be running)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import process from "node:process";
import { paths } from "../../stack/paths.ts";
import * as catalog from "./catalog.ts";
import { commentsAbove, formatFunction, formatTable, leadingComment } from "./render-sql.ts";
import { buildDatabase, dropDatabase, migrationFiles, scratchSql, SUPABASE_DIR } from "./scratch-databases.ts";

const SCHEMAS_DIR = join(SUPABASE_DIR, "schemas");
const MDAME_DIR = join(SCHEMAS_DIR, catalog.SCHEMA);
const SOURCE_DB = "mdame_declared_source";

/** Hand-written files applied first, in this order. */
export const PREAMBLE = ["preamble/extensions.sql", "preamble/roles.sql", "mdame/schema.sql"];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Writes `dir/<name>.sql` for each entry and removes the other .sql files of `dir`. */
function writeFolder(dir: string, files: Map<string, { body: string; comments: string[] }>): void {
  mkdirSync(dir, { recursive: true });
  for (const existing of readdirSync(dir).filter((f) => f.endsWith(".sql"))) {
    if (!files.has(basename(existing, ".sql"))) rmSync(join(dir, existing));
  }
  // An empty folder would leave a schema_paths glob matching nothing.
  if (files.size === 0 && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
  for (const [name, { body, comments }] of files) writeFile(join(dir, `${name}.sql`), body, comments);
}

function writeFile(file: string, body: string, comments: string[]): void {
  const kept = existsSync(file) ? leadingComment(readFileSync(file, "utf8")) : null;
  const header = kept ?? comments.join("\n--\n");
  writeFileSync(file, `${header ? `${header}\n\n` : ""}${body.trimEnd()}\n`);
}

/** Tables ordered so that every table comes after the tables its foreign keys reference. */
export function dependencyOrder(tables: catalog.TableDef[]): string[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (ordered.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const con of byName.get(name)?.constraints ?? []) if (con.referencedTable && con.referencedTable !== name) visit(con.referencedTable);
    visiting.delete(name);
    ordered.push(name);
  };
  for (const t of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(t.name);
  return ordered;
}

/** The `[db.migrations]` section this layout needs, in the order the files must run. */
export function schemaPathsSection(tableOrder: string[], functionsForTables: string[], folders: { types: boolean; views: boolean }): string {
  const entries = [
    ...PREAMBLE.map((p) => [`./schemas/${p}`, ""]),
    ...(folders.types ? [["./schemas/mdame/types/*.sql", ""]] : []),
    ...functionsForTables.map((f) => [`./schemas/mdame/functions/${f}.sql`, "a table's default or check calls it"]),
    ...tableOrder.map((t, i) => [`./schemas/mdame/tables/${t}.sql`, i === 0 ? "each after the tables it references" : ""]),
    ["./schemas/mdame/tables/*.sql", "tables added since the list was written"],
    ["./schemas/mdame/functions/*.sql", ""],
    ...(folders.views ? [["./schemas/mdame/views/*.sql", ""]] : []),
    ["./schemas/mdame/queues.sql", ""],
    ["./schemas/mdame/schedules.sql", ""],
    ["./schemas/mdame/grants.sql", ""],
  ];
  const lines = entries.map(([path, note]) => `  "${path}",${note ? ` # ${note}` : ""}`);
  return [
    "[db.migrations]",
    "# The declared schema (docs/reference/sql-layout.md): the current definition of every mdame object, one",
    "# file each, in the order they can be created. A path listed twice runs once, where it first",
    "# appears. Written by scripts/sql/refresh-declared-schema.ts; `npm run schema:diff` checks that",
    "# these files build the database the migrations build.",
    "schema_paths = [",
    ...lines,
    "]",
  ].join("\n");
}

function writeConfig(section: string): void {
  const file = join(SUPABASE_DIR, "config.toml");
  const toml = readFileSync(file, "utf8");
  const existing = /^\[db\.migrations\]\s*$[\s\S]*?(?=^\[|(?![\s\S]))/m;
  const next = existing.test(toml) ? toml.replace(existing, `${section}\n\n`) : toml.replace(/^\[db\.seed\]/m, `${section}\n\n[db.seed]`);
  writeFileSync(file, next);
}

export async function refresh(log: (line: string) => void = console.log): Promise<void> {
  const migrations = migrationFiles().map((file) => ({ name: basename(file), text: readFileSync(file, "utf8") }));
  log(`building ${SOURCE_DB} from ${migrations.length} migrations`);
  await buildDatabase(SOURCE_DB, migrationFiles());
  const sql = scratchSql(SOURCE_DB);
  try {
    const functions = await catalog.functions(sql);
    const tables = await catalog.tables(sql);
    const rows = await catalog.tableRows(sql);

    const functionFiles = new Map<string, { body: string; comments: string[] }>();
    for (const fn of functions) {
      const entry = functionFiles.get(fn.name) ??
        {
          body: "",
          comments: commentsAbove(migrations, new RegExp(`^\\s*create (or replace )?function ${catalog.SCHEMA}\\.${escapeRegExp(fn.name)}\\s*\\(`, "i"), true),
        };
      const comment = fn.comment === null ? "" : `\n\ncomment on function ${fn.signature} is '${fn.comment.replaceAll("'", "''")}';`;
      // No grant lines: mdame.component_roles says who may execute each (grants.sql applies it).
      entry.body += `${entry.body ? "\n\n" : ""}${formatFunction(fn)}${comment}`;
      functionFiles.set(fn.name, entry);
    }
    writeFolder(join(MDAME_DIR, "functions"), functionFiles);

    const tableFiles = new Map<string, { body: string; comments: string[] }>();
    for (const table of tables) {
      const tableRows = (rows.get(table.name) ?? []).map((r) => JSON.parse(r) as Record<string, unknown>)
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : typeof v === "string" ? v : JSON.stringify(v)])));
      const name = escapeRegExp(table.name);
      const comments = commentsAbove(
        migrations,
        new RegExp(`^\\s*(create table|alter table|create (unique )?index \\S+ on|insert into) ${catalog.SCHEMA}\\.${name}\\b`, "i"),
      );
      tableFiles.set(table.name, { body: formatTable(table, tableRows), comments });
    }
    writeFolder(join(MDAME_DIR, "tables"), tableFiles);

    const typeFiles = new Map((await catalog.types(sql)).map((t) => [t.name, { body: t.definition, comments: [] as string[] }]));
    writeFolder(join(MDAME_DIR, "types"), typeFiles);

    const viewFiles = new Map((await catalog.views(sql)).map((v) => {
      const grants = [...v.grants].map(([grantee, p]) => `grant ${p.map((x) => x.toLowerCase()).join(", ")} on ${catalog.SCHEMA}.${v.name} to ${grantee};`);
      const body = `create ${v.kind === "m" ? "materialized view" : "or replace view"} ${catalog.SCHEMA}.${v.name} as\n${v.definition.trimEnd()}\n\n${
        grants.join("\n")
      }`;
      return [v.name, { body, comments: [] as string[] }];
    }));
    writeFolder(join(MDAME_DIR, "views"), viewFiles);

    const queues = await catalog.queues(sql);
    writeFile(join(MDAME_DIR, "queues.sql"), queues.map((q) => `select pgmq.create('${q}');`).join("\n"), commentsAbove(migrations, /^select pgmq\.create\(/));

    const functionNames = new Set(functions.map((f) => f.name));
    const functionsForTables = [
      ...new Set(tables.flatMap((t) =>
        [
          ...t.columns.flatMap((c) => [c.default ?? "", c.generated ?? ""]),
          ...t.constraints.map((c) => c.definition),
        ].flatMap((text) => [...text.matchAll(new RegExp(`\\b${catalog.SCHEMA}\\.(\\w+)\\(`, "g"))].map((m) => m[1]!))
      )),
    ]
      .filter((name) => functionNames.has(name)).sort();
    writeConfig(schemaPathsSection(dependencyOrder(tables), functionsForTables, { types: typeFiles.size > 0, views: viewFiles.size > 0 }));
    log(
      `wrote ${functionFiles.size} function files, ${tableFiles.size} table files, ${typeFiles.size} types, ${viewFiles.size} views, ${queues.length} queues under ${
        relative(paths.root, SCHEMAS_DIR)
      }`,
    );
  } finally {
    await sql.end({ timeout: 2 });
    await dropDatabase(SOURCE_DB);
  }
}

if (import.meta.main) {
  refresh().then(
    () => process.exit(0),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
