/**
 * `npm run bench:scale -- --dimensions N`: one engine day of N dimensions through the real stack
 * (edge host, SQL, pgmq, pg_cron, the wake path, the emulators) on a compressed clock, with media
 * workers that answer from pre-rendered clips: it measures the control plane (docs/reference/scale.md). Its
 * last line is
 *
 *   dimensions=N units=U published=P failed=F late_p50_s=.. late_p99_s=.. max_concurrent_runs=..
 *   transitions_per_s=.. edge_cpu_p99_ms=.. edge_cpu_max_ms=.. db_cpu_ms_per_unit=..
 *
 * It runs a stack of its own (.local/bench, the clone's ports plus --port-offset), reset at the
 * start, so the developer's own database is never changed. Exit 0 when every dimension made a
 * unit and none failed or stayed open (a rejected topic is the engine's decision), 1 otherwise or
 * when the run failed, 2 on bad arguments, 3 when interrupted or timed out (the report then covers
 * what was done).
 */
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { DEFAULT_STACK_PORTS } from "../../shared/config/stack-ports.ts";
import { UsageError } from "../script-args.ts";
import { parseScaleArgs, USAGE } from "./scale/args.ts";

let options;
try {
  options = parseScaleArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`bench:scale: ${error.message}\n${USAGE}`);
  process.exit(2);
}

// The bench's own stack: set before any module reads the stack's paths and ports.
const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
for (const [name, fallback] of Object.entries(DEFAULT_STACK_PORTS)) {
  process.env[name] = String(Number(process.env[name] || fallback) + options.portOffset);
}
process.env.MDAME_LOCAL_DIR = join(root, ".local", "bench");
delete process.env.MDAME_PGDATA;

const { runScaleBench } = await import("./scale/run.ts");
runScaleBench(options).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`bench:scale: failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
