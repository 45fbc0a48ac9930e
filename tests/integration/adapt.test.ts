/**
 * The adaptive engine against the real Postgres: the pipeline API served on a free port, `mdame`
 * spawned as a real process. Twenty published videos of tech-explained, half made at the short arm
 * of a 50 s target and retaining clearly better, are the evidence; a dry run shows the move and
 * changes nothing, an apply records it and the next run uses it, a revert gives 50 s back, a pin
 * holds it, the weekly tick decides once, and bad input is a 4xx.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import process from "node:process";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type PipelineServer, servePipeline } from "../fixtures/pipeline-server.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();
let pipeline: PipelineServer;
let serviceRoleKey: string;

async function seedEvidence(): Promise<void> {
  await admin`update mdame.dimensions set adapt = jsonb_set(adapt, '{video_length,target_s}', '50') where id = 'tech-explained'`;
  await admin`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle) values ('tech-explained', 'youtube', '@adapt-test')`;
  const [run] = await admin`select run_id from mdame.start_run('adapt-evidence-run', 'dev', 'manual', current_date - 3, 'tech-explained')`;
  await admin`select mdame.abort_run(${run!.run_id}::uuid, 'evidence fixture')`;
  for (let i = 0; i < 20; i++) {
    const arm = i % 2 === 0 ? "short" : "long";
    const topic = {
      title: `Topic ${i}`,
      source: "google_trends",
      categories: [],
      adapt: { target_s: 50, length_arm: arm, video_length_s: arm === "short" ? 46 : 54 },
    };
    const [unit] = await admin`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
      values (${run!.run_id}::uuid, 'tech-explained', ${`adapt-unit-${i}`}, ${`adapt-fp-${i}`}, ${admin.json(topic)}, 'published',
              ${admin.json({ title: "t", narration: "n", hook_score: 0.8 })}) returning id`;
    const [publication] = await admin`insert into mdame.publications (unit_id, account_id, platform, status, published_at)
      select ${unit!.id}::uuid, id, 'youtube', 'published', now() from mdame.dimension_accounts where channel_handle = '@adapt-test' returning id`;
    const retention = (arm === "short" ? 62 : 50) + (i % 4 < 2 ? 2 : -2);
    await admin`insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
        average_view_duration_s, average_view_percentage, likes, retention)
      values (${publication!.id}::uuid, 7, now(), current_date - 7, current_date, 1000, 800, 25, ${retention}, 10, '[]')`;
  }
}

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const env: Record<string, string> = { ...localStackEnv(), LOG_LEVEL: "warn" };
  serviceRoleKey = env.SERVICE_ROLE_KEY;
  pipeline = servePipeline(env);
  await seedEvidence();
}, 60_000);

afterAll(async () => {
  await pipeline?.stop();
  await db.reset({ log: () => {} });
}, 60_000);

async function mdame(args: string[]) {
  const child = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), ...args], {
    cwd: paths.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: pipeline.functionsUrl, SERVICE_ROLE_KEY: serviceRoleKey },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${pipeline.functionsUrl}/pipeline${path}`, {
    method,
    headers: { authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });

const adaptations = () => admin`select * from mdame.adaptations order by decided_at`;
const effectiveTarget = async () =>
  (await admin`select mdame.get_effective_dimension_config('tech-explained')->'adapt'->'video_length'->'target_s' as t`)[0]!.t;

/** Starts a run of tech-explained (then aborts it: no work is drained here) and returns its configuration. */
async function nextRunConfig(key: string) {
  const [run] = await admin`select run_id from mdame.start_run(${key}, 'dev', 'manual', current_date, 'tech-explained')`;
  const [row] = await admin`select config from mdame.run_dimensions where run_id = ${run!.run_id}::uuid`;
  await admin`select mdame.abort_run(${run!.run_id}::uuid, 'config checked')`;
  return row!.config;
}

describe("mdame adapt", () => {
  test("--dry-run shows the move and its evidence, and changes nothing", async () => {
    const result = await mdame(["adapt", "--dry-run", "--dimension", "tech-explained", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const [report] = JSON.parse(result.stdout).reports;
    expect(report).toMatchObject({ dimension_id: "tech-explained", dry_run: true, videos: 20 });
    expect(report.moves).toHaveLength(1);
    expect(report.moves[0]).toMatchObject({ id: null, parameter: "video_length", before: 50, after: 47 });
    expect(report.moves[0].evidence.arms).toEqual([{ label: "short (46 s)", n: 10, mean: 62 }, { label: "long (54 s)", n: 10, mean: 50 }]);
    const text = await mdame(["adapt", "--dry-run", "--dimension", "tech-explained"]);
    expect(text.stdout).toContain("would move video_length: 50 -> 47");
    expect(text.stdout).toContain("dry run: nothing changed");
    expect(await adaptations()).toHaveLength(0);
    expect(await effectiveTarget()).toBe(50);
  });

  test("applying records before, after, reason and evidence, and the next run uses it", async () => {
    const result = await mdame(["adapt", "--dimension", "tech-explained"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("moved video_length: 50 -> 47");
    const rows = await adaptations();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      dimension_id: "tech-explained",
      parameter: "video_length",
      before: 50,
      after: 47,
      applied: true,
      reverted_at: null,
      week_start: null,
    });
    expect(rows[0]!.reason).toContain("short (46 s) retains better");
    expect(rows[0]!.evidence).toMatchObject({ metric: "retention_pp", difference: -12 });
    expect((await nextRunConfig("adapt-after-apply")).adapt.video_length.target_s).toBe(47);
    // The same evidence again moves nothing: only videos made since the move count.
    const again = JSON.parse((await mdame(["adapt", "--dimension", "tech-explained", "--json"])).stdout);
    expect(again.reports[0].moves).toEqual([]);
    const listed = await mdame(["adapt", "list"]);
    expect(listed.stdout).toContain("video_length");
    expect(listed.stdout).toContain("in force");
  });

  test("revert gives the previous value back to the next run", async () => {
    const [row] = await adaptations();
    const result = await mdame(["adapt", "revert", row!.id]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("50 is in force again");
    expect((await adaptations())[0]!.reverted_at).not.toBeNull();
    expect((await nextRunConfig("adapt-after-revert")).adapt.video_length.target_s).toBe(50);
    // Reverting twice changes nothing.
    expect((await mdame(["adapt", "revert", row!.id])).code).toBe(0);
  });

  test("a pinned parameter does not move; unpinned, it may again", async () => {
    // The revert counts as a change: the evidence must be newer. Move the fixture's videos after it.
    await admin`update mdame.work_units set created_at = now() + interval '1 second' where unit_key like 'adapt-unit-%'`;
    const pinned = await mdame(["adapt", "pin", "tech-explained", "video_length"]);
    expect(pinned).toMatchObject({ code: 0, stderr: "" });
    expect(pinned.stdout).toContain("pinned now: video_length");
    const held = JSON.parse((await mdame(["adapt", "--dimension", "tech-explained", "--json"])).stdout).reports[0];
    expect(held.moves).toEqual([]);
    expect(held.comparisons.find((c: { parameter: string }) => c.parameter === "video_length").outcome).toBe("pinned");
    expect(await effectiveTarget()).toBe(50);
    expect((await mdame(["adapt", "unpin", "tech-explained", "video_length"])).stdout).toContain("pinned now: none");
    const dry = JSON.parse((await mdame(["adapt", "--dry-run", "--dimension", "tech-explained", "--json"])).stdout).reports[0];
    expect(dry.moves).toHaveLength(1);
  });

  test("the weekly tick decides once per week", async () => {
    await admin`select mdame.mark_adaptation_week_due()`;
    const tick = await api("POST", "/tick", {});
    expect(tick.status).toBe(200);
    const weekly = (await adaptations()).filter((a) => a.week_start !== null);
    expect(weekly).toHaveLength(1);
    expect(weekly[0]).toMatchObject({ parameter: "video_length", before: 50, after: 47 });
    const [week] = await admin`select finished_at from mdame.adaptation_weeks`;
    expect(week!.finished_at).not.toBeNull();
    expect((await api("POST", "/tick", {})).status).toBe(200);
    await admin`select mdame.mark_adaptation_week_due()`;
    expect((await api("POST", "/tick", {})).status).toBe(200);
    expect((await adaptations()).filter((a) => a.week_start !== null)).toHaveLength(1);
  });

  test("bad input is a 4xx with a clear message", async () => {
    const cases: [string, string, unknown, number, string][] = [
      ["POST", "/adapt", { dimension: "Not An Id" }, 400, "dimension"],
      ["POST", "/adapt", { dry_run: "yes" }, 400, "dry_run"],
      ["POST", "/adapt", { dimension: "nobody-here" }, 404, "no dimension nobody-here"],
      ["POST", "/adapt", "{not json", 400, ""],
      ["GET", "/adaptations?limit=0", undefined, 400, "limit"],
      ["GET", "/adaptations?bogus=1", undefined, 400, "bogus"],
      ["POST", "/adaptations/not-a-uuid/revert", {}, 400, "id"],
      ["POST", "/adaptations/00000000-0000-4000-8000-000000000000/revert", {}, 404, "no adaptation"],
      ["POST", "/adapt/pin", { dimension: "tech-explained", parameter: "speed" }, 400, "parameter"],
      ["POST", "/adapt/pin", { dimension: "nobody-here", parameter: "hook_threshold" }, 404, "no dimension"],
    ];
    for (const [method, path, body, status, words] of cases) {
      const response = await api(method, path, body);
      const text = await response.text();
      expect({ path, body, status: response.status }).toEqual({ path, body, status });
      expect(text).toContain(words);
    }
    const cli = await mdame(["adapt", "pin", "tech-explained", "speed"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("not an adaptive parameter");
  });

  test("a TikTok-only dimension adapts on its TikTok views, per platform by default", async () => {
    await admin`update mdame.dimensions set adapt = jsonb_set(adapt, '{video_length,target_s}', '50') where id = 'sains-singkat'`;
    const [account] = await admin`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle)
      values ('sains-singkat', 'tiktok', '@adapt-tiktok') returning id`;
    const [run] = await admin`select run_id from mdame.start_run('adapt-tiktok-run', 'dev', 'manual', current_date - 3, 'sains-singkat')`;
    await admin`select mdame.abort_run(${run!.run_id}::uuid, 'evidence fixture')`;
    for (let i = 0; i < 20; i++) {
      const arm = i % 2 === 0 ? "short" : "long";
      const topic = { title: `Topik ${i}`, source: "google_trends", categories: [], adapt: { target_s: 50, length_arm: arm, video_length_s: 50 } };
      const [unit] = await admin`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
        values (${run!.run_id}::uuid, 'sains-singkat', ${`adapt-tt-${i}`}, ${`adapt-tt-fp-${i}`}, ${admin.json(topic)}, 'published',
                ${admin.json({ title: "t", narration: "n", hook_score: 0.8 })}) returning id`;
      const [publication] = await admin`insert into mdame.publications (unit_id, account_id, platform, status, external_id, published_at)
        values (${unit!.id}::uuid, ${account!.id}::uuid, 'tiktok', 'published', ${`73000000000000${String(i).padStart(5, "0")}`}, now()) returning id`;
      const views = (arm === "short" ? 600 : 2400) * (i % 4 < 2 ? 1.1 : 0.9);
      await admin`select mdame.record_counted_video_analytics(${publication!.id}::uuid, 7, current_date - 7, current_date,
        ${Math.round(views)}::bigint, 10::bigint, 1::bigint, 1::bigint)`;
    }
    const result = await mdame(["adapt", "--dry-run", "--dimension", "sains-singkat", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const [report] = JSON.parse(result.stdout).reports;
    expect(report).toMatchObject({ dimension_id: "sains-singkat", videos: 20 });
    expect(report.moves).toHaveLength(1);
    expect(report.moves[0]).toMatchObject({ parameter: "video_length", before: 50, evidence: { platform: "tiktok", metric: "log_views" } });
    expect(report.moves[0].after).toBeGreaterThan(50);
    expect(report.comparisons.find((c: { parameter: string }) => c.parameter === "video_length")).toMatchObject({ platform: "tiktok" });
    const text = await mdame(["adapt", "--dry-run", "--dimension", "sains-singkat"]);
    expect(text.stdout).toContain("video_length on tiktok: move 50 -> ");
  });
});
