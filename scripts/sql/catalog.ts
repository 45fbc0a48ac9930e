/**
 * What the catalogs say about schema mdame, in the terms both the declared-schema writer and the
 * schema diff need: definitions as Postgres prints them, privileges, rows the migrations insert,
 * pg_cron jobs and pgmq queues.
 */
import type { Sql } from "postgres";

export const SCHEMA = "mdame";

export interface FunctionDef {
  name: string;
  /** `mdame.name(argument types)`, as regprocedure prints it. */
  signature: string;
  definition: string;
  /** `grantee=privileges/grantor` entries, owner excluded; `=X/…` is PUBLIC. */
  acl: string[];
  comment: string | null;
}

export async function functions(sql: Sql): Promise<FunctionDef[]> {
  const rows = await sql<{ name: string; signature: string; definition: string; acl: string[] | null; comment: string | null }[]>`
    select p.proname as name, p.oid::regprocedure::text as signature, pg_get_functiondef(p.oid) as definition,
           (select array_agg(a::text order by a::text) from unnest(p.proacl) a
             where a::text not like (select rolname from pg_roles where oid = p.proowner) || '=%') as acl,
           obj_description(p.oid, 'pg_proc') as comment
    from pg_proc p
    where p.pronamespace = ${SCHEMA}::regnamespace
    -- A SQL body is checked when created, so an overload written in SQL comes after the others
    -- (it may call them), and overloads otherwise keep their creation order.
    order by p.proname, p.prolang = (select oid from pg_language where lanname = 'sql'), p.oid`;
  return rows.map((r) => ({ ...r, acl: r.acl ?? [] }));
}

export interface ColumnDef {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
  /** `a` (always) or `d` (by default) for an identity column. */
  identity: string;
  generated: string | null;
  comment: string | null;
}

export interface TableDef {
  name: string;
  comment: string | null;
  columns: ColumnDef[];
  /** `constraint <name> <definition>`, primary key and unique first, then checks, then foreign keys. */
  constraints: { name: string; type: string; definition: string; referencedTable: string | null }[];
  /** Indexes that no constraint owns, as pg_get_indexdef prints them. */
  indexes: string[];
  rowSecurity: boolean;
  forceRowSecurity: boolean;
  policies: string[];
  triggers: string[];
  /** grantee -> privilege names, owner excluded. */
  grants: Map<string, string[]>;
}

export async function tables(sql: Sql): Promise<TableDef[]> {
  const rels = await sql<{ oid: number; name: string; comment: string | null; rls: boolean; force: boolean }[]>`
    select c.oid::int as oid, c.relname as name, obj_description(c.oid, 'pg_class') as comment,
           c.relrowsecurity as rls, c.relforcerowsecurity as force
    from pg_class c where c.relnamespace = ${SCHEMA}::regnamespace and c.relkind in ('r', 'p') order by c.relname`;
  const result: TableDef[] = [];
  for (const rel of rels) {
    const columns = await sql<ColumnDef[]>`
      select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as "notNull",
             case when a.attgenerated = '' then pg_get_expr(d.adbin, d.adrelid) end as default,
             a.attidentity::text as identity,
             case when a.attgenerated <> '' then pg_get_expr(d.adbin, d.adrelid) end as generated,
             col_description(a.attrelid, a.attnum) as comment
      from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = ${rel.oid} and a.attnum > 0 and not a.attisdropped order by a.attnum`;
    const constraints = await sql<{ name: string; type: string; definition: string; referencedTable: string | null }[]>`
      select conname as name, contype::text as type, pg_get_constraintdef(oid) as definition,
             case when contype = 'f' then (select relname from pg_class where oid = confrelid)::text end as "referencedTable"
      from pg_constraint where conrelid = ${rel.oid}
      order by case contype when 'p' then 0 when 'u' then 1 when 'x' then 2 when 'c' then 3 else 4 end, conname`;
    const indexes = await sql<{ def: string }[]>`
      select pg_get_indexdef(i.indexrelid) as def from pg_index i
      where i.indrelid = ${rel.oid} and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid and c.conrelid = i.indrelid)
      order by (select relname from pg_class where oid = i.indexrelid)`;
    const policies = await sql<{ def: string }[]>`
      select format('create policy %I on %I.%I as %s for %s to %s%s%s;', policyname, schemaname, tablename, lower(permissive),
                    lower(cmd), array_to_string(roles, ', '),
                    coalesce(' using (' || qual || ')', ''), coalesce(' with check (' || with_check || ')', '')) as def
      from pg_policies where schemaname = ${SCHEMA} and tablename = ${rel.name} order by policyname`;
    const triggers = await sql<{ def: string }[]>`
      select pg_get_triggerdef(oid, true) as def from pg_trigger where tgrelid = ${rel.oid} and not tgisinternal order by tgname`;
    result.push({
      name: rel.name,
      comment: rel.comment,
      columns,
      constraints,
      indexes: indexes.map((i) => i.def),
      rowSecurity: rel.rls,
      forceRowSecurity: rel.force,
      policies: policies.map((p) => p.def),
      triggers: triggers.map((t) => t.def),
      grants: await relationGrants(sql, rel.oid),
    });
  }
  return result;
}

const PRIVILEGE_ORDER = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "USAGE", "EXECUTE"];

/** grantee -> privileges granted on a relation or sequence, the owner's own left out. */
export async function relationGrants(sql: Sql, oid: number): Promise<Map<string, string[]>> {
  const rows = await sql<{ grantee: string; privilege: string }[]>`
    select case when a.grantee = 0 then 'public' else pg_get_userbyid(a.grantee)::text end as grantee, a.privilege_type as privilege
    from pg_class c, aclexplode(c.relacl) a
    where c.oid = ${oid} and a.grantee <> c.relowner`;
  const grants = new Map<string, string[]>();
  for (const row of rows) grants.set(row.grantee, [...(grants.get(row.grantee) ?? []), row.privilege]);
  for (const [grantee, privileges] of grants) grants.set(grantee, privileges.sort((a, b) => PRIVILEGE_ORDER.indexOf(a) - PRIVILEGE_ORDER.indexOf(b)));
  return grants;
}

export interface ViewDef {
  name: string;
  kind: "v" | "m";
  definition: string;
  grants: Map<string, string[]>;
}

export async function views(sql: Sql): Promise<ViewDef[]> {
  const rows = await sql<{ oid: number; name: string; kind: "v" | "m"; definition: string }[]>`
    select c.oid::int as oid, c.relname as name, c.relkind::text as kind, pg_get_viewdef(c.oid, true) as definition
    from pg_class c where c.relnamespace = ${SCHEMA}::regnamespace and c.relkind in ('v', 'm') order by c.relname`;
  return Promise.all(rows.map(async (r) => ({ name: r.name, kind: r.kind, definition: r.definition, grants: await relationGrants(sql, r.oid) })));
}

export interface TypeDef {
  name: string;
  /** A `create type` / `create domain` statement. */
  definition: string;
}

export async function types(sql: Sql): Promise<TypeDef[]> {
  return sql<TypeDef[]>`
    select t.typname as name,
      case t.typtype
        when 'e' then format('create type %I.%I as enum (%s);', ${SCHEMA}::text, t.typname,
          (select string_agg(quote_literal(e.enumlabel), ', ' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid))
        when 'd' then format('create domain %I.%I as %s%s;', ${SCHEMA}::text, t.typname, format_type(t.typbasetype, t.typtypmod),
          coalesce((select string_agg(' constraint ' || quote_ident(c.conname) || ' ' || pg_get_constraintdef(c.oid), '' order by c.conname)
                    from pg_constraint c where c.contypid = t.oid), ''))
        else format('create type %I.%I as (%s);', ${SCHEMA}::text, t.typname,
          (select string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum)
           from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped))
      end as definition
    from pg_type t
    where t.typnamespace = ${SCHEMA}::regnamespace
      and (t.typtype in ('e', 'd') or (t.typtype = 'c' and (select relkind from pg_class where oid = t.typrelid) = 'c'))
    order by t.typname`;
}

/**
 * Rows of every mdame table as JSON objects, key order by column name, ordered by their text:
 * what a fresh build holds is what the migrations insert (settings, stage policies).
 * Columns whose default is volatile (now(), gen_random_uuid(), sequences) are left out: their
 * value depends on when a database was built, not on what it declares.
 */
export async function tableRows(sql: Sql): Promise<Map<string, string[]>> {
  const rows = new Map<string, string[]>();
  for (const table of await tables(sql)) {
    const stable = stableColumns(table);
    const list = stable.map((c) => `'${c}', "${c.replaceAll('"', '""')}"`).join(", ");
    const values = await sql.unsafe<{ row: string }[]>(`select jsonb_build_object(${list})::text as row from ${SCHEMA}."${table.name}" order by 1`);
    if (values.length > 0) rows.set(table.name, values.map((v) => v.row));
  }
  return rows;
}

/** Columns whose stored value says what was inserted, not when (see tableRows). */
export function stableColumns(table: TableDef): string[] {
  return table.columns
    .filter((c) =>
      c.identity === "" && c.generated === null && !(c.default !== null && /\b(now|gen_random_uuid|nextval|clock_timestamp|random)\(/.test(c.default))
    )
    .map((c) => c.name);
}

export interface CronJob {
  jobname: string;
  schedule: string;
  command: string;
  active: boolean;
}

export async function cronJobs(sql: Sql): Promise<CronJob[]> {
  const [present] = await sql<{ n: number }[]>`select count(*)::int as n from pg_extension where extname = 'pg_cron'`;
  if (!present?.n) return [];
  return sql<CronJob[]>`select jobname, schedule, command, active from cron.job where jobname like 'mdame%' order by jobname`;
}

export async function queues(sql: Sql): Promise<string[]> {
  const rows = await sql<{ queue_name: string }[]>`select queue_name from pgmq.meta order by queue_name`;
  return rows.map((r) => r.queue_name);
}

export async function schemaAcl(sql: Sql): Promise<string[]> {
  const [row] = await sql<{ acl: string[] | null }[]>`
    select (select array_agg(a::text order by a::text) from unnest(n.nspacl) a) as acl from pg_namespace n where n.nspname = ${SCHEMA}`;
  return row?.acl ?? [];
}

/** What migra does not compare, read from one database's catalogs (the schema diff's other half). */
export interface Snapshot {
  functionAcl: Map<string, string[]>;
  /** `function <signature>` and `table mdame.<name>` -> its comment (migra compares neither). */
  comments: Map<string, string | null>;
  schemaAcl: string[];
  rows: Map<string, string[]>;
  cronJobs: CronJob[];
  queues: string[];
}
