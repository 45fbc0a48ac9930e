/**
 * Where the weekly charts can be drawn, against the hosted Edge limits (20 MB per function, 2 s of
 * CPU and 256 MB of memory per request), which decided that the render-runner draws the alert's
 * (docs/reference/weekly-report.md):
 *   - size: vega and vega-lite bundled alone (shared/reports/weekly-charts.ts), resvg's JS and the
 *     two files read at run time (resvg's WebAssembly module, the font), beside the `pipeline`
 *     function's bundle as `npm run deploy:check` makes it;
 *   - CPU and memory: a fresh Deno process per round (a cold Edge worker) loads the chart modules,
 *     compiles and draws a full week's charts (20 videos, two 100-point retention curves, seven days
 *     of spend) as SVG, then rasterises the PNG (resvg called as shared/reports/chart-png.ts calls
 *     it, the files read by path: Deno does not import them as files); then the same again, warm. CPU time is the process's
 *     user + system time (process.cpuUsage), as the edge host counts it; memory is its resident set.
 *
 *   bun scripts/bench/weekly-charts.ts [--rounds 5] [--write]
 *
 * Prints the figures with the machine and date; --write puts them in docs/reports/benchmarks.md (a
 * block of its own).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import type { WeeklyReport } from "../../shared/contracts/weekly-report.ts";

/** CPU time of this process so far, in ms. */
function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** The largest report the charts draw: every panel full. */
function fullWeek(): WeeklyReport {
  const video = (i: number) => ({
    publication_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    platform: i % 3 === 0 ? "tiktok" : "youtube",
    title: `Video number ${i} with a title long enough to be shortened`,
    url: null,
    window_days: 7,
    views: 10_000 - i * 400,
    engaged_views: i % 3 === 0 ? null : 7_000 - i * 300,
    average_view_duration_s: 30,
    average_view_percentage: 60 - i,
    likes: 100,
    comments: null,
    shares: null,
  });
  const curve = (slope: number) => Array.from({ length: 100 }, (_, i) => ({ ratio: i / 99, watch_ratio: Math.max(0, 1 - slope * (i / 99)) }));
  const best = { ...video(1), platform: "youtube" as const };
  return {
    dimension_id: "bench",
    display_name: "Bench",
    time_zone: "UTC",
    week_start: "2026-11-16",
    week_end: "2026-11-22",
    generated_at: "2026-11-22T21:00:00.000Z",
    outcomes: { published: 21, rejected: 7, failed: 7, rejected_by_reason: [], failed_by_stage: [] },
    topics_rejected: [],
    reviews: { approved: 0, rejected: 0, expired: 0, rejections: [] },
    daily: Array.from({ length: 7 }, (_, i) => ({ date: `2026-11-${16 + i}`, published: 3, rejected: 1, failed: 1 })),
    stage_latency: [],
    cache: { scenes: { lookups: 0, hits: 0, hit_rate: null }, llm: { lookups: 0, hits: 0, hit_rate: null }, tts: { lookups: 0, hits: 0, hit_rate: null } },
    quota: { youtube: [], tiktok: [] },
    spend: { usd: 4.2, usd_per_published_video: 0.2, by_provider: [], daily: SPEND },
    videos: {
      count: 20,
      best_engaged: best,
      worst_engaged: { ...video(19), platform: "youtube" },
      best_retention: best,
      worst_retention: { ...video(20), platform: "youtube" },
      by_platform: [],
      each: Array.from({ length: 20 }, (_, i) => video(i + 1)).map((v) => ({
        publication_id: v.publication_id,
        platform: v.platform as "youtube" | "tiktok",
        title: v.title,
        views: v.views,
        engaged_views: v.engaged_views,
      })),
      retention_curves: { best: curve(0.3), worst: curve(0.9) },
    },
  } as WeeklyReport;
}

const SPEND = Array.from({ length: 7 }, (_, i) => ({ date: `2026-11-${16 + i}`, usd: 0.5 + i * 0.1 }));

/** Resident memory of this process, in MB. */
const rssMb = () => process.memoryUsage().rss / 1_048_576;

/** One round in this (fresh) process: CPU ms of each step, cold then warm, and resident MB after each. */
async function round(): Promise<Record<string, number>> {
  const rss0 = rssMb();
  const t0 = cpuMs();
  const { CHART_FONT, renderWeeklyChartSvg } = await import("../../shared/reports/weekly-charts.ts");
  const { CHART_PNG_SCALE } = await import("../../shared/reports/chart-png-scale.ts");
  const { initWasm, Resvg } = await import("@resvg/resvg-wasm");
  // chart-png.ts as Deno can run it: Deno does not import files `with { type: "file" }`, so the
  // WebAssembly module and the font are read by path; the rasterisation is the same call.
  let font: Uint8Array | null = null;
  const chartPng = async (svg: string) => {
    if (font === null) {
      await initWasm(readFileSync(createRequire(import.meta.url).resolve("@resvg/resvg-wasm/index_bg.wasm")));
      font = new Uint8Array(readFileSync(new URL("../../shared/reports/fonts/DejaVuSans.ttf", import.meta.url)));
    }
    const resvg = new Resvg(svg, {
      fitTo: { mode: "zoom", value: CHART_PNG_SCALE },
      font: { fontBuffers: [font], defaultFontFamily: CHART_FONT, sansSerifFamily: CHART_FONT },
    });
    const png = resvg.render().asPng();
    resvg.free();
    return png;
  };
  const t1 = cpuMs();
  const report = fullWeek();
  const svg = await renderWeeklyChartSvg(report);
  const t2 = cpuMs();
  const rssSvg = rssMb();
  const png = await chartPng(svg);
  const t3 = cpuMs();
  const rssPng = rssMb();
  const warmSvg = await renderWeeklyChartSvg(report);
  const t4 = cpuMs();
  await chartPng(warmSvg);
  const t5 = cpuMs();
  return {
    load: t1 - t0,
    svg: t2 - t1,
    png: t3 - t2,
    cold: t3 - t0,
    warm_svg: t4 - t3,
    warm_png: t5 - t4,
    warm: t5 - t3,
    png_bytes: png.length,
    mb_svg: rssSvg - rss0,
    mb_png: rssPng - rssSvg,
    mb_all: rssMb() - rss0,
  };
}

if (process.argv.includes("--child")) {
  console.log(JSON.stringify(await round()));
  process.exit(0);
}

const { paths } = await import("../../stack/paths.ts");
const { bundleFunction, FUNCTION_SIZE_LIMIT_BYTES, listFunctions } = await import("../deploy/edge-functions.ts");
const { replaceBlock } = await import("./doc-blocks.ts");
const { BENCHMARKS_DOC } = await import("../docs/doc-paths.ts");

const roundsFlag = process.argv.indexOf("--rounds");
const rounds = roundsFlag === -1 ? 5 : Number(process.argv[roundsFlag + 1]);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) {
  console.error("--rounds takes a whole number from 1 to 50");
  process.exit(2);
}

const root = paths.root;
const deno = join(root, "node_modules", ".bin", "deno");
const out = join(root, "dist", "bench");
const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

const pipeline = listFunctions(join(root, "functions")).find((fn) => fn.name === "pipeline")!;
const pipelineBytes = await bundleFunction(pipeline, root, join(out, "pipeline.js"));
const chartsBytes = await bundleFunction({ name: "charts", entrypoint: join(root, "shared", "reports", "weekly-charts.ts") }, root, join(out, "charts.js"));
const resvgDir = dirname(createRequire(import.meta.url).resolve("@resvg/resvg-wasm/index_bg.wasm"));
const runtimeFiles = [
  { file: "node_modules/@resvg/resvg-wasm/index.mjs (resvg's JS)", bytes: statSync(join(resvgDir, "index.mjs")).size },
  { file: "node_modules/@resvg/resvg-wasm/index_bg.wasm (read at run time)", bytes: statSync(join(resvgDir, "index_bg.wasm")).size },
  { file: "shared/reports/fonts/DejaVuSans.ttf (read at run time)", bytes: statSync(join(root, "shared", "reports", "fonts", "DejaVuSans.ttf")).size },
];
const totalBytes = pipelineBytes + chartsBytes + runtimeFiles.reduce((sum, f) => sum + f.bytes, 0);

const results: Record<string, number>[] = [];
for (let i = 0; i < rounds; i++) {
  const child = Bun.spawnSync([deno, "run", "-A", "--config", join(root, "deno.json"), join(root, "scripts", "bench", "weekly-charts.ts"), "--child"], {
    cwd: root,
    stderr: "inherit",
  });
  if (child.exitCode !== 0) throw new Error(`round ${i + 1} failed (exit ${child.exitCode})`);
  results.push(JSON.parse(child.stdout.toString().trim().split("\n").at(-1)!));
}
const median = (key: string) => {
  const sorted = results.map((r) => r[key]!).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const range = (key: string) =>
  `${median(key).toFixed(0)} (${Math.min(...results.map((r) => r[key]!)).toFixed(0)}-${Math.max(...results.map((r) => r[key]!)).toFixed(0)})`;

const denoVersion = Bun.spawnSync([deno, "--version"]).stdout.toString().split("\n")[0];
const machine = `${process.platform} ${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${denoVersion}`;
const when = new Date().toISOString().slice(0, 16).replace("T", " ");
const lines = [
  `Measured ${when} UTC with \`bun scripts/bench/weekly-charts.ts --rounds ${rounds}\` on ${machine}.`,
  "",
  "| size | bytes |",
  "|---|---:|",
  `| \`pipeline\` bundle today (deno bundle, as deploy:check; no chart code) | ${mb(pipelineBytes)} |`,
  `| vega and vega-lite (shared/reports/weekly-charts.ts bundled alone) | ${mb(chartsBytes)} |`,
  ...runtimeFiles.map((f) => `| ${f.file} | ${mb(f.bytes)} |`),
  `| all of it in one function, against the ${mb(FUNCTION_SIZE_LIMIT_BYTES)} limit | ${mb(totalBytes)} (${
    ((totalBytes / FUNCTION_SIZE_LIMIT_BYTES) * 100).toFixed(0)
  } %) |`,
  "",
  `A full week's charts (${
    results[0]!.png_bytes
  } bytes of PNG), median (min-max) of ${rounds} fresh Deno processes: CPU ms against 2,000 ms a request, and resident MB added:`,
  "",
  "| step | cold CPU ms | warm CPU ms | MB added (cold) |",
  "|---|---:|---:|---:|",
  `| load vega, vega-lite and resvg's JS | ${range("load")} | – | – |`,
  `| compile and draw the SVG (vega) | ${range("svg")} | ${range("warm_svg")} | ${range("mb_svg")} |`,
  `| rasterise the PNG (resvg; cold: its WebAssembly module and the font) | ${range("png")} | ${range("warm_png")} | ${range("mb_png")} |`,
  `| all | ${range("cold")} | ${range("warm")} | ${range("mb_all")} |`,
  "",
  "Size and CPU would fit the Edge; memory does not: an edge-host worker holds about 120 MB once it has loaded the functions " +
  "(docs/reference/supabase-wiring.md), and in the local edge host (which enforces 256 MB) a tick that built the reports " +
  "ended at 226 MB after one report and passed 256 MB (546) on the second. So the charts are drawn in Bun processes: the " +
  "render-runner for the alert (render-runner/weekly-reports.ts), the CLI for `mdame report --chart`, the dashboard for its analytics page.",
];
for (const line of lines) console.log(line);
if (process.argv.includes("--write")) {
  const block = ["<!-- weekly-charts:start -->", "## Weekly charts: where they can be drawn", "", ...lines, "<!-- weekly-charts:end -->", ""].join("\n");
  writeFileSync(BENCHMARKS_DOC, replaceBlock(readFileSync(BENCHMARKS_DOC, "utf8"), "weekly-charts", block));
  console.log("weekly charts bench: written to docs/reports/benchmarks.md");
}
