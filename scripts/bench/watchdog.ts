/**
 * `npm run bench:watchdog -- [--dimensions 1000] [--runs 20] [--write]`: what one run of the
 * watchdog (mdame.watchdog_at, every minute under pg_cron; docs/reference/alerts.md) costs the
 * database at the design point of a thousand dimensions. In one transaction on the clone's local
 * cluster, rolled back at the end (the database is left as it was): `--dimensions` active dimensions
 * (copies of a seeded one, each with its own id, all due to start), then `--runs` watchdog runs
 * timed by the server (clock_timestamp around each call) in two phases: `due` (none started yet, the
 * minute the day's production starts) and `started` (after the scheduled trigger started them all,
 * the rest of the day). Prints the median, p95 and maximum in milliseconds of each; --write records
 * them in docs/reports/benchmarks.md (a block of its own).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import process from "node:process";
import { parseArgs } from "node:util";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql } from "../../shared/db/client.ts";
import { quantile } from "../../shared/stats.ts";
import { ensureRunning } from "../../stack/db.ts";
import { BENCHMARKS_DOC } from "../docs/doc-paths.ts";
import { replaceBlock } from "./doc-blocks.ts";

/** Rolls the bench's transaction back once the figures are in. */
class RollBack extends Error {}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      dimensions: { type: "string", default: "1000" },
      runs: { type: "string", default: "20" },
      write: { type: "boolean", default: false },
    },
  });
  const dimensions = Number(values.dimensions);
  const runs = Number(values.runs);
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 10_000) {
    console.error("--dimensions takes a whole number from 1 to 10000");
    return 2;
  }
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000) {
    console.error("--runs takes a whole number from 1 to 1000");
    return 2;
  }
  await ensureRunning(() => {});
  const sql = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-bench-watchdog" });
  const phases: { name: "due" | "started"; timings: number[]; failing: string[] }[] = [];
  try {
    await sql.begin(async (tx) => {
      const [seeded] = await tx<{ id: string }[]>`select id from mdame.dimensions order by id limit 1`;
      if (!seeded) throw new Error("the local database has no dimension to copy: run npm run db:reset first");
      // Created a day ago, so every copy is due to start today and the runs check has work to do.
      await tx`
        insert into mdame.dimensions
        select (jsonb_populate_record(null::mdame.dimensions, to_jsonb(d) || jsonb_build_object(
                  'id', 'bench-watchdog-' || g, 'display_name', 'Watchdog bench ' || g, 'active', true,
                  'created_at', now() - interval '1 day'))).*
          from mdame.dimensions d, generate_series(1, ${dimensions}::integer) g
         where d.id = ${seeded.id}`;
      console.log(`watchdog bench: ${dimensions} dimension(s) added in a transaction that is rolled back; ${runs} run(s) a phase`);
      const phase = async (name: "due" | "started") => {
        const timings: number[] = [];
        let failing: string[] = [];
        for (let i = 1; i <= runs; i++) {
          const [row] = await tx<{ ms: number; result: { failing: string[] } }[]>`
            select extract(epoch from clock_timestamp() - s.t0) * 1000 as ms, s.result
              from (select clock_timestamp() as t0) t0, lateral (select t0.t0, mdame.watchdog_at(clock_timestamp()) as result) s`;
          timings.push(Number(row!.ms));
          failing = row!.result.failing;
        }
        phases.push({ name, timings, failing });
      };
      // The minute the day's production starts: every dimension due and none started yet.
      await phase("due");
      // The rest of the day: the scheduled trigger has started them all.
      await tx`select count(*) from mdame.trigger_due_runs(now())`;
      await phase("started");
      throw new RollBack();
    });
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
  } finally {
    await sql.end({ timeout: 2 });
  }
  const lines = phases.map(({ name, timings }) => {
    const fmt = (q: number) => quantile(timings, q).toFixed(1);
    return `phase=${name} dimensions=${dimensions} runs=${runs} median_ms=${fmt(0.5)} p95_ms=${fmt(0.95)} max_ms=${Math.max(...timings).toFixed(1)}`;
  });
  for (const p of phases) console.log(`checks failing in the last run of phase ${p.name}: ${JSON.stringify(p.failing)}`);
  for (const line of lines) console.log(line);
  if (values.write) {
    const date = new Date().toISOString().slice(0, 10);
    const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"})`;
    const block = [
      "<!-- watchdog:start -->",
      "## The watchdog's run",
      "",
      `\`npm run bench:watchdog -- --dimensions ${dimensions} --runs ${runs}\`, ${date}, ${machine}: one \`mdame.watchdog_at\` (pg_cron runs it`,
      "every minute) timed by the server, in a transaction rolled back after, with that many active dimensions: `due`, all due to start",
      "and none started (the minute the day's production starts), then `started`, after the scheduled trigger started them (the rest of the day).",
      "",
      ...lines.map((line) => `- \`${line}\``),
      "<!-- watchdog:end -->",
      "",
    ].join("\n");
    writeFileSync(BENCHMARKS_DOC, replaceBlock(readFileSync(BENCHMARKS_DOC, "utf8"), "watchdog", block));
    console.log("watchdog bench: written to docs/reports/benchmarks.md");
  }
  return 0;
}

if (import.meta.main) {
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(`bench:watchdog: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
