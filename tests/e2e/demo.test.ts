/**
 * End to end through the real processes: `npm run demo`'s script on the supervised stack (Postgres
 * with pg_cron and pgmq, the Deno edge host, both Bun workers, the emulators), run twice.
 * Every video is checked as a viewer and the platform would see it, and every asset of the run
 * as anyone holding `.local/stack.env` would find it in Supabase Storage through supabase-js. Then
 * `--review`: the first dimension's next video waits for `mdame review approve`, which publishes it once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@supabase/supabase-js";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { createSql } from "../../shared/db/client.ts";
import { resolveFfmpegBinaries } from "../../shared/media/ffmpeg.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv, readStackEnv } from "../../stack/stack-env.ts";
import { type StackHandle, startStack } from "../../stack/stack-control.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { SpendReport } from "../../shared/contracts/spend.ts";

const Summary = z.object({
  run_id: z.string().uuid(),
  created: z.boolean(),
  videos: z.array(
    z.object({
      dimension: z.string(),
      language: z.string(),
      path: z.string(),
      duration_s: z.number(),
      publication: z.object({ platform: z.literal("youtube"), external_id: z.string().min(1) }),
      publications: z.array(
        z.object({
          platform: z.enum(["youtube", "tiktok", "instagram", "facebook"]),
          external_id: z.string().min(1),
          privacy_status: z.string().nullable(),
          thumbnail: z.string().optional(),
        }).strict(),
      ),
    }).passthrough(),
  ),
  analytics: z.array(
    z.object({
      dimension: z.string(),
      external_id: z.string(),
      window_days: z.number().nullable(),
      views: z.number().nullable(),
      engaged_views: z.number().nullable(),
      retention_points: z.number(),
      status: z.string(),
    }).passthrough(),
  ),
  alerts: z.array(z.unknown()),
  awaiting_review: z.array(z.object({ dimension: z.string(), unit_id: z.string().uuid(), approve: z.string() }).passthrough()),
}).passthrough();

const SceneSummary = z.array(
  z.object({
    index: z.number().int(),
    backend: z.string(),
    cache_hit: z.boolean(),
    asset_key: z.string(),
    credit: z.object({ provider: z.string(), author: z.string(), page_url: z.string(), licence: z.string() }).passthrough().optional(),
  }).strict(),
);

const EmulatorVideos = z.array(z.object({ id: z.string(), sha256: z.string(), size_bytes: z.number(), channel: z.string() }).passthrough());
const TikTokPosts = z.array(
  z.object({ publish_id: z.string(), post_id: z.string(), sha256: z.string(), privacy_level: z.string(), is_aigc: z.boolean() }).passthrough(),
);

const MetaPosts = z.object({
  instagram: z.array(z.object({ media_id: z.string(), sha256: z.string(), caption: z.string(), share_to_feed: z.boolean() }).passthrough()),
  facebook: z.array(z.object({ video_id: z.string(), sha256: z.string(), description: z.string(), video_state: z.string() }).passthrough()),
});

let stack: StackHandle;
const env = localStackEnv();

function runDemo(extra: string[] = []) {
  const result = spawnSync(process.execPath, [join(paths.root, "scripts", "demo.ts"), ...extra], {
    cwd: paths.root,
    encoding: "utf8",
    timeout: 15 * 60_000,
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.status !== 0) console.error(output);
  return { status: result.status, output, summary: Summary.parse(JSON.parse(readFileSync(join(paths.root, "out", "demo-summary.json"), "utf8"))) };
}

/** `mdame` as its own process against the stack's functions. */
function mdame(args: string[]) {
  const result = spawnSync(process.execPath, [join(paths.root, "cli", "mdame.ts"), ...args], {
    cwd: paths.root,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: env.FUNCTIONS_URL, SERVICE_ROLE_KEY: env.SERVICE_ROLE_KEY },
  });
  if (result.status !== 0) console.error(`${result.stdout}\n${result.stderr}`);
  return { status: result.status, stdout: result.stdout };
}

async function emulatorVideos() {
  return EmulatorVideos.parse(await (await fetch(`${env.EMULATOR_URL}/_emulator/youtube/videos`)).json());
}

async function tiktokPosts() {
  return TikTokPosts.parse(await (await fetch(`${env.EMULATOR_URL}/_emulator/tiktok/posts`)).json());
}

async function metaPosts() {
  return MetaPosts.parse(await (await fetch(`${env.EMULATOR_URL}/_emulator/meta/posts`)).json());
}

async function meanVolumeDb(path: string): Promise<number> {
  const { ffmpeg } = await resolveFfmpegBinaries();
  const result = spawnSync(ffmpeg, ["-hide_banner", "-i", path, "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"], { encoding: "utf8" });
  const match = /mean_volume:\s*(-?[\d.]+) dB/.exec(result.stderr);
  if (!match) throw new Error(`no volumedetect output for ${path}`);
  return Number(match[1]);
}

beforeAll(async () => {
  // The demo runs on a stack this test owns, from an empty database and empty emulators.
  if (db.isRunning()) await db.stop(() => {});
  stack = await startStack({ quiet: true, timeoutMs: 180_000 });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
}, 120_000);

describe("npm run demo", () => {
  let first: ReturnType<typeof runDemo>;

  test("publishes one video per dimension, each a valid Short, on YouTube, for one dimension on TikTok and for another on Instagram and Facebook", async () => {
    first = runDemo(["--reset"]);
    expect(first.status).toBe(0);
    expect(first.summary.created).toBe(true);

    const sql = createSql(LOCAL_DB_URL, { max: 1 });
    const dimensions = (await sql`select id, language from mdame.dimensions where active order by id`).map((r) => ({ ...r }));
    await sql.end();
    expect(first.summary.videos.map((v) => v.dimension).sort()).toEqual(dimensions.map((d) => d.id));
    expect(new Set(first.summary.videos.map((v) => v.language))).toEqual(new Set(dimensions.map((d) => d.language as string)));

    const uploads = await emulatorVideos();
    expect(uploads.length).toBe(first.summary.videos.length);
    // The closed loop's measurements: three days on, each published YouTube video's day-3 figures
    // were fetched from the Analytics emulator through the engine's own client and stored.
    const youtubeIds = first.summary.videos.map((v) => v.publication.external_id).sort();
    expect(first.summary.analytics.map((a) => a.external_id).sort()).toEqual(youtubeIds);
    for (const a of first.summary.analytics) {
      expect(a).toMatchObject({ status: "fetched", window_days: 3, retention_points: 100 });
      expect(a.views!).toBeGreaterThan(0);
      expect(a.engaged_views!).toBeLessThanOrEqual(a.views!);
    }
    // One dimension (the first by id) publishes to TikTok too: its post holds the same file, named by
    // the id the summary lists; the unaudited emulator app's post is SELF_ONLY and labelled AI-generated.
    const posts = await tiktokPosts();
    expect(posts).toHaveLength(1);
    const onTikTok = first.summary.videos.filter((v) => v.publications.some((p) => p.platform === "tiktok"));
    expect(onTikTok.map((v) => v.dimension)).toEqual([dimensions[0]!.id as string]);
    const tiktok = onTikTok[0]!.publications.find((p) => p.platform === "tiktok")!;
    expect(tiktok).toEqual({ platform: "tiktok", external_id: posts[0]!.publish_id, privacy_status: "SELF_ONLY" });
    expect(posts[0]).toMatchObject({ privacy_level: "SELF_ONLY", is_aigc: true });
    expect(posts[0]!.sha256).toBe(createHash("sha256").update(readFileSync(join(paths.root, onTikTok[0]!.path))).digest("hex"));
    // The second dimension by id publishes to Instagram and to its Facebook Page too: one Reel on
    // each, the same file, named by the ids the summary lists, public (Meta's publishing APIs take no privacy).
    const meta = await metaPosts();
    expect([meta.instagram.length, meta.facebook.length]).toEqual([1, 1]);
    const onMeta = first.summary.videos.filter((v) => v.publications.some((p) => p.platform === "instagram" || p.platform === "facebook"));
    expect(onMeta.map((v) => v.dimension)).toEqual([dimensions[1]!.id as string]);
    const metaSha = createHash("sha256").update(readFileSync(join(paths.root, onMeta[0]!.path))).digest("hex");
    expect(onMeta[0]!.publications.find((p) => p.platform === "instagram")).toEqual({
      platform: "instagram",
      external_id: meta.instagram[0]!.media_id,
      privacy_status: "public",
    });
    expect(onMeta[0]!.publications.find((p) => p.platform === "facebook")).toEqual({
      platform: "facebook",
      external_id: meta.facebook[0]!.video_id,
      privacy_status: "public",
    });
    expect([meta.instagram[0]!.sha256, meta.facebook[0]!.sha256]).toEqual([metaSha, metaSha]);
    expect(meta.instagram[0]).toMatchObject({ share_to_feed: true, caption: expect.stringContaining(onMeta[0]!.title as string) });
    expect(meta.facebook[0]).toMatchObject({ video_state: "PUBLISHED" });
    for (const video of first.summary.videos) {
      expect(video.publications.filter((p) => p.platform === "youtube").map((p) => p.external_id)).toEqual([video.publication.external_id]);
      // Its Shorts thumbnail: the render's cover, set once the emulator had processed the video, and applied.
      expect(video.publications.find((p) => p.platform === "youtube")!.thumbnail).toBe("set");
      const thumbnail = uploads.find((u) => u.id === video.publication.external_id)?.thumbnail as Record<string, unknown> | null;
      expect(thumbnail).toMatchObject({ applied: true, mime_type: "image/jpeg", width: 1080, height: 1920 });
      const file = join(paths.root, video.path);
      const info = await probeMedia(file);
      expect(info.video).toMatchObject({ codec_name: "h264", width: 1080, height: 1920 });
      expect(info.audio?.codec_name).toBe("aac");
      expect(info.duration_s).toBeGreaterThanOrEqual(20);
      expect(info.duration_s).toBeLessThanOrEqual(75);
      expect(await meanVolumeDb(file)).toBeGreaterThan(-35);
      // The platform holds exactly this file under the id the engine recorded.
      const sha = createHash("sha256").update(readFileSync(file)).digest("hex");
      const upload = uploads.find((u) => u.id === video.publication.external_id);
      expect(upload?.sha256).toBe(sha);
      // Topic-true scenes: each made by the dimension's first backend (Gemini image or Pexels stock), none procedural.
      const scenes = SceneSummary.parse((video as { scenes?: unknown }).scenes);
      expect(scenes.length).toBeGreaterThanOrEqual(5);
      const first = video.dimension === "tech-explained" ? "gemini-image/" : "pexels/";
      for (const scene of scenes) {
        expect(scene.backend).toStartWith(first);
        expect(scene.asset_key).toStartWith("scenes/");
        if (first === "pexels/") expect(scene.credit).toMatchObject({ provider: "pexels", licence: "Pexels License" });
      }
    }
  }, 16 * 60_000);

  test("every asset of the run is listed and downloadable through supabase-js with .local/stack.env", async () => {
    const stackEnv = readStackEnv();
    const { SUPABASE_URL, SUPABASE_SERVICE_ROLE_KEY, STORAGE_BUCKET } = stackEnv;
    expect([SUPABASE_URL, SUPABASE_SERVICE_ROLE_KEY, STORAGE_BUCKET].every((v) => typeof v === "string" && v.length > 0)).toBe(true);
    expect(stackEnv.STORAGE_BACKEND).toBe("supabase");

    const sql = createSql(LOCAL_DB_URL, { max: 1 });
    const units = await sql`select id, voice->>'audio_key' as audio_key, video->>'video_key' as video_key
                              from mdame.work_units where run_id = ${first.summary.run_id} and stage = 'published'`;
    const scenes = await sql`select s.asset_key from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                              where u.run_id = ${first.summary.run_id} and u.stage = 'published'`;
    await sql.end();
    const voiceKeys = units.map((u) => u.audio_key as string);
    const wordKeys = voiceKeys.map((k) => k.replace(/\.mp3$/, ".json"));
    const sceneKeys = [...new Set(scenes.map((s) => s.asset_key as string))];
    const renderKeys = units.map((u) => u.video_key as string);
    expect(units.length).toBe(first.summary.videos.length);
    expect(sceneKeys.length).toBeGreaterThan(0);

    const files = createClient(SUPABASE_URL, SUPABASE_SERVICE_ROLE_KEY, { auth: { persistSession: false } }).storage.from(STORAGE_BUCKET);
    const uploads = await emulatorVideos();
    for (const [folder, keys] of [["voice", [...voiceKeys, ...wordKeys]], ["scenes", sceneKeys], ["renders", renderKeys]] as const) {
      const { data: listed, error } = await files.list(folder, { limit: 1000 });
      expect(error).toBeNull();
      const sizes = new Map(listed!.map((entry) => [`${folder}/${entry.name}`, Number(entry.metadata?.size)]));
      for (const key of keys) {
        expect(key.startsWith(`${folder}/`)).toBe(true);
        expect(sizes.has(key)).toBe(true);
        const { data: blob, error: downloadError } = await files.download(key);
        expect(downloadError).toBeNull();
        const bytes = new Uint8Array(await blob!.arrayBuffer());
        expect(bytes.length).toBe(sizes.get(key)!);
        expect(bytes.length).toBeGreaterThan(0);
        if (folder === "renders") {
          // The render in Storage is the very file the platform received.
          const unit = units.find((u) => u.video_key === key)!;
          const video = first.summary.videos.find((v) => v.path.includes((unit.id as string).slice(0, 8)))!;
          const upload = uploads.find((u) => u.id === video.publication.external_id);
          expect(createHash("sha256").update(bytes).digest("hex")).toBe(upload!.sha256);
        }
      }
    }
  }, 5 * 60_000);

  test("a second demo the same day publishes and renders nothing new", async () => {
    const sql = createSql(LOCAL_DB_URL, { max: 1 });
    const rendersBefore = (await sql`select count(*)::int as n from pgmq.a_render`)[0].n;
    const second = runDemo();
    expect(second.status).toBe(0);
    expect(second.summary.created).toBe(false);
    expect(second.summary.run_id).toBe(first.summary.run_id);
    expect(second.output).toContain("nothing new was published");
    expect((await emulatorVideos()).length).toBe(first.summary.videos.length);
    expect(await tiktokPosts()).toHaveLength(1);
    const meta = await metaPosts();
    expect([meta.instagram.length, meta.facebook.length]).toEqual([1, 1]);
    expect((await sql`select count(*)::int as n from pgmq.a_render`)[0].n).toBe(rendersBefore);
    expect((await sql`select count(*)::int as n from pgmq.q_render`)[0].n).toBe(0);
    const pubs = await sql`select count(*)::int as n from mdame.publications where status = 'published'`;
    // One per video on YouTube, the TikTok one, the Instagram one and the Facebook one.
    expect(pubs[0].n).toBe(first.summary.videos.length + 3);
    await sql.end();
  }, 10 * 60_000);

  test("after the demo, mdame spend --json gives each dimension's cost by provider, matching the paid calls the emulators answered", async () => {
    const result = spawnSync(process.execPath, [join(paths.root, "cli", "mdame.ts"), "spend", "--json"], {
      cwd: paths.root,
      encoding: "utf8",
      env: process.env,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const report = SpendReport.parse(JSON.parse(result.stdout));
    const recorded: Record<string, number> = {};
    for (const provider of report.dimensions.flatMap((d) => d.providers)) {
      recorded[provider.provider] = (recorded[provider.provider] ?? 0) + provider.calls - provider.cached_calls;
    }
    const { calls } = (await (await fetch(`${env.EMULATOR_URL}/_emulator/calls`)).json()) as { calls: Record<string, number> };
    expect(recorded).toEqual(calls);
    expect(report.dimensions.map((d) => d.dimension_id).sort()).toEqual(first.summary.videos.map((v) => v.dimension).sort());
    for (const dimension of report.dimensions) expect(dimension.usd).toBeGreaterThan(0);
  }, 60_000);
  test("--review: the first dimension's new video waits, mdame review list shows it, mdame review approve publishes it once", async () => {
    const sql = createSql(LOCAL_DB_URL, { max: 1 });
    const youtubeBefore = (await emulatorVideos()).length;
    const third = runDemo(["--review"]);
    expect(third.status).toBe(0);
    // Requiring review changed the first dimension's configuration: today's run starts it again, with its own allowance.
    expect(third.summary.created).toBe(true);
    expect(third.summary.awaiting_review).toHaveLength(1);
    const waiting = third.summary.awaiting_review[0]!;
    expect(waiting.dimension).toBe((await sql`select min(id) as id from mdame.dimensions where active`)[0].id);
    expect(third.output).toContain(`review approve ${waiting.unit_id}`);
    expect((await emulatorVideos()).length).toBe(youtubeBefore);
    expect((await sql`select count(*)::int as n from mdame.publications where unit_id = ${waiting.unit_id}`)[0].n).toBe(0);

    const listed = mdame(["review", "list", "--json"]);
    expect(listed.status).toBe(0);
    expect((JSON.parse(listed.stdout) as { unit_id: string }[]).map((r) => r.unit_id)).toEqual([waiting.unit_id]);
    expect(mdame(["review", "approve", waiting.unit_id]).status).toBe(0);
    // The stack's own stage runner publishes it, woken by the approval's publish task.
    const deadline = Date.now() + 5 * 60_000;
    while ((await sql`select stage from mdame.work_units where id = ${waiting.unit_id}`)[0].stage !== "published" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(mdame(["review", "approve", waiting.unit_id]).status).toBe(0);
    const pubs = await sql`select platform, status from mdame.publications where unit_id = ${waiting.unit_id} order by platform`;
    expect(pubs.map((p) => `${p.platform} ${p.status}`)).toEqual(["tiktok published", "youtube published"]);
    expect((await emulatorVideos()).length).toBe(youtubeBefore + 1);
    expect((await sql`select status from mdame.pipeline_runs where id = ${third.summary.run_id}`)[0].status).toBe("completed");
    await sql.end();
  }, 15 * 60_000);
});
