/**
 * `npm run bench:housekeeping-keep-up -- [--days 30] [--units-per-day 1000] [--retention-days 7] [--write]`:
 * whether the scheduled housekeeping passes keep up with what the days bring.
 *
 * On a scratch database built from supabase/migrations on the local cluster (dropped afterwards; the
 * stack's own database is not touched), each simulated day inserts, spread over the day, the rows
 * that many units leave in the tables housekeeping ages out: 27 events, 20 LLM-cache entries, 10
 * step results and 8 archived stage tasks a unit. These are synthetic rows of those shapes, not
 * pipeline runs: the bench measures the retention passes, not the pipeline. Then it runs the passes
 * the `mdame-housekeeping` schedule makes in a day (read from mdame.engine_jobs: every 10 minutes,
 * 144), each at its own time on the engine clock, and prints the rows each table holds at the
 * day's end. `--retention-days` sets the row kinds' retention (llm_cache_days, events_days,
 * step_results_days, pgmq_archive_days) so the simulated days pass the window and reach the steady
 * state; the tables must then level off at about window x arrivals a day. --write records the
 * figures in docs/reports/benchmarks.md (a block of its own).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import process from "node:process";
import { parseArgs } from "node:util";
import { ensureRunning } from "../../stack/db.ts";
import { buildDatabase, dropDatabase, migrationFiles, scratchSql } from "../sql/scratch-databases.ts";
import { BENCHMARKS_DOC } from "../docs/doc-paths.ts";
import { replaceBlock } from "./doc-blocks.ts";

const DATABASE = "mdame_bench_keep_up";
/** What one unit leaves in each table housekeeping ages out (docs/reference/retention.md). */
const PER_UNIT = { events: 27, llm_cache: 20, step_results: 10, pgmq_archives: 8 } as const;
type Kind = keyof typeof PER_UNIT;
const KINDS = Object.keys(PER_UNIT) as Kind[];
const DAY_S = 86_400;

/** Passes a day of a `*\/N * * * *` (or `* * * * *`) schedule; any other form is refused. */
export function passesPerDay(schedule: string): number {
  const every = /^(\*|\*\/(\d{1,2})) \* \* \* \*$/.exec(schedule.trim());
  if (!every) throw new Error(`the housekeeping schedule ${schedule} is not every N minutes: the bench cannot say how many passes a day it makes`);
  const minutes = every[2] === undefined ? 1 : Number(every[2]);
  if (minutes < 1 || 60 % minutes !== 0) throw new Error(`the housekeeping schedule ${schedule} does not divide the hour`);
  return (24 * 60) / minutes;
}

interface DayFigures {
  day: number;
  rows: Record<Kind, number>;
  deleted: number;
  passMsMedian: number;
  passMsMax: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      days: { type: "string", default: "30" },
      "units-per-day": { type: "string", default: "1000" },
      "retention-days": { type: "string", default: "7" },
      write: { type: "boolean", default: false },
    },
    strict: true,
  });
  const whole = (name: string, min: number, max: number): number => {
    const n = Number(values[name as keyof typeof values]);
    if (!Number.isInteger(n) || n < min || n > max) {
      console.error(`bench:housekeeping-keep-up: --${name} takes a whole number from ${min} to ${max}`);
      process.exit(2);
    }
    return n;
  };
  const days = whole("days", 1, 365);
  const unitsPerDay = whole("units-per-day", 1, 100_000);
  const retentionDays = whole("retention-days", 1, 3650);
  if (days <= retentionDays + 1) {
    console.error(
      `bench:housekeeping-keep-up: --days (${days}) must be more than --retention-days + 1 (${retentionDays + 1}), so the tables can reach their steady state`,
    );
    process.exit(2);
  }

  await ensureRunning(() => {});
  console.log(`building ${DATABASE} from supabase/migrations`);
  await buildDatabase(DATABASE, migrationFiles());
  const sql = scratchSql(DATABASE);
  const figures: DayFigures[] = [];
  let schedule = "";
  let passes = 0;
  const startedAt = performance.now();
  try {
    await sql`insert into mdame.settings (key, value) values ('env', 'dev') on conflict (key) do update set value = excluded.value`;
    for (const setting of ["llm_cache_days", "events_days", "step_results_days", "pgmq_archive_days"]) {
      await sql`select mdame.set_housekeeping_setting(${setting}, ${retentionDays})`;
    }
    const [job] = await sql<{ schedule: string }[]>`select schedule from mdame.engine_jobs where name = 'mdame-housekeeping'`;
    schedule = job!.schedule;
    passes = passesPerDay(schedule);
    const [start] = await sql<{ at: Date }[]>`select date_trunc('day', now()) + interval '1 day' as at`;
    const day0 = start!.at.getTime();
    const at = (seconds: number) => new Date(day0 + seconds * 1000);
    let archivedId = 0;

    for (let day = 0; day < days; day++) {
      const from = at(day * DAY_S);
      const count = (kind: Kind) => unitsPerDay * PER_UNIT[kind];
      // The day's arrivals, spread evenly over it.
      await sql`insert into mdame.events (kind, detail, created_at)
                select 'stage_done', '{}'::jsonb, ${from}::timestamptz + (i * ${DAY_S / count("events")}::float8) * interval '1 second'
                  from generate_series(0, ${count("events") - 1}) i`;
      await sql`insert into mdame.llm_cache (cache_key, model, response, created_at)
                select encode(sha256((${day} || ':' || i)::text::bytea), 'hex'), 'bench', '{}'::jsonb,
                       ${from}::timestamptz + (i * ${DAY_S / count("llm_cache")}::float8) * interval '1 second'
                  from generate_series(0, ${count("llm_cache") - 1}) i`;
      await sql`insert into mdame.step_results (step_token, result, created_at)
                select 'step:bench-' || ${day} || '-' || i, '{}'::jsonb, ${from}::timestamptz + (i * ${
        DAY_S / count("step_results")
      }::float8) * interval '1 second'
                  from generate_series(0, ${count("step_results") - 1}) i`;
      await sql`insert into pgmq.a_stage_tasks (msg_id, enqueued_at, archived_at, vt, message)
                select ${archivedId} + i, t, t, t, '{}'::jsonb
                  from generate_series(0, ${count("pgmq_archives") - 1}) i,
                       lateral (select ${from}::timestamptz + (i * ${DAY_S / count("pgmq_archives")}::float8) * interval '1 second' as t) x`;
      archivedId += count("pgmq_archives");

      // The day's scheduled passes, each at its time on the engine clock.
      let deleted = 0;
      const times: number[] = [];
      for (let pass = 1; pass <= passes; pass++) {
        await sql`select mdame.set_engine_clock(${at(day * DAY_S + (pass * DAY_S) / passes)}::timestamptz - now())`;
        const t = performance.now();
        const [row] = await sql<{ deleted: number }[]>`select coalesce(sum(deleted), 0)::int as deleted from mdame.housekeeping(false)`;
        times.push(performance.now() - t);
        deleted += row!.deleted;
      }
      const [rows] = await sql<Record<Kind, number>[]>`
        select (select count(*) from mdame.events)::int as events, (select count(*) from mdame.llm_cache)::int as llm_cache,
               (select count(*) from mdame.step_results)::int as step_results, (select count(*) from pgmq.a_stage_tasks)::int as pgmq_archives`;
      times.sort((a, b) => a - b);
      const figure = { day: day + 1, rows: rows!, deleted, passMsMedian: times[Math.floor(times.length / 2)]!, passMsMax: times.at(-1)! };
      figures.push(figure);
      console.log(
        `day ${String(figure.day).padStart(3)}: ${KINDS.map((k) => `${k} ${figure.rows[k]}`).join(", ")}; deleted ${deleted} in ${passes} passes (median ${
          figure.passMsMedian.toFixed(1)
        } ms, max ${figure.passMsMax.toFixed(1)} ms)`,
      );
    }
  } finally {
    await sql.end({ timeout: 2 });
    await dropDatabase(DATABASE);
  }

  // Steady state: once the window is full, each table holds about window x arrivals a day (the
  // day being aged out goes pass by pass), never more than a day's arrivals above that.
  const steady = figures.filter((f) => f.day > retentionDays + 1);
  const verdicts = KINDS.map((kind) => {
    const ceiling = (retentionDays + 1) * unitsPerDay * PER_UNIT[kind];
    const highest = Math.max(...steady.map((f) => f.rows[kind]));
    const lowest = Math.min(...steady.map((f) => f.rows[kind]));
    return { kind, highest, lowest, ceiling, level: steady.length > 0 && highest <= ceiling };
  });
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(
    `\nafter day ${retentionDays + 1} (${steady.length} days): ${
      verdicts.map((v) => `${v.kind} ${v.lowest}-${v.highest} rows (ceiling ${v.ceiling}) ${v.level ? "level" : "GROWING"}`).join("; ")
    }`,
  );
  console.log(`${days} days x ${passes} passes in ${seconds.toFixed(1)} s`);
  const kept = steady.length > 0 && verdicts.every((v) => v.level);
  console.log(kept ? "housekeeping keeps up" : "housekeeping falls behind");

  if (values.write) {
    const machine = `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"})`;
    const shown = figures.filter((f) => f.day === 1 || f.day % 5 === 0 || f.day === days);
    const block = [
      "<!-- housekeeping-keep-up:start -->",
      "## Housekeeping keeps up",
      "",
      `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine} with \`npm run bench:housekeeping-keep-up -- ${
        process.argv.slice(2).filter((a) => a !== "--write").join(" ")
      }\`: ${unitsPerDay} units a day for ${days} simulated days, retention ${retentionDays} days for the row kinds, the \`${schedule}\` schedule's ${passes} passes a day. Synthetic rows of the tables' shapes (per unit: ${
        KINDS.map((k) => `${PER_UNIT[k]} ${k}`).join(", ")
      }), on a scratch database; no pipeline runs. Rows each table holds at the day's end:`,
      "",
      `| day | ${KINDS.join(" | ")} | deleted that day | pass ms (median / max) |`,
      `|---:|${KINDS.map(() => "---:").join("|")}|---:|---|`,
      ...shown.map((f) =>
        `| ${f.day} | ${KINDS.map((k) => f.rows[k]).join(" | ")} | ${f.deleted} | ${f.passMsMedian.toFixed(1)} / ${f.passMsMax.toFixed(1)} |`
      ),
      "",
      `After day ${retentionDays + 1}: ${verdicts.map((v) => `${v.kind} between ${v.lowest} and ${v.highest} rows (at most ${v.ceiling})`).join("; ")}: ${
        kept ? "every table levels off" : "a table keeps growing"
      }.`,
      "<!-- housekeeping-keep-up:end -->",
      "",
    ].join("\n");
    writeFileSync(BENCHMARKS_DOC, replaceBlock(readFileSync(BENCHMARKS_DOC, "utf8"), "housekeeping-keep-up", block));
    console.log("bench:housekeeping-keep-up: written to docs/reports/benchmarks.md");
  }
  if (!kept) process.exitCode = 1;
}

if (import.meta.main) await main();
