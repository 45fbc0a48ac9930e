/**
 * `npm run bench`: runs the demo from a reset and reports its figures: wall time per video, and
 * render time over video duration (from the stage_entered events: time in the render stage,
 * which includes the render job's queue wait). Prints them and writes docs/benchmarks.md.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem, type as osType, release } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { z } from "zod";
import { paths } from "./local/paths.ts";

const Summary = z.object({
  run_id: z.string(),
  wall_s: z.number(),
  videos: z.array(z.object({
    dimension: z.string(),
    duration_s: z.number(),
    stage_seconds: z.record(z.string(), z.number()),
  }).passthrough()),
}).passthrough();

function machine(): string {
  const cpu = cpus()[0]?.model?.trim() ?? "unknown cpu";
  return `${osType()} ${release()}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}, Bun ${process.versions.bun ?? "-"}`;
}

console.log("bench: running the demo from a reset (this makes every video from scratch)");
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
  const render = v.stage_seconds.render ?? NaN;
  return { dimension: v.dimension, duration_s: v.duration_s, render_s: render, ratio: render / v.duration_s, stages: v.stage_seconds };
});
const meanRatio = rows.reduce((a, r) => a + r.ratio, 0) / Math.max(1, rows.length);

const lines = [
  "# Benchmarks",
  "",
  `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine()}.`,
  "Command: `npm run bench` (runs `npm run demo -- --reset`: every video made from scratch, empty caches).",
  "",
  "## Demo: trend to published video",
  "",
  "| figure | value |",
  "|---|---|",
  `| videos | ${n} |`,
  `| demo wall time (reset, stack start, run, summary) | ${wallS.toFixed(1)} s |`,
  `| wall time per video | ${(wallS / Math.max(1, n)).toFixed(1)} s |`,
  `| render time / video duration (mean) | ${meanRatio.toFixed(2)} |`,
  "",
  "Per video (seconds spent in each stage, from the run's events; `render` includes queue wait):",
  "",
  "| dimension | video s | script | safety | plan | media (voice + visuals) | render | publish | render / duration |",
  "|---|---|---|---|---|---|---|---|---|",
  ...rows.map((r) =>
    `| ${r.dimension} | ${r.duration_s.toFixed(1)} | ${fmt(r.stages.script)} | ${fmt(r.stages.safety)} | ${fmt(r.stages.plan)} | ${fmt(r.stages.media)} | ${fmt(r.stages.render)} | ${fmt(r.stages.publish)} | ${r.ratio.toFixed(2)} |`
  ),
  "",
  "The two units run side by side on 2 cores, so one unit's render shares the machine with the other's visuals.",
  "",
];
function fmt(v: number | undefined) {
  return v === undefined ? "-" : v.toFixed(1);
}

writeFileSync(join(paths.root, "docs", "benchmarks.md"), lines.join("\n"));
console.log(lines.join("\n"));
console.log("bench: written to docs/benchmarks.md");
