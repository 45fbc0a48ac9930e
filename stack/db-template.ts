/**
 * The reset template: a copy of the `postgres` database as a full reset through the Supabase CLI
 * left it (stack/db.ts, reset()), kept on the cluster as a database of its own. A later reset of the
 * same inputs (the supabase folder, the reset's own code, the pgmq layout, the server, the CLI's
 * version) copies it back with `create database ... template` instead of running the CLI again,
 * and restarts the server, since pg_cron's scheduler (and pg_net's worker, where the server has
 * it) leaves for good when its database is dropped. The test runner asks for it
 * (MDAME_RESET_TEMPLATE=1): a test file starts from a fresh database in a fraction of the CPU a
 * CLI reset costs. `npm run db:reset` and the demo keep the CLI every time.
 *
 * The template's name carries a hash of those inputs, so a changed migration builds a new one (and
 * the stale ones are dropped); it accepts no connections, so nothing can change it after the copy.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import process from "node:process";
import { paths } from "./paths.ts";

/** Every template's name starts so; what follows is the hash of its inputs. */
export const TEMPLATE_PREFIX = "mdame_reset_";

/**
 * Folders of the supabase folder that no reset reads: the declared schema (the CLI applies the
 * migrations, not schemas/), pgTAP files, the CLI's scratch.
 */
const NOT_READ = new Set(["schemas", "tests", ".temp", ".branches", "snippets"]);

/** The code that decides what a reset leaves: a change to it builds a new template. */
const RESET_CODE = ["stack/db.ts", "stack/db-template.ts", "stack/platform-sql.ts", "stack/supabase-cli.ts", "stack/supabase-extensions.ts"];

/** True when MDAME_RESET_TEMPLATE asks resets to reuse the template (the test runner sets it). */
export function templateRequested(env: Record<string, string | undefined> = process.env): boolean {
  return env.MDAME_RESET_TEMPLATE === "1";
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (NOT_READ.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

/** What a reset's result depends on besides the files: the pgmq layout, the server and the CLI. */
export interface TemplateInputs {
  supabaseDir: string;
  pgmqShape: string;
  /** The server's pgmq extension version, null when the reset installs the pgmq-compatible SQL. */
  serverPgmq: string | null;
  pgBinDir: string;
}

/** The template's database name for these inputs: `mdame_reset_` and 16 hex digits of their hash. */
export function templateName(inputs: TemplateInputs): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ shape: inputs.pgmqShape, pgmq: inputs.serverPgmq, bin: inputs.pgBinDir, cli: supabaseCliVersion() }));
  for (const file of filesUnder(inputs.supabaseDir)) {
    hash.update(`\0${relative(inputs.supabaseDir, file)}\0`);
    hash.update(readFileSync(file));
  }
  for (const file of RESET_CODE) hash.update(`\0${file}\0`).update(readFileSync(join(paths.root, file)));
  return `${TEMPLATE_PREFIX}${hash.digest("hex").slice(0, 16)}`;
}

function supabaseCliVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(paths.root, "node_modules", "supabase", "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "absent";
  }
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const ident = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`${name} is not a database name this module makes`);
  return name;
};

/** 1 when the template exists, else empty (psql -At). */
export const templateExistsSql = (name: string) => `select 1 from pg_database where datname = ${literal(name)}`;

/** The templates on the cluster (psql -At: one name a line), each dropped before a new one is made. */
export const templatesSql = `select datname from pg_database where datname like '${TEMPLATE_PREFIX}%'`;

/** Drops a template: no longer one first, as Postgres drops no template, and no DROP DATABASE in a function. */
export const dropTemplateSql = (name: string) => [`alter database ${ident(name)} is_template false`, `drop database ${ident(name)} with (force)`];

/**
 * Statements, each its own transaction (run on another database than `source`), that copy `source`
 * as it stands into the template `name`: `source` closed to connections and its sessions ended
 * (pg_cron's scheduler with them), the copy made with the privileges granted on `source`, then
 * closed to connections. `reopenSql` must follow whatever happens.
 */
export function snapshotSql(source: string, name: string): string[] {
  return [
    `alter database ${ident(source)} allow_connections false`,
    `select count(pg_terminate_backend(pid, 5000)) from pg_stat_activity where datname = ${literal(source)} and pid <> pg_backend_pid()`,
    `create database ${ident(name)} template ${ident(source)} strategy file_copy`,
    copyDatabaseAclSql(source, name),
    `alter database ${ident(name)} is_template true allow_connections false`,
    `comment on database ${ident(name)} is 'a fresh reset of the postgres database, copied back by the next reset of the same inputs (stack/db-template.ts)'`,
  ];
}

/** Opens `source` to connections again after snapshotSql, whether or not the copy was made. */
export const reopenSql = (source: string) => `alter database ${ident(source)} allow_connections true`;

/** Statements, each its own transaction (run on another database), that replace `target` with a copy of the template. */
export function restoreSql(target: string, name: string): string[] {
  return [
    `drop database if exists ${ident(target)} with (force)`,
    `create database ${ident(target)} template ${ident(name)} strategy file_copy`,
    copyDatabaseAclSql(name, target),
  ];
}

/**
 * Gives `to` the privileges `from` grants on itself (the migrations take TEMP from PUBLIC and the
 * API and component roles): they live in pg_database, outside the database, so a copy starts with
 * Postgres's defaults instead.
 */
function copyDatabaseAclSql(from: string, to: string): string {
  return `do $$
declare
  granted record;
begin
  execute format('revoke all on database %I from public', ${literal(to)});
  for granted in
    select a.grantee, a.privilege_type, a.is_grantable
      from pg_database d, aclexplode(coalesce(d.datacl, acldefault('d', d.datdba))) a
     where d.datname = ${literal(from)}
  loop
    execute format('grant %s on database %I to %s%s', granted.privilege_type, ${literal(to)},
      case when granted.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(granted.grantee)) end,
      case when granted.is_grantable then ' with grant option' else '' end);
  end loop;
end $$`;
}
