/**
 * Which pgTAP files reach pgmq: the `pgmq-1.4` layer of `npm test` runs these again on pgmq 1.4.4's
 * layout (docs/reference/pgmq.md); a file that reaches no pgmq function runs the same statements
 * on either layout, so it runs once.
 *
 * Read from the declared SQL (supabase/schemas/mdame/functions, a file per function): a function
 * reaches pgmq when its body names the `pgmq` schema, runs dynamic SQL (`execute`: what it runs
 * cannot be read here, so it counts), or calls a function that reaches pgmq. A test file reaches
 * pgmq when it names the `pgmq` schema, calls such a function, or names a table whose trigger runs
 * one (supabase/schemas, `create trigger ... on <table> ... execute function <function>()`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The names a SQL text calls (`name(`, `mdame.name (`): each word followed by an opening bracket. */
const calledNames = (sql: string): Set<string> => new Set([...sql.matchAll(/\b(\w+)\s*\(/g)].map((m) => m[1]!));
const namesPgmq = (sql: string) => /\bpgmq\s*\./.test(sql);

/** The functions (by name) whose bodies reach pgmq, given every function's body. */
export function functionsReachingPgmq(bodies: ReadonlyMap<string, string>): Set<string> {
  const calls = new Map([...bodies].map(([name, body]) => [name, calledNames(body)]));
  const reach = new Set([...bodies].filter(([, body]) => namesPgmq(body) || /\bexecute\b/i.test(body)).map(([name]) => name));
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, callees] of calls) {
      if (reach.has(name) || ![...callees].some((callee) => reach.has(callee))) continue;
      reach.add(name);
      grew = true;
    }
  }
  return reach;
}

/** The tables whose triggers run a function of `reach`, from the declared SQL. */
export function tablesTriggeringPgmq(schemaSql: string, reach: ReadonlySet<string>): Set<string> {
  const tables = new Set<string>();
  for (const m of schemaSql.matchAll(/create\s+trigger\s[\s\S]*?\son\s+(?:\w+\.)?(\w+)[\s\S]*?execute\s+(?:function|procedure)\s+(?:\w+\.)?(\w+)\s*\(/gi)) {
    if (reach.has(m[2]!)) tables.add(m[1]!);
  }
  return tables;
}

/** Whether a test's SQL reaches pgmq: it names the schema, calls a function of `reach` or names a table of `tables`. */
export function testReachesPgmq(sql: string, reach: ReadonlySet<string>, tables: ReadonlySet<string> = new Set()): boolean {
  if (namesPgmq(sql) || [...calledNames(sql)].some((name) => reach.has(name))) return true;
  const words = new Set(sql.match(/\w+/g) ?? []);
  return [...tables].some((table) => words.has(table));
}

/** The pgTAP files of `files` (paths under `root`) that reach pgmq, by the SQL declared under `root`. */
export function pgTapFilesReachingPgmq(root: string, files: readonly string[]): string[] {
  const schemas = join(root, "supabase", "schemas");
  const declared = readdirSync(schemas, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".sql")).map((f) => join(schemas, f));
  const functionsDir = join(schemas, "mdame", "functions");
  const bodies = new Map(declared.filter((f) => dirname(f) === functionsDir).map((f) => [basename(f, ".sql"), readFileSync(f, "utf8")]));
  const reach = functionsReachingPgmq(bodies);
  const tables = tablesTriggeringPgmq(declared.map((f) => readFileSync(f, "utf8")).join("\n"), reach);
  return files.filter((file) => testReachesPgmq(readFileSync(join(root, file), "utf8"), reach, tables));
}
