/**
 * `npm run bench`: first the orchestration benchmark (10,000 stage transitions through the real
 * claim and completion RPCs, 8 consumers, against a raw pgmq baseline), then the render
 * throughput benchmark (one 60-s short: the render against one encode of its finished frames and
 * a naive multi-pass pipeline, scripts/bench/render-throughput.ts), then the demo from a reset with an empty asset store (no cached scene clips,
 * voices or renders) and reports its figures: wall time per video, and render time over video
 * duration (FFmpeg's own time, reported by the render-runner). Prints them and writes
 * docs/reports/benchmarks.md.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, release, totalmem, type as osType } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { z } from "zod";
import { runQueueTransitionBenchmark } from "./bench/queue-transitions.ts";
import { keptBlocks } from "./bench/doc-blocks.ts";
import { runRenderThroughputBenchmark } from "./bench/render-throughput.ts";
import * as db from "../stack/db.ts";
import { paths } from "../stack/paths.ts";
import { supervisorPid } from "../stack/stack-control.ts";
import { BENCHMARKS_DOC } from "./docs/doc-paths.ts";

const Summary = z.object({
  run_id: z.string(),
  wall_s: z.number(),
  videos: z.array(
    z.object({
      dimension: z.string(),
      duration_s: z.number(),
      render_s: z.number().nullable(),
      stage_seconds: z.record(z.string(), z.number()),
    }).passthrough(),
  ),
}).passthrough();

function machine(): string {
  const cpu = cpus()[0]?.model?.trim() ?? "unknown cpu";
  const node = spawnSync("node", ["--version"], { encoding: "utf8" }).stdout?.trim() || "unknown";
  const ffmpeg = /ffmpeg version (\S+)/.exec(spawnSync("ffmpeg", ["-version"], { encoding: "utf8" }).stdout ?? "")?.[1] ?? "unknown";
  return `${osType()} ${release()}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${node}, Bun ${
    process.versions.bun ?? "-"
  }, FFmpeg ${ffmpeg}`;
}

if (supervisorPid() !== null) {
  console.error("bench: a local stack is running; stop it first (the benchmarks reset the database)");
  process.exit(1);
}
if (!db.isInitialised()) await db.init(console.log);
await db.ensureRunning(console.log);
console.log("bench: orchestration transitions (10,000 jobs, 8 consumers)");
const queue = await runQueueTransitionBenchmark({ jobs: 10_000, consumers: 8, log: (line) => console.log(`bench: ${line}`) });

console.log("bench: render throughput (one 60-s, 8-scene short, three ways)");
const render = await runRenderThroughputBenchmark({ log: (line) => console.log(`bench: ${line}`) });

console.log("bench: emptying the asset store and running the demo from a reset (every asset made from scratch)");
// Assets live in the Storage emulator's files (the stack is stopped, so nothing holds them).
rmSync(join(paths.emulators, "storage"), { recursive: true, force: true });
const started = Date.now();
const result = spawnSync(process.execPath, [join(paths.root, "scripts", "demo.ts"), "--reset"], {
  cwd: paths.root,
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, LOG_LEVEL: "warn" },
});
if (result.status !== 0) {
  console.error("bench: the demo failed; no figures written");
  process.exit(1);
}
const wallS = (Date.now() - started) / 1000;
const summary = Summary.parse(JSON.parse(readFileSync(join(paths.root, "out", "demo-summary.json"), "utf8")));
const n = summary.videos.length;

const rows = summary.videos.map((v) => {
  if (v.render_s === null) throw new Error(`${v.dimension}: the render was reused, not measured`);
  return { dimension: v.dimension, duration_s: v.duration_s, render_s: v.render_s, ratio: v.render_s / v.duration_s, stages: v.stage_seconds };
});
const meanRatio = rows.reduce((a, r) => a + r.ratio, 0) / Math.max(1, rows.length);

const lines = [
  "# Benchmarks",
  "",
  `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine()}.`,
  "Command: `npm run bench` (empties the Storage emulator's objects under `.local/emulators/storage`, then runs `npm run demo -- --reset`: every clip, voice and render made from scratch).",
  "",
  "## Demo: trend to published video",
  "",
  "| figure | value |",
  "|---|---|",
  `| videos | ${n} |`,
  `| demo wall time (reset, stack start, run, summary) | ${wallS.toFixed(1)} s |`,
  `| wall time per video | ${(wallS / Math.max(1, n)).toFixed(1)} s |`,
  `| render time / video duration (mean; FFmpeg time measured by the render-runner) | ${meanRatio.toFixed(2)} |`,
  "",
  "Per video: FFmpeg render time, and seconds each unit spent in each stage (from the run's events;",
  "the render stage includes waiting for the render-runner, which takes RENDER_CONCURRENCY videos at once, two by default):",
  "",
  "| dimension | video s | render s | render / duration | script | safety | plan | media (voice + visuals) | render stage | publish |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...rows.map((r) =>
    `| ${r.dimension} | ${r.duration_s.toFixed(1)} | ${r.render_s.toFixed(1)} | ${r.ratio.toFixed(2)} | ${fmt(r.stages.script)} | ${fmt(r.stages.safety)} | ${
      fmt(r.stages.plan)
    } | ${fmt(r.stages.media)} | ${fmt(r.stages.render)} | ${fmt(r.stages.publish)} |`
  ),
  "",
  "All components share the 2 cores: a render runs alongside the other unit's scene generation.",
  "",
  ...queue.markdown,
  "",
  ...render.markdown,
  "",
];
function fmt(v: number | undefined) {
  return v === undefined ? "-" : v.toFixed(1);
}

// Sections other commands write (`npm run eval:alignment -- --write`) are kept as they are.
const benchmarksFile = BENCHMARKS_DOC;
for (const block of keptBlocks(readFileSync(benchmarksFile, "utf8"))) lines.push(block, "");
writeFileSync(benchmarksFile, lines.join("\n"));
console.log(lines.join("\n"));
console.log("bench: written to docs/reports/benchmarks.md");
