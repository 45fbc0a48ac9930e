/**
 * `npm run demo`: the main job on the local stack. Resets the database when it holds no engine yet,
 * starts the stack, connects a YouTube account (on the emulator) for each demo dimension that has
 * none through `mdame account connect`, a TikTok account for the first dimension by id and an
 * Instagram account and a Facebook Page for the second, triggers today's run through the HTTP endpoint, shows progress per dimension
 * and stage, and writes the videos and out/demo-summary.json. A second demo on the same day finds
 * today's run and publishes nothing new. With --review the first dimension by id requires review
 * (scripts/demo/review.ts): the demo ends once its video waits, and prints the command approving it.
 */
import type { QualityReport } from "../shared/contracts/quality.ts";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { LOCAL_DB_URL } from "../shared/config/local-stack.ts";
import { createSql } from "../shared/db/client.ts";
import { probeMedia } from "../shared/media/ffprobe.ts";
import { loadEnv, STORAGE_ENV_KEYS } from "../shared/config/env.ts";
import { createAssetStore } from "../shared/storage/create-asset-store.ts";
import { connectAccounts, connectMetaAccounts, connectTikTokAccount } from "./demo/connect-accounts.ts";
import { DEMO_USAGE, parseDemoArgs } from "./demo/args.ts";
import { collectDemoAlerts } from "./demo/alerts.ts";
import { demoAnalytics, realTimeClocks } from "./demo/analytics.ts";
import { demoThumbnails } from "./demo/thumbnails.ts";
import { requireReview, waitingForReview } from "./demo/review.ts";
import { describeProgress, onlyReviewsLeft } from "../cli/run-progress.ts";
import { RunStatus, TriggeredRun } from "../shared/contracts/operator.ts";
import * as db from "../stack/db.ts";
import { paths } from "../stack/paths.ts";
import { localStackEnv } from "../stack/stack-env.ts";
import { startStack, supervisorPid, waitForReady } from "../stack/stack-control.ts";

const parsed = parseDemoArgs(process.argv.slice(2));
if ("error" in parsed) {
  // A mistyped flag never runs the plain demo in its place.
  console.error(`demo: ${parsed.error}\n${DEMO_USAGE}`);
  process.exit(2);
}
const args = parsed;
const RUN_TIMEOUT_MS = 20 * 60_000;
const outDir = join(paths.root, "out");
const t0 = Date.now();
const say = (line: string) => console.log(`[demo ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${line}`);

async function engineInstalled(): Promise<boolean> {
  // As the superuser: before its first reset the database has no engine role to log in as.
  const sql = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-demo" });
  try {
    const [row] = await sql`select to_regclass('mdame.pipeline_runs') is not null as ok`;
    return row.ok === true;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

/** Uploads on the YouTube emulator plus posts on the TikTok, Instagram and Facebook emulators. */
async function emulatorVideoCount(emulatorUrl: string): Promise<number> {
  const read = async (path: string) => {
    const response = await fetch(`${emulatorUrl}${path}`);
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return await response.json();
  };
  const meta = await read("/_emulator/meta/posts") as { instagram: unknown[]; facebook: unknown[] };
  const lists = [await read("/_emulator/youtube/videos"), await read("/_emulator/tiktok/posts"), meta.instagram, meta.facebook] as unknown[][];
  return lists.reduce((n, list) => n + list.length, 0);
}

/** The active dimensions by id: the first also publishes to TikTok, the second to Instagram and Facebook. */
async function activeDimensionIds(env: Record<string, string>): Promise<string[]> {
  const response = await fetch(`${env.FUNCTIONS_URL}/pipeline/dimensions`, { headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}` } });
  if (!response.ok) throw new Error(`GET /pipeline/dimensions answered ${response.status}`);
  const { dimensions } = await response.json() as { dimensions: { id: string; active: boolean }[] };
  return dimensions.filter((d) => d.active).map((d) => d.id).sort();
}

async function main() {
  // The demo is the offline job: every external service is its emulator, whatever .env says.
  process.env.MDAME_EMULATE = "all";
  const running = supervisorPid() !== null;
  if (running) {
    say("a local stack is already running: using it");
    await waitForReady();
  } else {
    if (!db.isInitialised()) await db.init(say);
    await db.ensureRunning(say);
  }
  if (args.reset || !(await engineInstalled())) {
    say(
      args.reset
        ? "--reset: resetting the database and the emulators' state"
        : "database holds no engine yet: resetting it from supabase/migrations + seed.sql",
    );
    await db.reset({ log: say });
    if (running) {
      const response = await fetch(`${localStackEnv().EMULATOR_URL}/_emulator/reset`, { method: "POST" });
      if (!response.ok) throw new Error(`emulator reset failed: ${response.status}`);
    } else {
      await rm(paths.emulators, { recursive: true, force: true });
    }
  }
  if (!running) {
    // The supervisor runs the database in the foreground itself.
    await db.stop(say);
    say("starting the local stack (logs in .local/logs/)");
  }
  const stack = await startStack({ quiet: true });
  try {
    const env = localStackEnv();
    await realTimeClocks(env, say);
    // As a person would: `mdame account connect youtube` per dimension, this script playing the
    // browser, `mdame account connect tiktok` for the first dimension by id, and `mdame account
    // connect instagram` and `facebook` for the second, which then publish to each.
    await connectAccounts({ env, log: say });
    const [onTikTok, onMeta] = await activeDimensionIds(env);
    if (onTikTok) await connectTikTokAccount(env, onTikTok, `${onTikTok}-tiktok`, say);
    if (onMeta) await connectMetaAccounts(env, onMeta, `${onMeta}-meta`, say);
    // --review: the first dimension by id waits for the operator before publishing.
    if (args.review && onTikTok) await requireReview(env, onTikTok, say);
    const uploadsBefore = await emulatorVideoCount(env.EMULATOR_URL);
    const trigger = await fetch(`${env.FUNCTIONS_URL}/pipeline/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
      body: "{}",
    });
    const answered: unknown = await trigger.json();
    if (trigger.status !== 202) throw new Error(`trigger refused (${trigger.status}): ${JSON.stringify(answered)}`);
    const triggered = TriggeredRun.parse(answered);
    say(triggered.created ? `run ${triggered.run_id} started` : `today's run ${triggered.run_id} already exists: nothing new will be made`);

    let status: RunStatus | null = null;
    let lastLines = "";
    let lastPrinted = 0;
    const deadline = Date.now() + RUN_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const response = await fetch(triggered.status_url, { headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}` } });
      status = RunStatus.parse(await response.json());
      // Print on every change, and every 15 s while long work (a render) goes on.
      const lines = describeProgress(status).join("\n");
      if (lines !== lastLines || Date.now() - lastPrinted > 15_000) {
        for (const line of describeProgress(status, Date.now())) say(line);
        lastLines = lines;
        lastPrinted = Date.now();
      }
      if (status.run.status !== "running" || onlyReviewsLeft(status)) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    if (!status || (status.run.status === "running" && !onlyReviewsLeft(status))) {
      throw new Error(`run still running after ${RUN_TIMEOUT_MS / 60000} min; see .local/logs/`);
    }

    // The videos come out of the store the stack's workers wrote them to, through the same client.
    const store = createAssetStore(loadEnv(STORAGE_ENV_KEYS, env));
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    // The report reads tables the engine role cannot: the demo owns this local database (it resets
    // it), so it reads as the superuser, as the tests' fixtures do.
    const dims = await dimensionLanguages(LOCAL_DB_URL);
    const stageSeconds = await stageDurations(LOCAL_DB_URL, status.run.id);
    const sceneRows = await sceneSummaries(LOCAL_DB_URL, status.run.id);
    const videos: DemoVideo[] = [];
    for (const unit of status.units.filter((u) => u.stage === "published" && u.video)) {
      const path = join(outDir, `${unit.dimension_id}-${unit.id.slice(0, 8)}.mp4`);
      await store.getFile(unit.video!.video_key, path);
      const info = await probeMedia(path);
      const published = unit.publications.filter((p) => p.status === "published");
      const publication = published.find((p) => p.platform === "youtube") ?? published[0]!;
      videos.push({
        dimension: unit.dimension_id,
        language: dims.get(unit.dimension_id) ?? "unknown",
        title: unit.title,
        path: join("out", `${unit.dimension_id}-${unit.id.slice(0, 8)}.mp4`),
        duration_s: Math.round(info.duration_s * 100) / 100,
        publication: { platform: publication.platform, external_id: publication.external_id },
        publications: published.map((p) => ({ platform: p.platform, external_id: p.external_id, privacy_status: p.privacy_status })),
        render_s: unit.video!.render_ms == null ? null : unit.video!.render_ms / 1000,
        stage_seconds: stageSeconds.get(unit.id) ?? {},
        scenes: sceneRows.get(unit.id) ?? [],
        quality: unit.quality ?? null,
      });
    }
    // Alerts go to the Telegram emulator on the local stack (TELEGRAM_* in stack-env.ts).
    // Every alert since the run began: a run that was already under way (or over) raised its own before this demo started.
    const since = new Date(Math.min(t0, Date.parse(status.run.created_at)));
    const alerts = await collectDemoAlerts(LOCAL_DB_URL, env.EMULATOR_URL, since, say);
    // Before the analytics move the clocks: the thumbnails wait for YouTube's processing on real time.
    const thumbnails = await demoThumbnails(env, status.run.id, say);
    for (const video of videos) {
      for (const p of video.publications) {
        if (p.platform === "youtube") p.thumbnail = thumbnails.find((t) => t.external_id === p.external_id)?.status ?? "none";
      }
    }
    const analytics = await demoAnalytics(env, status.run.id, say);
    const awaitingReview = waitingForReview(status);
    const summary = {
      run_id: status.run.id,
      run_status: status.run.status,
      created: triggered.created,
      wall_s: (Date.now() - t0) / 1000,
      videos,
      analytics,
      alerts,
      awaiting_review: awaitingReview,
    };
    await writeFile(join(outDir, "demo-summary.json"), JSON.stringify(summary, null, 2) + "\n");

    const uploadsAfter = await emulatorVideoCount(env.EMULATOR_URL);
    const newUploads = uploadsAfter - uploadsBefore;
    say(`run ${status.run.id}: ${status.run.status}`);
    for (const v of videos) {
      say(`  ${v.dimension} (${v.language}) ${v.duration_s}s ${v.path} -> ${v.publications.map((p) => `${p.platform} ${p.external_id}`).join(", ")}`);
      const made = Object.entries(Object.groupBy(v.scenes, (scene) => scene.backend ?? "none")).map(([b, list]) => `${b} x${list!.length}`);
      say(`    scenes: ${made.join(", ")}`);
    }
    for (const w of awaitingReview) {
      say(`  ${w.dimension}: "${w.title ?? w.unit_id}" waits for review (the run stays open until it is decided)`);
      say(`    approve: ${w.approve}`);
      say(`    reject:  ${w.reject}`);
    }
    const missing = status.dimensions.filter((d) =>
      !videos.some((v) => v.dimension === d.dimension_id) && !awaitingReview.some((w) => w.dimension === d.dimension_id)
    );
    say(
      newUploads > 0
        ? `${newUploads} new upload(s) on the YouTube, TikTok, Instagram and Facebook emulators`
        : awaitingReview.length > 0
        ? `nothing new was published yet: ${awaitingReview.length} video(s) wait for review`
        : missing.length === 0
        ? "nothing new was published (today's videos are already up)"
        : `nothing new was published (the run ended ${status.run.status})`,
    );
    say(`summary: out/demo-summary.json`);

    if (missing.length > 0) {
      say(`no published video for: ${missing.map((d) => d.dimension_id).join(", ")}`);
      process.exitCode = 1;
    }
  } finally {
    await stack.stop();
  }
  // The demo's run, its videos and its queues stay in the database: the dashboard shows them.
  say(
    running
      ? "to look around: `npm run mdame -- dashboard` serves the ops dashboard and opens its sign-in link (docs/guides/dashboard.md)"
      : "to look around: `npm run stack`, then in another terminal `npm run mdame -- dashboard`, which serves the ops dashboard and opens its sign-in link (docs/guides/dashboard.md)",
  );
}

/** One entry of `videos` in out/demo-summary.json. */
interface DemoVideo {
  dimension: string;
  language: string;
  title: string | null;
  path: string;
  duration_s: number;
  /** The YouTube publication (the first published one when the dimension is not on YouTube). */
  publication: { platform: string; external_id: string | null };
  /**
   * Every publication of the video: its platform, the platform's id, the privacy the platform gave
   * it and, on YouTube, what became of its Shorts thumbnail (set, given_up: why, queued, none).
   */
  publications: { platform: string; external_id: string | null; privacy_status: string | null; thumbnail?: string }[];
  render_s: number | null;
  stage_seconds: Record<string, number>;
  /** The video's scenes in order: which backend made each clip, whether it came from the cache, and a stock clip's credit. */
  scenes: DemoScene[];
  /** The quality gate's measures on the video, each with its bound. */
  quality: QualityReport | null;
}

interface DemoScene {
  index: number;
  backend: string | null;
  cache_hit: boolean | null;
  asset_key: string | null;
  credit?: Record<string, unknown>;
}

/** Each unit's scenes with the backend that made them and the credit stored with the clip. */
async function sceneSummaries(dbUrl: string, runId: string): Promise<Map<string, DemoScene[]>> {
  const sql = createSql(dbUrl, { max: 1, application: "mdame-demo" });
  try {
    const rows = await sql`
      select s.unit_id, s.scene_index, s.backend, s.cache_hit, s.asset_key, c.credit
        from mdame.scenes s
        join mdame.work_units u on u.id = s.unit_id
        left join mdame.scene_cache c on c.scene_hash = s.scene_hash and c.backend = s.backend
       where u.run_id = ${runId}
       order by s.unit_id, s.scene_index`;
    const byUnit = new Map<string, DemoScene[]>();
    for (const row of rows) {
      const scenes = byUnit.get(row.unit_id) ?? [];
      scenes.push({
        index: row.scene_index,
        backend: row.backend,
        cache_hit: row.cache_hit,
        asset_key: row.asset_key,
        ...(row.credit ? { credit: row.credit } : {}),
      });
      byUnit.set(row.unit_id, scenes);
    }
    return byUnit;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

/** Seconds each unit spent in each stage, from the stage_entered events. */
async function stageDurations(dbUrl: string, runId: string): Promise<Map<string, Record<string, number>>> {
  const sql = createSql(dbUrl, { max: 1, application: "mdame-demo" });
  try {
    const rows = await sql`
      select unit_id, stage, extract(epoch from lead(created_at) over (partition by unit_id order by id) - created_at)::float8 as seconds
        from mdame.events where run_id = ${runId} and unit_id is not null and kind = 'stage_entered'`;
    const byUnit = new Map<string, Record<string, number>>();
    for (const row of rows) {
      if (row.seconds === null) continue;
      const stages = byUnit.get(row.unit_id) ?? {};
      stages[row.stage] = Math.round(row.seconds * 100) / 100;
      byUnit.set(row.unit_id, stages);
    }
    return byUnit;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

async function dimensionLanguages(dbUrl: string): Promise<Map<string, string>> {
  const sql = createSql(dbUrl, { max: 1, application: "mdame-demo" });
  try {
    const rows = await sql`select id, language from mdame.dimensions`;
    return new Map(rows.map((r) => [r.id as string, r.language as string]));
  } finally {
    await sql.end({ timeout: 2 });
  }
}

main().catch((error) => {
  console.error(`[demo] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
