/**
 * The weekly report end to end against the real Postgres: fixture work of one week, the Sunday
 * queue (mdame.queue_weekly_reports), the render-runner's weekly reports pass building every report
 * (row ready, alert raised in the outbox, charts in Storage), `mdame report` as a real process
 * through the operator API, and a second queue for the same week adding nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import { buildPendingWeeklyReports } from "../../shared/reports/weekly-build.ts";
import { startWeeklyReports } from "../../render-runner/weekly-reports.ts";
import { WeeklyReport } from "../../shared/contracts/weekly-report.ts";
import { CHART_PNG_SCALE } from "../../shared/reports/chart-png.ts";
import { renderWeeklyChartSvg } from "../../shared/reports/weekly-charts.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();
const HOSTILE_TITLE = "Best ](https://evil.example) ![img](https://evil.example/x.png)\n# not a heading";

const RETENTION = [{ ratio: 0, watch_ratio: 1 }, { ratio: 0.5, watch_ratio: 0.7 }, { ratio: 1, watch_ratio: 0.4 }];

let deps: PipelineDeps;
let app: ReturnType<typeof createPipelineApp>;
let server: ReturnType<typeof Bun.serve>;
let baseUrl: string;
let serviceRoleKey: string;
let storageDir: string;
let outDir: string;

/** One week of tech-explained's work (Monday 2026-11-16 to Sunday 2026-11-22, UTC). */
async function seedWeek() {
  const [run] = await admin`insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values ('weekly-report-test', 'dev', '2026-11-16', 'manual') returning id`;
  const [account] = await admin`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle)
    values ('tech-explained', 'youtube', '@tech-weekly') returning id`;
  const unit = async (key: string, title: string, stages: [string, string][], error: string | null = null) => {
    const [row] = await admin`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script, error)
      values (${run!.id}, 'tech-explained', ${key}, ${key}, '{"title": "t"}', ${stages.at(-1)![0]},
              ${admin.json({ title, narration: "n", description: "d", hashtags: ["#t"] })}, ${error}) returning id`;
    for (const [stage, at] of stages) {
      await admin`insert into mdame.events (run_id, unit_id, stage, kind, detail, created_at)
        values (${run!.id}, ${row!.id}, ${stage}, 'stage_entered', ${admin.json(stage === stages.at(-1)![0] && error ? { error } : {})}, ${at}::timestamptz)`;
    }
    return row!.id as string;
  };
  const published = await unit("u1", HOSTILE_TITLE, [
    ["script", "2026-11-17 10:00Z"],
    ["safety", "2026-11-17 10:01Z"],
    ["plan", "2026-11-17 10:03Z"],
    ["media", "2026-11-17 10:05Z"],
    ["render", "2026-11-17 10:15Z"],
    ["publish", "2026-11-17 10:20Z"],
    ["published", "2026-11-17 10:21Z"],
  ]);
  await unit("u2", "rejected one", [["script", "2026-11-18 09:00Z"], ["rejected", "2026-11-18 09:02Z"]], "hook audit failed: weak");
  await unit(
    "u3",
    "failed one",
    [["script", "2026-11-19 09:00Z"], ["render", "2026-11-19 09:30Z"], ["failed", "2026-11-19 10:00Z"]],
    "render: ffmpeg exited 1",
  );
  const [pub] = await admin`insert into mdame.publications (unit_id, account_id, platform, status, external_id, published_at)
    values (${published}, ${account!.id}, 'youtube', 'published', 'vid123', '2026-11-17 10:21Z') returning id`;
  await admin`insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
      average_view_duration_s, average_view_percentage, likes, retention)
    values (${pub!.id}, 3, '2026-11-20 06:00Z', '2026-11-17', '2026-11-20', 1200, 800, 24.5, 61.2, 90, ${admin.json(RETENTION)})`;
  await admin`insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, status, created_at)
    values ('default', ${account!.id}, ${pub!.id}, 'videos.insert', 'uploads', 1, '2026-11-17', 'settled', '2026-11-17 10:20Z')`;
  await admin`insert into mdame.events (kind, detail, created_at) values
    ('cache_lookup', '{"cache": "llm", "dimension_id": "tech-explained", "hit": true}', '2026-11-17 10:00Z'),
    ('cache_lookup', '{"cache": "llm", "dimension_id": "tech-explained", "hit": false}', '2026-11-18 09:00Z')`;
}

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  storageDir = await mkdtemp(join(tmpdir(), "mdame-report-storage-"));
  outDir = await mkdtemp(join(tmpdir(), "mdame-report-out-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/functions/v1/")) return new Response("not found", { status: 404 });
      url.pathname = url.pathname.slice("/functions/v1".length);
      return app.fetch(new Request(url.href, request));
    },
  });
  baseUrl = `http://127.0.0.1:${server.port}/functions/v1`;
  const env: Record<string, string> = {
    ...localStackEnv(),
    FUNCTIONS_URL: baseUrl,
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storageDir,
    LOG_LEVEL: "warn",
  };
  serviceRoleKey = env.SERVICE_ROLE_KEY;
  deps = createPipelineDeps(env);
  app = createPipelineApp(deps);
  await seedWeek();
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await deps?.sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  await rm(storageDir, { recursive: true, force: true });
  await rm(outDir, { recursive: true, force: true });
}, 60_000);

async function mdame(args: string[]) {
  const child = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), ...args], {
    cwd: paths.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: baseUrl, SERVICE_ROLE_KEY: serviceRoleKey },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** ffprobe's answer for the report's charts: a PNG of the SVG's size times the scale. */
async function chartProbe(report: WeeklyReport): Promise<string> {
  const [, width, height] = /^<svg[^>]*\swidth="(\d+)" height="(\d+)"/.exec(await renderWeeklyChartSvg(report))!;
  return `png,${Math.round(Number(width) * CHART_PNG_SCALE)},${Math.round(Number(height) * CHART_PNG_SCALE)}`;
}

function probePng(file: string): string {
  const probe = spawnSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file], {
    encoding: "utf8",
  });
  return probe.status === 0 ? probe.stdout.trim() : `ffprobe failed: ${probe.stderr}`;
}

describe("weekly report", () => {
  test("queue -> the render-runner's pass: every active dimension's report is ready, its alert raised, its charts in Storage", async () => {
    const [queued] = await admin`select mdame.queue_weekly_reports('2026-11-22 21:00Z') as added`;
    expect(queued!.added).toBe(2);

    // The render-runner's passes (render-runner/weekly-reports.ts): the first runs at once, and
    // stop() waits for it.
    const passes = startWeeklyReports({ sql: deps.sql, store: deps.store, logger: deps.logger }, 60_000);
    await passes.stop();

    const rows = await admin`select dimension_id, week_start::text as week_start, status, attempts, chart_key, markdown, report, alert_id
      from mdame.weekly_reports order by dimension_id`;
    expect(rows.map((r) => `${r.dimension_id} ${r.week_start} ${r.status}`)).toEqual(["sains-singkat 2026-11-16 ready", "tech-explained 2026-11-16 ready"]);
    const tech = rows.find((r) => r.dimension_id === "tech-explained")!;
    const report = WeeklyReport.parse(tech.report);
    expect(report.outcomes).toEqual({
      published: 1,
      rejected: 1,
      failed: 1,
      rejected_by_reason: [{ reason: "hook audit failed", count: 1 }],
      failed_by_stage: [{ stage: "render", count: 1 }],
    });
    expect(report.cache.llm).toEqual({ lookups: 2, hits: 1, hit_rate: 0.5 });
    expect(report.quota.youtube).toEqual([{ bucket: "uploads", used: 1, calls: 1 }]);
    expect(report.videos.best_engaged?.url).toBe("https://www.youtube.com/shorts/vid123");
    expect(report.videos.each.map((v) => [v.platform, v.views, v.engaged_views])).toEqual([["youtube", 1200, 800]]);
    expect(report.videos.retention_curves).toEqual({ best: RETENTION, worst: RETENTION });
    expect(tech.markdown).toContain("# Weekly report: Tech Explained");
    expect(tech.markdown).not.toContain("](https://evil.example)");

    const alerts =
      await admin`select id, kind, dimension_id, dedupe_key, summary, photo_key, status from mdame.alerts where kind = 'weekly_report' order by dimension_id`;
    expect(alerts.map((a) => a.dedupe_key)).toEqual(["weekly_report:sains-singkat:2026-11-16", "weekly_report:tech-explained:2026-11-16"]);
    const alert = alerts.find((a) => a.dimension_id === "tech-explained")!;
    expect(alert.id).toBe(tech.alert_id);
    expect(alert.summary).toBe(tech.markdown);
    expect(alert.photo_key).toBe(tech.chart_key);
    // Delivered by the same tick when a chat answers (tests/integration/alerts.test.ts follows it to the chat).
    expect(["pending", "sent"]).toContain(alert.status);

    expect(tech.chart_key).toMatch(/^reports\/weekly\/tech-explained\/2026-11-16-[0-9a-f]{16}\.png$/);
    expect(await deps.store.exists(tech.chart_key)).toBe(true);
    const local = join(outDir, "stored.png");
    await deps.store.getFile(tech.chart_key, local);
    expect(probePng(local)).toBe(await chartProbe(report));
  }, 120_000);

  test("a second queue for the same week adds nothing, and the next pass builds nothing", async () => {
    const [again] = await admin`select mdame.queue_weekly_reports('2026-11-22 22:00Z') as added`;
    expect(again!.added).toBe(0);
    expect(await buildPendingWeeklyReports(deps)).toEqual({ built: 0, failed: 0 });
    const [counts] = await admin`select (select count(*)::int from mdame.weekly_reports) as reports,
      (select count(*)::int from mdame.alerts where kind = 'weekly_report') as alerts,
      (select sum(occurrences)::int from mdame.alerts where kind = 'weekly_report') as occurrences`;
    expect(counts).toEqual({ reports: 2, alerts: 2, occurrences: 2 });
  }, 120_000);

  test("mdame report prints the week's Markdown and writes the chart", async () => {
    const chart = join(outDir, "week.png");
    const result = await mdame(["report", "--week", "2026-11-20", "--dimension", "tech-explained", "--chart", chart]);
    expect(result.stderr).toContain(`chart of tech-explained written to ${chart}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("# Weekly report: Tech Explained (tech\\-explained)");
    expect(result.stdout).toContain("Week 2026-11-16 to 2026-11-22 (UTC)");
    expect(result.stdout).toContain("- Published: 1");
    expect(result.stdout).toContain("| LLM | 1 / 2 | 50.0 % |");
    expect(result.stdout).toContain("- Most engaged views: [Best \\]\\(https\\:");
    expect((await stat(chart)).size).toBeGreaterThan(1000);
    const [shown] = (JSON.parse((await mdame(["report", "--week", "2026-11-20", "--dimension", "tech-explained", "--json"])).stdout) as {
      reports: { report: WeeklyReport }[];
    }).reports;
    expect(probePng(chart)).toBe(await chartProbe(WeeklyReport.parse(shown!.report)));

    const svgFile = join(outDir, "week.svg");
    const svg = await mdame(["report", "--week", "2026-11-20", "--dimension", "tech-explained", "--chart", svgFile]);
    expect(svg.code).toBe(0);
    const drawn = await readFile(svgFile, "utf8");
    expect(drawn.startsWith("<svg")).toBe(true);
    expect(drawn).toContain("Outcomes per day");
    expect(drawn).toContain("no spend recorded");

    const all = await mdame(["report", "--week", "2026-11-16"]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("# Weekly report: Sains Singkat");
    expect(all.stdout).toContain("# Weekly report: Tech Explained");

    const json = await mdame(["report", "--week", "2026-11-22", "--dimension", "tech-explained", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).reports[0].report.outcomes.published).toBe(1);
  }, 120_000);

  test("a bad date is a 400 naming the week; an unknown dimension a 404", async () => {
    const headers = { authorization: `Bearer ${serviceRoleKey}` };
    const bad = await app.request("/pipeline/reports/weekly?week=2026-02-30", { headers });
    expect(bad.status).toBe(400);
    const body = await bad.json() as { issues: { path: string; message: string }[] };
    expect(JSON.stringify(body.issues)).toContain("week");
    expect(JSON.stringify(body.issues)).toContain("not a calendar date");
    // Weeks reaching before year 1 or past 9999 are refused by the contract, before the database.
    for (const week of ["0000-01-01", "9999-12-31", "9999-12-29"]) {
      const out = await app.request(`/pipeline/reports/weekly?week=${week}`, { headers });
      expect({ week, status: out.status }).toEqual({ week, status: 400 });
      expect(JSON.stringify(((await out.json()) as { issues: unknown[] }).issues)).toContain("week");
    }
    const firstWeek = await app.request("/pipeline/reports/weekly?week=0001-01-03", { headers });
    expect(firstWeek.status).toBe(200);
    const missing = await app.request("/pipeline/reports/weekly", { headers });
    expect(missing.status).toBe(400);
    const unknown = await app.request("/pipeline/reports/weekly?week=2026-11-16&dimension=no-such-one", { headers });
    expect(unknown.status).toBe(404);
    const cli = await mdame(["report", "--week", "yesterday"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("--week takes a date YYYY-MM-DD");
    const stored = await readFile(join(outDir, "week.png"));
    expect(stored.subarray(1, 4).toString()).toBe("PNG");
  }, 60_000);

  test("a build that fails is retried after its backoff and still makes one report", async () => {
    const [queued] = await admin`select mdame.queue_weekly_reports('2026-11-29 21:00Z') as added`;
    expect(queued!.added).toBe(2);
    const brokenStore = { ...deps.store, backend: "broken", putFile: () => Promise.reject(new Error("storage unavailable")) };
    expect(await buildPendingWeeklyReports({ ...deps, store: brokenStore })).toEqual({ built: 0, failed: 2 });
    const failed = await admin`select status, attempts, last_error from mdame.weekly_reports where week_start = '2026-11-23'`;
    expect(failed.map((r) => `${r.status} ${r.attempts} ${r.last_error}`)).toEqual(["pending 1 storage unavailable", "pending 1 storage unavailable"]);
    expect(await buildPendingWeeklyReports(deps)).toEqual({ built: 0, failed: 0 });

    await admin`select mdame.set_engine_clock(interval '2 minutes')`;
    expect(await buildPendingWeeklyReports(deps)).toEqual({ built: 2, failed: 0 });
    const [after] = await admin`select count(*) filter (where status = 'ready')::int as ready, count(*)::int as reports,
        (select count(*)::int from mdame.alerts where dedupe_key like 'weekly_report:%:2026-11-23') as alerts
      from mdame.weekly_reports where week_start = '2026-11-23'`;
    expect(after).toEqual({ ready: 2, reports: 2, alerts: 2 });
  }, 60_000);
});
