/**
 * The next migration, written from what the schema diff found (`npm run schema:diff -- --write
 * <name>`, docs/reference/sql-layout.md): migra's statements for what it compares (tables, columns,
 * constraints, indexes, policies, functions, table grants), then what it does not see: the rows
 * the declared tables hold, the comments of functions and tables, the schedules of mdame.engine_jobs,
 * pgmq queues, and the function privileges every migration ends by resetting
 * (mdame.restrict_function_privileges).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as catalog from "./catalog.ts";

export const MIGRATION_NAME = /^[a-z0-9][a-z0-9_]{0,59}$/;

/** What cannot be written as SQL from the catalogs, each with its reason: a migration for it is written by hand. */
export class UnwritableDifference extends Error {}

/** `YYYYMMDDHHMMSS` in UTC. */
function stamp(date: Date): string {
  return date.toISOString().replace(/\D/g, "").slice(0, 14);
}

function stampDate(version: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(version);
  if (!m) throw new Error(`a migration's version is YYYYMMDDHHMMSS, got ${version}`);
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/**
 * The version of the next migration: now, or an hour after the latest one when that is later
 * (versions must grow; the landed ones are spaced by the hour).
 */
export function nextVersion(migrationsDir: string, now: Date = new Date()): string {
  const versions = readdirSync(migrationsDir).map((f) => /^(\d{14})_/.exec(f)?.[1]).filter((v): v is string => v !== undefined).sort();
  const latest = versions.at(-1);
  if (latest === undefined) return stamp(now);
  const afterLatest = new Date(stampDate(latest).getTime() + 3600_000);
  return stamp(now > afterLatest ? now : afterLatest);
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Rows present in `to` and not in `from`, and the other way round. */
function rowChanges(from: Map<string, string[]>, to: Map<string, string[]>): string[] {
  const lines: string[] = [];
  for (const table of [...new Set([...from.keys(), ...to.keys()])].sort()) {
    const before = new Set(from.get(table) ?? []);
    const after = new Set(to.get(table) ?? []);
    const qualified = `${catalog.SCHEMA}.${table}`;
    for (const row of [...before].filter((r) => !after.has(r))) {
      // The stored JSON holds the stable columns only: a row is the one that contains them.
      lines.push(`delete from ${qualified} t where to_jsonb(t) @> ${literal(row)}::jsonb;`);
    }
    for (const row of [...after].filter((r) => !before.has(r))) {
      const columns = Object.keys(JSON.parse(row) as Record<string, unknown>).map((c) => `"${c.replaceAll('"', '""')}"`).join(", ");
      lines.push(`insert into ${qualified} (${columns}) select ${columns} from jsonb_populate_record(null::${qualified}, ${literal(row)}::jsonb);`);
    }
  }
  return lines;
}

/**
 * Whether the schema's privileges of `to` are those of `from` plus the usage that
 * mdame.restrict_function_privileges(), which ends the migration, grants each role of the declared
 * mdame.component_roles.
 */
function schemaAclFollows(from: catalog.Snapshot, to: catalog.Snapshot): boolean {
  const roles = new Set((to.rows.get("component_roles") ?? []).map((row) => String((JSON.parse(row) as { role?: unknown }).role)));
  const granted = (entry: string) => roles.has(entry.split("=")[0]!) && entry.split("=")[1]!.startsWith("U/");
  const before = new Set(from.schemaAcl.filter((entry) => !granted(entry)));
  const after = to.schemaAcl.filter((entry) => !granted(entry));
  return before.size === after.length && after.every((entry) => before.has(entry));
}

/**
 * The migration that turns the migrations' database (`from`) into the declared one (`to`), given
 * migra's SQL for the objects it compares. Throws UnwritableDifference for a difference the
 * catalogs cannot say how to make (the schema's own privileges, but for the component roles' usage).
 */
export function migrationSql(name: string, migraSql: string, from: catalog.Snapshot, to: catalog.Snapshot, supabaseDir: string): string {
  if (!schemaAclFollows(from, to)) {
    throw new UnwritableDifference(
      `the privileges on schema ${catalog.SCHEMA} differ (migrations ${from.schemaAcl.join(" ") || "(none)"} | declared ${
        to.schemaAcl.join(" ") || "(none)"
      }): grant or revoke them in the migration by hand`,
    );
  }
  const parts: string[] = [
    `-- ${name.replaceAll("_", " ")}: what supabase/schemas declares and the migrations before this one do not`,
    "-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).",
    "",
  ];
  const migra = migraSql.trim();
  if (migra) parts.push(migra, "");

  // Comments migra leaves out; an RPC's says whether it is an internal helper (restrict_function_privileges).
  const comments = [...to.comments].filter(([object, comment]) => comment !== null && from.comments.get(object) !== comment)
    .map(([object, comment]) => `comment on ${object} is ${literal(comment!)};`);
  if (comments.length) parts.push(...comments, "");

  const rows = rowChanges(from.rows, to.rows);
  if (rows.length) parts.push(...rows, "");

  const jobsBefore = new Map(from.cronJobs.map((j) => [j.jobname, j]));
  const jobsAfter = new Map(to.cronJobs.map((j) => [j.jobname, j]));
  const jobsDiffer = [...new Set([...jobsBefore.keys(), ...jobsAfter.keys()])].some((name) =>
    JSON.stringify(jobsBefore.get(name)) !== JSON.stringify(jobsAfter.get(name))
  );
  if (jobsDiffer) {
    for (const gone of [...jobsBefore.keys()].filter((job) => !jobsAfter.has(job)).sort()) parts.push(`select cron.unschedule(${literal(gone)});`);
    // The declared schedules follow mdame.engine_jobs and create or align each job: run them again.
    parts.push(readFileSync(join(supabaseDir, "schemas", catalog.SCHEMA, "schedules.sql"), "utf8").trim(), "");
  }

  for (const queue of to.queues.filter((q) => !from.queues.includes(q))) parts.push(`select pgmq.create(${literal(queue)});`);
  for (const queue of from.queues.filter((q) => !to.queues.includes(q))) parts.push(`select pgmq.drop_queue(${literal(queue)});`);

  parts.push("", "select mdame.restrict_function_privileges();", "");
  return parts.join("\n").replace(/\n{3,}/g, "\n\n");
}
