/**
 * The ops dashboard in a real headless Chromium (Debian's `chromium`, driven by puppeteer-core;
 * CHROMIUM_PATH overrides /usr/bin/chromium): the pipeline API served in-process over HTTP on the
 * real Postgres with the Storage emulator, today's run started through the API, a dead letter made
 * by the engine's own RPC, a published video with a real H.264 render in Storage, and the real
 * `mdame dashboard --no-browser --port 0` spawned as its own process. Checked as an operator would
 * see it: signed-out requests refused, the one-time sign-in, every page showing the seeded data, a
 * hostile title shown as text, the dead-letter retry through its confirmation (and its CSRF
 * refusals), run-now of a schedule, the render playing from its signed Storage URL, and a video
 * waiting for review approved with an edited title from its Review page.
 * With MDAME_WRITE_SCREENSHOTS=1 each page's screenshot is written to docs/reports/dashboard/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { startEmulator } from "../../emulators/main.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type PipelineServer, servePipeline } from "../fixtures/pipeline-server.ts";
import { DASHBOARD_SCREENSHOTS_DIR } from "../../scripts/docs/doc-paths.ts";
import { NAV } from "../../cli/dashboard/layout.ts";

/** The few DOM shapes the in-page functions use: the Bun side compiles without the DOM library. */
interface DomElement {
  innerText: string;
  value: string;
  src: string;
  remove(): void;
  getAttribute(name: string): string | null;
}
interface DomVideo {
  readyState: number;
  duration: number;
  videoWidth: number;
  videoHeight: number;
  error: { code: number } | null;
}
declare const document: { body: DomElement; cookie: string; querySelector(selector: string): unknown };

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const SCREENSHOTS = process.env.MDAME_WRITE_SCREENSHOTS === "1";
const STORAGE_KEY = randomBytes(32).toString("hex");
const HOSTILE_TITLE = `<script>document.title="owned"</script><img src=x onerror="document.title='owned'"> Why "quotes" & <b>tags</b> stay text`;

const admin = adminSql();
let storageDir: string;
let storage: Awaited<ReturnType<typeof startEmulator>>;
let storageStopped = false;
let pipeline: PipelineServer;
let dashboard: ReturnType<typeof Bun.spawn> | undefined;
let dashboardUrl: string;
let signInUrl: string;
let browser: Browser;
let page: Page;

interface Seeded {
  runId: string;
  deadLetterId: string;
  deadUnitId: string;
  publicationId: string;
  renderKey: string;
  renderPath: string;
}
let seeded: Seeded;

async function api(method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${pipeline.functionsUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${localStackEnv().SERVICE_ROLE_KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return await response.json();
}

/** A 2-second 270x480 H.264/AAC MP4 with its index first, as the renders are. */
async function renderFile(dir: string): Promise<string> {
  const file = join(dir, "render.mp4");
  const ffmpeg = spawnSync("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=270x480:rate=25",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440",
    "-t",
    "2",
    "-c:v",
    "libx264",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-movflags",
    "+faststart",
    file,
  ]);
  if (ffmpeg.status !== 0) throw new Error(`ffmpeg failed: ${ffmpeg.stderr}`);
  return file;
}

async function seed(): Promise<Seeded> {
  // Today's run, started as the CLI starts it.
  const run = await api("POST", "/pipeline/runs", { idempotency_key: `dashboard-browser-${crypto.randomUUID()}` }) as { run_id: string };
  const runId = run.run_id;
  const unit = async (name: string, stage: string, title: string, extra: { video?: unknown; quality?: unknown } = {}) => {
    const [row] = await admin`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script, video, quality)
      values (${runId}, 'tech-explained', ${`dash-${name}`}, ${`dash-${name}-fp`}, ${admin.json({ title })}, ${stage},
              ${admin.json({ title, narration: "words", description: "d", hashtags: ["#t"] })},
              ${extra.video === undefined ? null : admin.json(extra.video as never)}, ${
      extra.quality === undefined ? null : admin.json(extra.quality as never)
    })
      returning id`;
    return row!.id as string;
  };
  const deadUnitId = await unit("dead", "script", "A unit whose script kept failing");
  await unit("rendering", "render", "Still rendering");
  const renderKey = "renders/dashboard-browser.mp4";
  const publishedUnit = await unit("published", "published", HOSTILE_TITLE, {
    video: { video_key: renderKey, duration_s: 2, width: 270, height: 480 },
    quality: {
      passed: true,
      integrated_lufs: -14.1,
      true_peak_dbtp: -1.4,
      duration_s: 2,
      checks: [{ check: "integrated_loudness", passed: true, value: -14.1, unit: "LUFS", bound: "-14 +-1 LUFS", reason: null }],
      failures: [],
    },
  });
  const renderPath = await renderFile(storageDir);
  await pipeline.deps.store.putFile(renderKey, renderPath, "video/mp4");

  await admin`insert into mdame.scene_cache (scene_hash, backend, asset_key, credit) values
    (${"d".repeat(64)}, 'pexels/777', 'scenes/d.mp4', ${
    admin.json({ provider: "Pexels", author: "Dash Author", source_url: "https://www.pexels.com/video/777/" })
  })`;
  await admin`insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit, backend) values
    (${publishedUnit}, 0, 'city', 'The first scene speaks', 0, 2, ${"d".repeat(64)}, 'ready', 'scenes/d.mp4', false, 'pexels/777')`;
  const [account] = await admin`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, credentials_enc, granted_scopes)
    values ('tech-explained', 'youtube', '@dash-channel', 'sealed', ${["https://www.googleapis.com/auth/youtube.upload"]}) returning id`;
  await admin`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, credentials_enc, health_state, health_reason, health_since)
    values ('sains-singkat', 'youtube', '@dash-broken', 'sealed', 'needs_reconnect', 'invalid_grant', now())`;
  const [publication] = await admin`insert into mdame.publications (unit_id, account_id, platform, status, external_id, video_key, published_at, privacy_status)
    values (${publishedUnit}, ${
    account!.id
  }, 'youtube', 'published', 'dashVideo01', ${renderKey}, mdame.engine_now() - interval '1 hour', 'public') returning id`;
  await admin`insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                                 average_view_duration_s, average_view_percentage, likes, retention)
    values (${publication!.id}, 3, now(), current_date - 3, current_date, 4321, 3000, 1.5, 75.5, 77, ${admin.json([])})`;
  const day = admin`mdame.youtube_quota_day(mdame.engine_now())`;
  await admin`insert into mdame.quota_ledger (oauth_client_id, account_id, call_kind, bucket, cost, quota_day, status, created_at)
    values ('default', ${account!.id}, 'videos.insert', 'uploads', 1, ${day}, 'settled', mdame.engine_now())`;

  // Two render-runners on two machines, one of them silent for ten minutes, and a gpu-worker.
  await admin`select mdame.record_worker_heartbeat('render-runner-box-1-4121-9f3a1c', 'render', 'box-1', 4121, 2, 1, 15)`;
  await admin`select mdame.record_worker_heartbeat('render-runner-box-2-733-04be7d', 'render', 'box-2', 733, 2, 2, 15)`;
  await admin`update mdame.worker_heartbeats set last_beat_at = clock_timestamp() - interval '10 minutes' where host = 'box-2'`;
  await admin`select mdame.record_worker_heartbeat('gpu-worker-gpu-1-90-c0ffee', 'visual_generation', 'gpu-1', 90, 1, 0, 15)`;

  // A stage task that used up its attempts, dead-lettered by the engine's own decision.
  const payload = { stage: "script", run_id: runId, unit_id: deadUnitId, step_token: `step:${deadUnitId}:1:${"a".repeat(64)}` };
  const [sent] = await admin`select pgmq.send('stage_tasks', ${admin.json(payload)}) as id`;
  await admin`select mdame.retry_or_dead_letter('stage_tasks', 'script', ${sent!.id}::bigint, 9, ${admin.json(payload)}, ${deadUnitId}::uuid, ${runId}::uuid,
                                                'the LLM answered 503 three times', false)`;
  const [dead] = await admin`select id::text from mdame.dead_letters where msg_id = ${sent!.id}`;
  return { runId, deadLetterId: dead!.id as string, deadUnitId, publicationId: publication!.id as string, renderKey, renderPath };
}

/** Reads the child's stdout until the sign-in line. */
async function readSignIn(child: ReturnType<typeof Bun.spawn>): Promise<{ url: string; signIn: string }> {
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!/sign in \(this link works once\): (\S+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`mdame dashboard ended before printing its link: ${text}${await new Response(child.stderr as ReadableStream).text()}`);
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return { url: /dashboard at (\S+)/.exec(text)![1]!, signIn: /sign in \(this link works once\): (\S+)/.exec(text)![1]! };
}

async function screenshot(name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: join(DASHBOARD_SCREENSHOTS_DIR, `${name}.png`) as `${string}.png`, fullPage: true });
}

const text = (p: Page = page) => p.evaluate(() => document.body.innerText);

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`);
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  storageDir = await mkdtemp(join(tmpdir(), "mdame-it-dashboard-"));
  storage = await startEmulator({ port: 0, dataDir: join(storageDir, "emulator"), storageServiceKey: STORAGE_KEY, log: () => {} });
  pipeline = servePipeline({
    ...localStackEnv(),
    STORAGE_BACKEND: "supabase",
    SUPABASE_URL: storage.url,
    SUPABASE_SERVICE_ROLE_KEY: STORAGE_KEY,
    STORAGE_BUCKET: "mdame-dashboard-it",
    LOG_LEVEL: "warn",
  });
  seeded = await seed();

  dashboard = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), "dashboard", "--no-browser", "--port", "0"], {
    cwd: paths.root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      FUNCTIONS_URL: pipeline.functionsUrl,
      SERVICE_ROLE_KEY: localStackEnv().SERVICE_ROLE_KEY,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  ({ url: dashboardUrl, signIn: signInUrl } = await readSignIn(dashboard));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  dashboard?.kill("SIGTERM");
  await dashboard?.exited;
  await pipeline?.stop();
  if (!storageStopped) await storage?.stop();
  await db.reset({ log: () => {} });
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
}, 60_000);

describe("mdame dashboard in Chromium", () => {
  test("binds 127.0.0.1 and refuses a signed-out browser (401 page) and a signed-out script (401 JSON)", async () => {
    expect(dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(signInUrl.startsWith(`${dashboardUrl}sign-in?token=`)).toBe(true);
    const response = await page.goto(`${dashboardUrl}dead-letters`);
    expect(response!.status()).toBe(401);
    expect(await text()).toContain("Sign in with the link");
    expect(await text()).not.toContain("the LLM answered 503");
    const json = await fetch(`${dashboardUrl}queues`, { headers: { accept: "application/json" } });
    expect(json.status).toBe(401);
    expect(await json.json()).toEqual({ error: expect.stringContaining("Sign in") });
  }, 30_000);

  test("the sign-in link sets an HttpOnly SameSite=Strict cookie, leaves no token in the address bar, and works once", async () => {
    const response = await page.goto(signInUrl);
    expect(response!.status()).toBe(200);
    expect(page.url()).toBe(dashboardUrl);
    const cookies = await browser.cookies();
    const session = cookies.find((c) => c.name === "mdame_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    expect(await page.evaluate(() => document.cookie)).toBe("");

    const other = await browser.createBrowserContext();
    const stranger = await other.newPage();
    const reused = await stranger.goto(signInUrl);
    expect(reused!.status()).toBe(401);
    expect(await text(stranger)).toContain("used already");
    expect((await stranger.goto(dashboardUrl))!.status()).toBe(401);
    await other.close();
  }, 30_000);

  test("overview: today's run per dimension with its funnel, counts by state and the last failures", async () => {
    const response = await page.goto(dashboardUrl);
    expect(response!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response!.headers()["cache-control"]).toBe("no-store");
    const row = await page.$eval('tr[data-dimension="tech-explained"]', (el) => (el as unknown as DomElement).innerText);
    expect(row).toContain("running");
    const body = await text();
    expect(body).toContain("Counts by state");
    expect(body).toContain("the LLM answered 503 three times");
    expect(body).toContain(`dead letter ${seeded.deadLetterId}`);
    await screenshot("overview");
  }, 30_000);

  test("queues: each pgmq queue's depth and pull workers, the leases and the lease holders", async () => {
    await page.goto(`${dashboardUrl}queues`);
    const names = await page.$$eval("tr[data-queue]", (rows) => rows.map((r) => (r as unknown as DomElement).getAttribute("data-queue")));
    expect(names.sort()).toEqual(["analytics_fetches", "render", "stage_tasks", "thumbnail_sets", "visual_generation"]);
    const workers = await page.$$eval("tr[data-worker]", (rows) => rows.map((r) => (r as unknown as DomElement).innerText));
    expect(workers).toHaveLength(3);
    expect(workers.find((w) => w.includes("box-1"))).toMatch(/1 of 2.*live/);
    expect(workers.find((w) => w.includes("box-2"))).toMatch(/2 of 2.*stale/);
    const renderRow = await page.$eval("tr[data-queue=render]", (r) => (r as unknown as DomElement).innerText);
    expect(renderRow).toContain("1 live of 2");
    expect(await text()).toContain("Lease holders");
    await screenshot("queues");
  }, 30_000);

  test("videos: the publication with its platform link, the hostile title shown as text and nothing run", async () => {
    await page.goto(`${dashboardUrl}videos`);
    const row = await page.$(`tr[data-video="${seeded.publicationId}"]`);
    expect(row).not.toBeNull();
    expect(await row!.$eval("a", (a) => (a as unknown as DomElement).innerText)).toBe(HOSTILE_TITLE);
    expect(await page.$$eval(`a[href="https://www.youtube.com/shorts/dashVideo01"]`, (a) => a.length)).toBe(1);
    expect(await page.$$eval("script, img", (els) => els.length)).toBe(0);
    expect(await page.title()).not.toContain("owned");
    await screenshot("videos");
  }, 30_000);

  test("one video: quality measures, scenes with backend and credit, analytics, and the render playing from a signed URL", async () => {
    const response = await page.goto(`${dashboardUrl}videos/${seeded.publicationId}`);
    const body = await text();
    expect(body).toContain("integrated_loudness");
    expect(body).toContain("pexels/777");
    expect(body).toContain("Dash Author");
    expect(body).toContain("4321");
    const src = await page.$eval("video#render", (v) => (v as unknown as DomElement).src);
    expect(src.startsWith(`${storage.url}/storage/v1/object/sign/`)).toBe(true);
    expect(response!.headers()["content-security-policy"]).toContain(`media-src ${new URL(storage.url).origin}`);
    await page.waitForFunction(() => (document.querySelector("video#render") as DomVideo).readyState >= 1, { timeout: 20_000 });
    const played = await page.$eval("video#render", (v) => {
      const video = v as unknown as DomVideo;
      return { duration: video.duration, width: video.videoWidth, height: video.videoHeight, error: video.error?.code ?? null };
    });
    expect(played.error).toBeNull();
    expect(played.duration).toBeCloseTo(2, 0);
    expect([played.width, played.height]).toEqual([270, 480]);
    // The same bytes Storage holds.
    const bytes = new Uint8Array(await (await fetch(src)).arrayBuffer());
    expect(bytes).toEqual(new Uint8Array(await readFile(seeded.renderPath)));
    await screenshot("video");
  }, 60_000);

  test("quota, account health, analytics and schedules show the seeded rows", async () => {
    await page.goto(`${dashboardUrl}quota`);
    let body = await text();
    expect(body).toContain("@dash-channel");
    expect(body).toContain("needs_reconnect");
    expect(body).toContain("invalid_grant");
    expect(body).toContain("missing https://www.googleapis.com/auth/youtube.readonly");
    expect(await page.$(`tr[data-bucket="default/uploads"]`)).not.toBeNull();
    await screenshot("quota");

    await page.goto(`${dashboardUrl}analytics`);
    const row = await page.$eval(`tr[data-publication="${seeded.publicationId}"]`, (el) => (el as unknown as DomElement).innerText);
    expect(row).toContain("4321");
    expect(row).toContain("75.5 %");
    // This week's charts: the operator API's SVG, decoded by Chromium under the dashboard's CSP.
    const chart = await page.$eval("img.chart", (el) => {
      const img = el as unknown as { complete: boolean; naturalWidth: number; alt: string };
      return { complete: img.complete, width: img.naturalWidth, alt: img.alt };
    });
    expect(chart.complete).toBe(true);
    expect(chart.width).toBeGreaterThan(500);
    expect(chart.alt).toStartWith("This week's charts of ");
    await screenshot("analytics");

    await page.goto(`${dashboardUrl}schedules`);
    body = await text();
    expect(await page.$('tr[data-schedule="mdame-tick"]')).not.toBeNull();
    await screenshot("schedules");
  }, 30_000);

  test("a POST without the CSRF token, or from another origin, is refused (403) and retries nothing", async () => {
    // The confirmation's own form, its token taken out, then replaced by a forged one.
    const forged: number[] = [];
    for (const edit of ["remove", "forge"] as const) {
      await page.goto(`${dashboardUrl}dead-letters/${seeded.deadLetterId}/retry`);
      await page.evaluate((how) => {
        const input = document.querySelector('form.confirm input[name="csrf"]') as unknown as DomElement;
        if (how === "remove") input.remove();
        else input.value = "forged-token";
      }, edit);
      const [refused] = await Promise.all([page.waitForNavigation(), page.click('form.confirm button[type="submit"]')]);
      forged.push(refused!.status());
      expect(await text()).toContain("security token is missing or out of date");
    }
    expect(forged).toEqual([403, 403]);
    const cookie = (await browser.cookies()).find((c) => c.name === "mdame_session")!;
    await page.goto(`${dashboardUrl}dead-letters/${seeded.deadLetterId}/retry`);
    const csrf = await page.$eval('form.confirm input[name="csrf"]', (i) => (i as unknown as DomElement).value);
    const crossSite = await fetch(`${dashboardUrl}dead-letters/${seeded.deadLetterId}/retry`, {
      method: "POST",
      headers: { cookie: `mdame_session=${cookie.value}`, origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf }),
    });
    expect(crossSite.status).toBe(403);
    const [dead] = await admin`select retried_msg_id from mdame.dead_letters where id = ${seeded.deadLetterId}`;
    expect(dead!.retried_msg_id).toBeNull();
  }, 30_000);

  test("retry of a dead letter through its confirmation queues the message again and shows it retried", async () => {
    await page.goto(`${dashboardUrl}dead-letters`);
    await screenshot("dead-letters");
    await Promise.all([page.waitForNavigation(), page.click(`#dead-letter-${seeded.deadLetterId} a.button`)]);
    expect(page.url()).toBe(`${dashboardUrl}dead-letters/${seeded.deadLetterId}/retry`);
    expect(await text()).toContain("the LLM answered 503 three times");
    await screenshot("retry-confirmation");
    await Promise.all([page.waitForNavigation(), page.click('form.confirm button[type="submit"]')]);
    const msgId = Number(/message (\d+) queued on stage_tasks/.exec(await text())?.[1]);
    expect(msgId).toBeGreaterThan(0);

    const [dead] = await admin`select retried_msg_id::int as retried from mdame.dead_letters where id = ${seeded.deadLetterId}`;
    expect(dead!.retried).toBe(msgId);
    const [queued] = await admin`select message->>'unit_id' as unit_id from pgmq.q_stage_tasks where msg_id = ${msgId}`;
    expect(queued!.unit_id).toBe(seeded.deadUnitId);
    const [unit] = await admin`select stage, error from mdame.work_units where id = ${seeded.deadUnitId}`;
    expect(unit).toEqual({ stage: "script", error: null });

    await page.goto(`${dashboardUrl}dead-letters`);
    const row = await page.$eval(`#dead-letter-${seeded.deadLetterId}`, (el) => (el as unknown as DomElement).innerText);
    expect(row).toContain(`retried as message ${msgId}`);
    expect(await page.$(`#dead-letter-${seeded.deadLetterId} a.button`)).toBeNull();
  }, 30_000);

  test("run now: a schedule's confirmation runs its engine function and shows the result", async () => {
    await page.goto(`${dashboardUrl}schedules`);
    await Promise.all([page.waitForNavigation(), page.click('tr[data-schedule="mdame-alerts"] a.button')]);
    expect(await text()).toContain("Run mdame-alerts now?");
    await Promise.all([page.waitForNavigation(), page.click('form.confirm button[type="submit"]')]);
    expect(await text()).toContain("mdame-alerts ran mdame.check_alerts()");
    const result = await page.$eval("pre.result", (pre) => (pre as unknown as DomElement).innerText);
    expect(() => JSON.parse(result)).not.toThrow();
  }, 30_000);

  test("review: the waiting video plays from its signed URL, and approving it with an edited title queues its publishing", async () => {
    // A unit of a run that requires review, whose render passed the gate: complete_render_job sends it to awaiting_review.
    const [unit] = await admin`insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
      values (${seeded.runId}, 'tech-explained', 'dash-review', 'dash-review-fp', ${admin.json({ title: "Review me" })}, 'render',
              ${admin.json({ title: "Review me, a title to edit", narration: "words", description: "d", hashtags: ["#t"] })}) returning id`;
    const unitId = unit!.id as string;
    await admin`update mdame.run_dimensions set config = config || '{"review": {"required": true, "expires_after": "24h", "on_expiry": "reject"}}'::jsonb
                 where run_id = ${seeded.runId} and dimension_id = 'tech-explained'`;
    const [msg] = await admin`select pgmq.send('render', ${admin.json({ unit_id: unitId })}) as id`;
    await admin`select mdame.complete_render_job(${msg!.id}::bigint, ${unitId}::uuid, ${admin.json({ video_key: seeded.renderKey, duration_s: 2 })},
                                                 'wh-dash-review', '{"passed": true}'::jsonb)`;

    await page.goto(`${dashboardUrl}review`);
    await Promise.all([page.waitForNavigation(), page.click(`#review-${unitId} a`)]);
    expect(await text()).toContain("Review me, a title to edit");
    await page.waitForFunction(() => (document.querySelector("video#render") as DomVideo).readyState >= 1, { timeout: 20_000 });
    expect(await page.$eval("video#render", (v) => (v as unknown as DomVideo).error?.code ?? null)).toBeNull();

    await page.$eval('input[name="title"]', (el) => void ((el as unknown as DomElement).value = "An edited title from the dashboard"));
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/approve"] button[type="submit"]')]);
    expect(await text()).toContain("queued for publishing");
    const [after] = await admin`select stage, script->>'title' as title,
                                       (select count(*)::int from pgmq.q_stage_tasks q where q.message->>'unit_id' = ${unitId} and q.message->>'stage' = 'publish') as tasks
                                  from mdame.work_units where id = ${unitId}`;
    expect(after).toEqual({ stage: "publish", title: "An edited title from the dashboard", tasks: 1 });
  }, 60_000);

  test("a section whose API call fails says so, and the page around it still renders", async () => {
    // Storage gone: the video's route cannot sign its render's URL and fails.
    await storage.stop();
    storageStopped = true;
    const response = await page.goto(`${dashboardUrl}videos/${seeded.publicationId}`);
    expect(response!.status()).toBe(200);
    const body = await text();
    expect(body).toContain(`Could not load video ${seeded.publicationId}.`);
    expect(body).toContain(`HTTP 500 from GET ${pipeline.functionsUrl}/pipeline/ops/videos/${seeded.publicationId}`);
    expect(body).not.toMatch(/\n\s+at /);
    expect(await page.$$eval("nav a", (links) => links.map((a) => a.getAttribute("href")))).toEqual(NAV.map((n) => n.path));
    // The other pages do not need Storage.
    await page.goto(`${dashboardUrl}videos`);
    expect(await page.$(`tr[data-video="${seeded.publicationId}"]`)).not.toBeNull();
  }, 30_000);

  test("sign-out ends the session: the next page is refused", async () => {
    await page.goto(`${dashboardUrl}queues`);
    await Promise.all([page.waitForNavigation(), page.click("form.sign-out button")]);
    expect(await text()).toContain("This browser is signed out");
    expect((await page.goto(`${dashboardUrl}queues`))!.status()).toBe(401);
  }, 30_000);

  test("Ctrl-C stops it: the command exits 0 and the port answers no more", async () => {
    dashboard!.kill("SIGINT");
    expect(await dashboard!.exited).toBe(0);
    expect(await new Response(dashboard!.stderr as ReadableStream).text()).toBe("");
    let refused = false;
    try {
      await fetch(dashboardUrl);
    } catch {
      refused = true;
    }
    expect(refused).toBe(true);
  }, 30_000);
});
