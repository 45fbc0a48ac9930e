/**
 * Turns catalog definitions (scripts/sql/catalog.ts) into the declared schema's SQL text, and finds
 * the comments the migrations wrote above a statement so the declared files keep their reasons.
 */
import type { FunctionDef, TableDef } from "./catalog.ts";
import { SCHEMA, stableColumns } from "./catalog.ts";

const HEADER_KEYWORDS = new Set([
  "CREATE",
  "OR",
  "REPLACE",
  "FUNCTION",
  "PROCEDURE",
  "RETURNS",
  "SETOF",
  "TABLE",
  "LANGUAGE",
  "IMMUTABLE",
  "STABLE",
  "VOLATILE",
  "STRICT",
  "SECURITY",
  "DEFINER",
  "INVOKER",
  "PARALLEL",
  "SAFE",
  "RESTRICTED",
  "UNSAFE",
  "SET",
  "TO",
  "DEFAULT",
  "NULL",
  "AS",
  "OUT",
  "INOUT",
  "VARIADIC",
  "LEAKPROOF",
  "COST",
  "ROWS",
  "WINDOW",
  "CALLED",
  "ON",
  "INPUT",
  "UNIQUE",
  "INDEX",
  "USING",
  "WHERE",
  "AND",
  "NOT",
  "IS",
  "IN",
  "BEFORE",
  "AFTER",
  "INSTEAD",
  "OF",
  "INSERT",
  "UPDATE",
  "DELETE",
  "TRUNCATE",
  "FOR",
  "EACH",
  "ROW",
  "STATEMENT",
  "EXECUTE",
  "TRIGGER",
  "PRIMARY",
  "KEY",
  "CHECK",
  "FOREIGN",
  "REFERENCES",
  "CASCADE",
  "RESTRICT",
  "ACTION",
  "NO",
  "DEFERRABLE",
  "INITIALLY",
  "DEFERRED",
  "IMMEDIATE",
  "ANY",
  "ARRAY",
  "INCLUDE",
  "NULLS",
  "DISTINCT",
  "FIRST",
  "LAST",
  "ASC",
  "DESC",
  "BETWEEN",
  "LIKE",
  "CASE",
  "WHEN",
  "THEN",
  "ELSE",
  "END",
  "TRUE",
  "FALSE",
  "EXCLUDE",
  "WITH",
  "SIMILAR",
]);

/** Lower-cases SQL keywords outside string literals and quoted identifiers. */
export function lowerKeywords(text: string): string {
  return text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\b[A-Z][A-Z_]*\b/g, (token) => (HEADER_KEYWORDS.has(token) ? token.toLowerCase() : token));
}

/** pg_get_functiondef output with a lower-case header and `$$` quoting where the body allows it. */
export function formatFunction(fn: FunctionDef): string {
  const match = /^([\s\S]*?\n)AS (\$[a-z_]*\$)([\s\S]*)$/.exec(fn.definition.trimEnd());
  if (!match) return `${fn.definition.trimEnd()};`;
  const [, head, quote, rest] = match as unknown as [string, string, string, string];
  const header = lowerKeywords(head!)
    .split("\n")
    .map((line) => line.replace(/^ /, "").replace(/^set (\w+) to /, "set $1 = "))
    .join("\n");
  let body = rest!;
  let delimiter = quote!;
  if (!body.slice(0, -quote!.length).includes("$$") && body.endsWith(quote!)) {
    body = body.slice(0, -quote!.length) + "$$";
    delimiter = "$$";
  }
  return `${header}as ${delimiter}${body};`;
}

function quoteLiteral(value: string | null): string {
  return value === null ? "null" : `'${value.replaceAll("'", "''")}'`;
}

/** create table (columns and constraints), then its comments, indexes, RLS, policies, triggers, grants. */
export function formatTable(table: TableDef, rows: Record<string, string | null>[]): string {
  const q = `${SCHEMA}.${table.name}`;
  const items = table.columns.map((c) => {
    let line = `  ${c.name} ${c.type}`;
    if (c.identity) line += ` generated ${c.identity === "a" ? "always" : "by default"} as identity`;
    if (c.generated) line += ` generated always as (${c.generated}) stored`;
    if (c.notNull && !c.identity) line += " not null";
    if (c.default !== null) line += ` default ${c.default}`;
    return line;
  });
  for (const con of table.constraints) items.push(`  constraint ${con.name} ${lowerKeywords(con.definition)}`);
  const out = [`create table ${q} (\n${items.join(",\n")}\n);`];
  if (table.comment !== null) out.push(`comment on table ${q} is ${quoteLiteral(table.comment)};`);
  for (const c of table.columns) if (c.comment !== null) out.push(`comment on column ${q}.${c.name} is ${quoteLiteral(c.comment)};`);
  if (table.indexes.length) out.push(table.indexes.map((i) => `${lowerKeywords(i).replace(/ using btree /, " ")};`).join("\n"));
  if (table.rowSecurity) out.push(`alter table ${q} enable row level security;`);
  if (table.forceRowSecurity) out.push(`alter table ${q} force row level security;`);
  if (table.policies.length) out.push(table.policies.join("\n"));
  if (table.triggers.length) out.push(table.triggers.map((t) => `${lowerKeywords(t)};`).join("\n"));
  const grants = [...table.grants].map(([grantee, privileges]) => `grant ${privileges.map((p) => p.toLowerCase()).join(", ")} on table ${q} to ${grantee};`);
  if (grants.length) out.push(grants.join("\n"));
  if (rows.length) {
    const columns = stableColumns(table);
    const values = rows.map((row) => `  (${columns.map((c) => quoteLiteral(row[c] ?? null)).join(", ")})`);
    out.push(`insert into ${q} (${columns.join(", ")}) values\n${values.join(",\n")}\non conflict do nothing;`);
  }
  return out.join("\n\n");
}

/**
 * The `--` lines directly above each statement the pattern finds in the migrations, oldest first,
 * each block once: the reasons the migrations gave for the object's current shape.
 */
export function commentsAbove(migrations: { name: string; text: string }[], pattern: RegExp, onlyLast = false): string[] {
  const blocks: string[] = [];
  for (const migration of migrations) {
    const lines = migration.text.split("\n");
    lines.forEach((line, index) => {
      if (!pattern.test(line)) return;
      const block: string[] = [];
      for (let i = index - 1; i >= 0 && /^\s*--/.test(lines[i]!); i--) block.unshift(lines[i]!.replace(/^\s+/, ""));
      if (block.length === 0) return;
      const text = block.join("\n");
      if (!blocks.includes(text)) blocks.push(text);
    });
  }
  return onlyLast ? blocks.slice(-1) : blocks;
}

/** The comment block at the top of an existing file (kept across refreshes), or null. */
export function leadingComment(text: string): string | null {
  const lines = text.split("\n");
  const block: string[] = [];
  for (const line of lines) {
    if (!/^--/.test(line)) break;
    block.push(line);
  }
  return block.length ? block.join("\n") : null;
}
