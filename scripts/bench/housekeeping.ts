/**
 * `npm run bench:housekeeping -- [--env-file F] [--age-days N] [--vacuum] [--write]`: the database's
 * and Storage's sizes before and after housekeeping, against whatever stack database is there
 * (its configuration from .local/stack.env, or --env-file; the engine's own RPCs through DB_URL, the
 * Storage backend the stack configures). Prints the sizes by kind, runs housekeeping pass after pass
 * (each bounded by batch_size) until nothing more goes, drains the Storage deletion outbox, and
 * prints the sizes again.
 *
 * --age-days N moves the engine clock N days further for the passes (and back after), so data made
 * N days ago on the clock qualifies as if that time had passed; without it the data is taken as it
 * is (a soak leaves its clock at its last simulated day). --vacuum runs VACUUM FULL on the tables
 * housekeeping deletes from, as the superuser (the freed pages otherwise stay in the files for
 * Postgres to reuse, so the database's size on disk only shrinks then). --write records the figures
 * in docs/reports/benchmarks.md (a block of its own, which `npm run bench` keeps).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { createPipelineDeps } from "../../functions/pipeline/deps.ts";
import { drainStorageDeletions } from "../../functions/pipeline/housekeeping/storage-deletions.ts";
import { measureStorageUsage } from "../../functions/pipeline/housekeeping/storage-usage.ts";
import type { StorageUsage } from "../../shared/contracts/housekeeping.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql } from "../../shared/db/client.ts";
import { runHousekeeping } from "../../shared/db/rpc/housekeeping.ts";
import { paths } from "../../stack/paths.ts";
import { readStackEnv } from "../../stack/stack-env.ts";
import { replaceBlock } from "./doc-blocks.ts";
import { BENCHMARKS_DOC } from "../docs/doc-paths.ts";

const MAX_PASSES = 10_000;
const VACUUMED = ["mdame.scene_cache", "mdame.work_units", "mdame.llm_cache", "mdame.events", "mdame.step_results"];

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    "env-file": { type: "string", default: paths.stackEnv },
    "age-days": { type: "string", default: "0" },
    vacuum: { type: "boolean", default: false },
    write: { type: "boolean", default: false },
  },
  strict: true,
});
const ageDays = Number(values["age-days"]);
if (!Number.isInteger(ageDays) || ageDays < 0 || ageDays > 3650) {
  console.error("bench:housekeeping: --age-days takes a whole number of days from 0 to 3650");
  process.exit(2);
}

const env: Record<string, string | undefined> = { ...readStackEnv(values["env-file"]), LOG_LEVEL: "warn" };
const deps = createPipelineDeps(env);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

function describe(label: string, usage: StorageUsage): void {
  console.log(
    `${label}: database ${mib(usage.database.database_bytes)} MiB; storage ${mib(usage.storage.total_bytes)} MiB in ${usage.storage.total_objects} objects`,
  );
  for (const p of usage.storage.prefixes) console.log(`  storage ${p.prefix}/: ${p.objects} objects, ${mib(p.bytes)} MiB`);
  for (const t of usage.database.tables) console.log(`  table ${t.name}: ${mib(t.total_bytes)} MiB`);
}

try {
  const before = await measureStorageUsage(deps, { tables: 12 });
  describe("before", before);

  const [clock] = await deps.sql`select (mdame.engine_now() - now())::text as offset`;
  const offset = String(clock!.offset);
  if (ageDays > 0) await deps.sql`select mdame.set_engine_clock(${offset}::interval + make_interval(days => ${ageDays}))`;
  const deleted = new Map<string, number>();
  let passes = 0;
  let housekeepingMs = 0;
  let drainMs = 0;
  let drained = { removed: 0, failed: 0 };
  const startedAt = performance.now();
  try {
    for (; passes < MAX_PASSES; passes++) {
      const kinds = await runHousekeeping(deps.sql, false);
      for (const k of kinds) deleted.set(k.kind, (deleted.get(k.kind) ?? 0) + k.deleted);
      if (kinds.every((k) => k.deleted === 0)) break;
    }
    housekeepingMs = performance.now() - startedAt;
    const drainStartedAt = performance.now();
    drained = await drainStorageDeletions(deps, { budgetMs: 600_000 });
    drainMs = performance.now() - drainStartedAt;
  } finally {
    if (ageDays > 0) await deps.sql`select mdame.set_engine_clock(${offset}::interval)`;
  }

  if (values.vacuum) {
    const admin = createSql(env.ADMIN_DB_URL ?? LOCAL_DB_URL, { max: 1, application: "mdame-bench-housekeeping" });
    try {
      const archives = await admin`select 'pgmq.' || quote_ident('a_' || queue_name) as name from pgmq.meta order by queue_name`;
      for (const table of [...VACUUMED, ...archives.map((a) => String(a.name))]) await admin.unsafe(`vacuum (full, analyze) ${table}`);
    } finally {
      await admin.end({ timeout: 2 });
    }
  }

  const after = await measureStorageUsage(deps, { tables: 12 });
  describe("after", after);
  console.log(
    `passes: ${passes + 1}; deleted ${
      [...deleted].map(([k, n]) => `${k} ${n}`).join(", ")
    }; storage objects removed ${drained.removed}, failed ${drained.failed}`,
  );
  console.log(`housekeeping ${(housekeepingMs / 1000).toFixed(2)} s, outbox drain ${(drainMs / 1000).toFixed(2)} s`);

  if (values.write) {
    const prefixes = [...new Set([...before.storage.prefixes, ...after.storage.prefixes].map((p) => p.prefix))];
    const size = (usage: StorageUsage, prefix: string) => usage.storage.prefixes.find((p) => p.prefix === prefix) ?? { objects: 0, bytes: 0 };
    const block = [
      "<!-- housekeeping:start -->",
      "## Housekeeping: sizes before and after",
      "",
      `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC with \`npm run bench:housekeeping -- ${
        process.argv.slice(2).filter((a) => a !== "--write").join(" ")
      }\`${
        ageDays > 0 ? ` (engine clock moved ${ageDays} days on for the passes)` : ""
      }; default retention settings unless the database holds others (docs/reference/retention.md).`,
      `Database size ${
        values.vacuum
          ? "after VACUUM FULL of the tables housekeeping deletes from"
          : "on disk (Postgres keeps freed pages for reuse: without --vacuum it does not shrink)"
      }.`,
      "",
      "| figure | before | after |",
      "|---|---|---|",
      `| database | ${mib(before.database.database_bytes)} MiB | ${mib(after.database.database_bytes)} MiB |`,
      `| storage (listed) | ${mib(before.storage.total_bytes)} MiB, ${before.storage.total_objects} objects | ${
        mib(after.storage.total_bytes)
      } MiB, ${after.storage.total_objects} objects |`,
      ...prefixes.map((p) =>
        `| storage ${p}/ | ${mib(size(before, p).bytes)} MiB, ${size(before, p).objects} objects | ${mib(size(after, p).bytes)} MiB, ${
          size(after, p).objects
        } objects |`
      ),
      "",
      `Deleted: ${[...deleted].map(([k, n]) => `${k} ${n}`).join(", ")} in ${passes + 1} passes (${
        (housekeepingMs / 1000).toFixed(2)
      } s); ${drained.removed} Storage objects removed (${(drainMs / 1000).toFixed(2)} s), ${drained.failed} removals failed.`,
      "<!-- housekeeping:end -->",
      "",
    ].join("\n");
    const file = BENCHMARKS_DOC;
    writeFileSync(file, replaceBlock(readFileSync(file, "utf8"), "housekeeping", block));
    console.log("bench:housekeeping: written to docs/reports/benchmarks.md");
  }
} finally {
  await deps.sql.end({ timeout: 2 });
}
