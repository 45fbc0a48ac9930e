/**
 * `npm run bench:reset -- [--runs 5] [--write]`: what a database reset costs through the Supabase CLI
 * and as a copy of the reset template (stack/db-template.ts, docs/reference/supabase-wiring.md).
 *
 * Resets the clone's own local database (as `npm run db:reset` does) `--runs` times each way, in
 * turn, by `bun stack/db-reset.ts` with MDAME_RESET_TEMPLATE=0 and =1, and prints per way the median
 * and the range of: wall seconds, the CPU seconds of the reset's own processes (the CLI, psql, pg_ctl:
 * their user and system time as the kernel accounts them when they end), and the CPU seconds of the
 * whole machine meanwhile (/proc/stat, the server's backends included; run it on an idle machine).
 * The template is built before the first timed copy. --write records the figures in
 * docs/reports/benchmarks.md (a block of its own).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import process from "node:process";
import { parseArgs } from "node:util";
import { ensureRunning } from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { supervisorPid } from "../../stack/stack-control.ts";
import { quantile } from "../../shared/stats.ts";
import { BENCHMARKS_DOC } from "../docs/doc-paths.ts";
import { replaceBlock } from "./doc-blocks.ts";

interface Sample {
  wall: number;
  own: number;
  machine: number;
}

/** Busy CPU seconds of the whole machine so far (every core, idle and iowait left out). */
function machineBusySeconds(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, _idle, _iowait, irq, softirq, steal] = fields;
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / 100;
}

/** One reset by `bun stack/db-reset.ts`, timed by /usr/bin/time (the process and what it waited for). */
function timedReset(template: boolean): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const busyBefore = machineBusySeconds();
    const started = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "TIME %U %S", process.execPath, "stack/db-reset.ts"], {
      cwd: paths.root,
      env: { ...process.env, MDAME_RESET_TEMPLATE: template ? "1" : "0" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const wall = (performance.now() - started) / 1000;
      const machine = machineBusySeconds() - busyBefore;
      const times = /TIME ([\d.]+) ([\d.]+)/.exec(stderr);
      if (code !== 0 || !times) return reject(new Error(`the reset failed (exit ${code}):\n${stderr}`));
      resolve({ wall, own: Number(times[1]) + Number(times[2]), machine });
    });
  });
}

const figure = (values: number[]) => `${quantile(values, 0.5).toFixed(2)} (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { runs: { type: "string", default: "5" }, write: { type: "boolean", default: false } },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
    console.error("--runs takes a whole number from 1 to 50");
    process.exit(2);
  }
  if (supervisorPid() !== null) {
    console.error("the local stack is running: stop it first (the template's copy restarts the server)");
    process.exit(2);
  }
  await ensureRunning(() => {});
  console.log(`reset bench: ${runs} run(s) each way, in turn; the template is built first`);
  await timedReset(true);
  const samples: Record<"cli" | "template", Sample[]> = { cli: [], template: [] };
  for (let i = 1; i <= runs; i++) {
    for (const way of ["cli", "template"] as const) {
      const sample = await timedReset(way === "template");
      samples[way].push(sample);
      console.log(
        `  run ${i} ${way.padEnd(8)} wall ${sample.wall.toFixed(2)} s, own CPU ${sample.own.toFixed(2)} s, machine CPU ${sample.machine.toFixed(2)} s`,
      );
    }
  }
  const rows = (["cli", "template"] as const).map((way) => {
    const s = samples[way];
    const name = way === "cli" ? "through the Supabase CLI" : "copy of the reset template";
    return `| ${name} | ${figure(s.map((x) => x.wall))} | ${figure(s.map((x) => x.own))} | ${figure(s.map((x) => x.machine))} |`;
  });
  const date = new Date().toISOString().slice(0, 10);
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"})`;
  const block = [
    "<!-- reset-template:start -->",
    "## Database reset: the CLI and the reset template",
    "",
    `\`npm run bench:reset -- --runs ${runs}\`, ${date}, ${machine}: \`bun stack/db-reset.ts\` on the local cluster, the two ways in turn;`,
    "median (min-max) seconds. Own CPU: the reset's processes (the CLI, psql, pg_ctl); machine CPU: every core meanwhile, the server's backends included.",
    "",
    "| reset | wall | own CPU | machine CPU |",
    "|---|---|---|---|",
    ...rows,
    "<!-- reset-template:end -->",
    "",
  ].join("\n");
  console.log(`\n${block}`);
  if (values.write) {
    writeFileSync(BENCHMARKS_DOC, replaceBlock(readFileSync(BENCHMARKS_DOC, "utf8"), "reset-template", block));
    console.log("reset bench: written to docs/reports/benchmarks.md");
  }
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
