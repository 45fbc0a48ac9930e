/**
 * How fast the ops dashboard's pages are, against whatever stack FUNCTIONS_URL and SERVICE_ROLE_KEY
 * name (else the local stack's .local/stack.env): the dashboard is served in this process on a free
 * port, signed in once in headless Chromium, then each page is loaded N times two ways:
 *   - server: the dashboard's whole HTML answer fetched directly (its API calls included);
 *   - browser: a full navigation in Chromium (Navigation Timing: first byte and load event).
 * Prints the median of each, per page, as a table. Nothing is written or changed.
 *
 *   bun scripts/bench/dashboard.ts [--runs 7] [--video <publication id>] [--write] [--data "<what the stack holds>"]
 *
 * --write puts the table in docs/reports/benchmarks.md (a block of its own, which `npm run bench` keeps),
 * with --data describing the data it was measured on.
 *
 * CHROMIUM_PATH names the browser (default /usr/bin/chromium).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import process from "node:process";
import puppeteer from "puppeteer-core";
import { resolveApiConfig } from "../../cli/config.ts";
import { createDashboardApi } from "../../cli/dashboard/ops-client.ts";
import { startDashboard } from "../../cli/dashboard/server.ts";
import { paths } from "../../stack/paths.ts";
import { replaceBlock } from "./doc-blocks.ts";
import { BENCHMARKS_DOC } from "../docs/doc-paths.ts";

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

const runs = Number(flag("runs") ?? 7);
if (!Number.isInteger(runs) || runs < 1 || runs > 1000) {
  console.error("--runs takes a whole number from 1 to 1000");
  process.exit(2);
}

/** The median of a non-empty list. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const config = resolveApiConfig(process.env, paths.stackEnv);
const api = createDashboardApi(config);
const dashboard = startDashboard({ api, port: 0 });
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(dashboard.signInUrl);
  const session = (await browser.cookies()).find((c) => c.name === "mdame_session");
  if (!session) throw new Error("the sign-in set no session cookie");
  const cookie = `mdame_session=${session.value}`;

  let video = flag("video") ?? null;
  if (video === null) video = (await api.ops.videos(1).catch(() => ({ videos: [] }))).videos[0]?.id ?? null;
  const pages = ["/", "/queues", "/dead-letters", "/videos", ...(video ? [`/videos/${video}`] : []), "/quota", "/schedules", "/analytics"];

  console.log(`dashboard bench: ${config.baseUrl}, ${runs} loads of each page (after one warm-up)`);
  const rows: string[][] = [];
  for (const path of pages) {
    const url = `${dashboard.url}${path.slice(1)}`;
    const server: number[] = [];
    const firstByte: number[] = [];
    const load: number[] = [];
    let bytes = 0;
    let status = 0;
    for (let i = 0; i <= runs; i++) {
      const t0 = performance.now();
      const response = await fetch(url, { headers: { cookie, accept: "text/html" } });
      const body = await response.text();
      const elapsed = performance.now() - t0;
      status = response.status;
      bytes = body.length;
      await page.goto(url, { waitUntil: "load" });
      const timing = await page.evaluate(() => {
        // Navigation Timing, read in the page (the Bun side's types know no "navigation" entry).
        const entries = (performance.getEntriesByType as (type: string) => unknown[])("navigation");
        const nav = entries[0] as { responseStart: number; startTime: number; loadEventEnd: number };
        return { firstByte: nav.responseStart - nav.startTime, load: nav.loadEventEnd - nav.startTime };
      });
      if (i === 0) continue;
      server.push(elapsed);
      firstByte.push(timing.firstByte);
      load.push(timing.load);
    }
    const ms = (values: number[]) => median(values).toFixed(1);
    rows.push([path.startsWith("/videos/") ? "/videos/:id" : path, String(status), (bytes / 1024).toFixed(1), ms(server), ms(firstByte), ms(load)]);
  }
  const headers = ["page", "status", "KiB", "server ms", "browser TTFB ms", "browser load ms"];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const table = [line(headers), `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...rows.map(line)];
  const legend =
    "medians; server = the dashboard's HTML answer with its API calls, fetched directly; browser = Chromium's Navigation Timing of a full page load";
  for (const row of table) console.log(row);
  console.log(legend);
  if (process.argv.includes("--write")) {
    const data = flag("data");
    const block = [
      "<!-- dashboard:start -->",
      "## Dashboard page loads",
      "",
      `Measured ${
        new Date().toISOString().slice(0, 16).replace("T", " ")
      } UTC on ${cpus().length} cores with \`bun scripts/bench/dashboard.ts --runs ${runs}\`` +
      ` against ${config.baseUrl}${data ? `, holding ${data}` : ""}; ${legend}.`,
      "",
      ...table,
      "<!-- dashboard:end -->",
      "",
    ].join("\n");
    const file = BENCHMARKS_DOC;
    writeFileSync(file, replaceBlock(readFileSync(file, "utf8"), "dashboard", block));
    console.log("dashboard bench: written to docs/reports/benchmarks.md");
  }
} finally {
  await browser.close();
  await dashboard.stop();
}
