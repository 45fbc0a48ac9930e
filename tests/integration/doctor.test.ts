/**
 * `mdame doctor` against the running local stack (real Postgres, edge host, workers and emulators):
 * every line is ok on a stack as `npm run stack` leaves it; each unreachable provider, a refused key
 * and a check that never answers are each named on their own FAIL line with exit 1; no secret value
 * is ever printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import postgres from "postgres";
import { LOCAL_DB_URL, LOCAL_EMULATOR_URL, LOCAL_FUNCTIONS_URL, LOCAL_STACK } from "../../shared/config/local-stack.ts";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { encryptCredentials } from "../../shared/crypto/credentials.ts";
import { fetchTrendingTopics } from "../../shared/providers/trends/google-trends-rss.ts";
import { LOCAL_TELEGRAM_CHAT_ID, readStackEnv } from "../../stack/stack-env.ts";
import { main } from "../../cli/main.ts";
import * as db from "../../stack/db.ts";
import { paths, pidFile } from "../../stack/paths.ts";
import { serverPgmqVersion } from "../../stack/pg-server.ts";
import { type StackHandle, startStack, supervisorPid } from "../../stack/stack-control.ts";
import { connectMetaAccounts, connectMetaThroughCli, connectTestAccounts, connectTikTokAccount } from "../fixtures/connect-accounts.ts";
import { EDGE_TTS_PATH, freePort } from "./fixtures/emulator-harness.ts";

let stack: StackHandle;
let stackEnv: Record<string, string>;
/** The dimension whose Instagram account and Facebook Page are connected (the demo's second). */
let metaDimension: string;

/** Both Meta accounts connected again through `mdame account connect`, as after a revoked grant. */
async function connectMetaAccountsAgain(): Promise<void> {
  for (const platform of ["instagram", "facebook"] as const) await connectMetaThroughCli(stackEnv, platform, metaDimension, `${metaDimension}-meta`);
}
/** `dimension <id>` lines the seeded database should produce. */
let dimensionLines: string[];
/** `category <id>` lines: each of those dimensions' category, asked as its account (videoCategories.list). */
let categoryLines: RegExp[];
let trendCount: number;
/** The active accounts of the active dimensions, YouTube's and TikTok's. */
let accountCount: number;
let scheduleLine: string;
/** What the roles may call, as mdame.component_roles declares it: the doctor reads the grants from the catalogs and must find the same. */
let rolesLine: string;

beforeAll(async () => {
  if (supervisorPid() === null) {
    // A stack of our own starts from the seed: the demo dimensions, no accounts yet.
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
  }
  stack = await startStack({ quiet: true, timeoutMs: 180_000 });
  // Accounts come from `mdame account connect`, as a person adds them; as in the demo, the first
  // dimension also publishes to TikTok and the second to Instagram and Facebook, so their grants are
  // checked at TikTok's and Meta's own token endpoints.
  const [first, second] = (await connectTestAccounts()).map((c) => c.dimension).sort();
  stackEnv = readStackEnv();
  await connectTikTokAccount(stackEnv, first!, `${first}-tiktok`);
  await connectMetaAccounts(stackEnv, second!, `${second}-meta`);
  metaDimension = second!;
  // The tables, as the superuser: stack.env's DB_URL is the engine role, which may only call the RPCs.
  const sql = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ id: string; handles: string[] }[]>`
      -- Each dimension's accounts in the order mdame.get_accounts lists them: platform, then handle.
      select d.id, array_agg(a.channel_handle order by a.platform, a.channel_handle) as handles
      from mdame.dimensions d join mdame.dimension_accounts a on a.dimension_id = d.id and a.active
      where d.active group by d.id order by d.id`;
    accountCount = rows.reduce((n, r) => n + r.handles.length, 0);
    dimensionLines = rows.map((r) =>
      `ok   database/dimension ${r.id}: ${r.handles.length} active account${r.handles.length === 1 ? "" : "s"} (${
        r.handles.join(", ")
      }): credentials decrypt, refresh token accepted`
    );
    // The seeded dimensions keep the default category, Education; the emulator's channels name no country.
    categoryLines = rows.map((r) => new RegExp(`^ok   providers/category ${r.id}: category 27 \\(Education\\) is assignable in region US$`));
    // Every job the database declares, as pg_cron holds it, in the order it was scheduled.
    const jobs = await sql<{ name: string; schedule: string }[]>`
      select e.name, j.schedule from mdame.engine_jobs e join cron.job j on j.jobname = e.name order by j.jobid`;
    const [cron] = await sql<{ version: string }[]>`select extversion as version from pg_extension where extname = 'pg_cron'`;
    scheduleLine = `ok   database/pg_cron: extension ${cron!.version}; schedules ${jobs.map((j) => `${j.name} (${j.schedule})`).join(", ")}`;
    const roles = await sql<{ role: string; component: string; rpcs: string[] }[]>`
      select c.role, c.component, array(select distinct r from unnest(c.rpcs) r order by r) as rpcs from mdame.component_roles c order by c.role`;
    rolesLine = `ok   database/component roles: ${
      roles.map((r) => `${r.role} (${r.component}): ${r.rpcs.length} RPCs${r.component === "edge" ? "" : ` (${r.rpcs.join(", ")})`}`).join("; ")
    }`;
  } finally {
    await sql.end({ timeout: 2 });
  }
  trendCount = (await fetchTrendingTopics({ baseUrl: LOCAL_EMULATOR_URL, geo: "US" })).length;
}, 240_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

/** Runs `mdame doctor` in-process with exactly `env` (nothing from this process's environment). */
async function doctor(env: Record<string, string>, args: string[] = []) {
  let out = "";
  let err = "";
  const code = await main(["doctor", ...args], {
    out: { write: (text: string) => (out += text) },
    err: { write: (text: string) => (err += text) },
    env,
    stackEnvFile: paths.stackEnv,
  });
  const checks = out.split("\n").filter((line) => /^(ok  |warn|FAIL) /.test(line));
  return { code, out, err, checks };
}

const line = (checks: string[], prefix: string) => checks.find((l) => l.startsWith(prefix));
const wss = `ws://${LOCAL_STACK.host}:${LOCAL_STACK.emulatorPort}${EDGE_TTS_PATH}`;

/** A running component's environment, as its process holds it (/proc/<pid>/environ). */
function componentEnv(component: string): Record<string, string> {
  const pid = readFileSync(pidFile(component), "utf8").trim();
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean).map((
      entry,
    ) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );
}

describe("each component's database role on the running stack", () => {
  test("the workers connect as roles of their own, hold no credentials key, and are refused start_run and get_accounts", async () => {
    const edge = componentEnv("edge");
    const users = Object.fromEntries(["edge", "gpu-worker", "render-runner"].map((c) => [c, decodeURIComponent(new URL(componentEnv(c).DB_URL!).username)]));
    expect(users).toEqual({ edge: "mdame_engine", "gpu-worker": "mdame_gpu_worker", "render-runner": "mdame_render_runner" });
    expect(edge.CREDENTIALS_KEY).toBe(stackEnv.CREDENTIALS_KEY);
    for (const worker of ["gpu-worker", "render-runner"]) expect(componentEnv(worker).CREDENTIALS_KEY).toBeUndefined();

    const runner = postgres(componentEnv("render-runner").DB_URL!, { max: 1, onnotice: () => {} });
    try {
      const refused = async (query: () => Promise<unknown>) => {
        const error = await query().then(() => null, (e: unknown) => e as { code?: string; message?: string });
        return error && `${error.code}: ${error.message}`;
      };
      expect(await refused(() => runner`select * from mdame.start_run('probe', 'dev', 'manual', current_date)`)).toBe(
        "42501: permission denied for function start_run",
      );
      expect(await refused(() => runner`select * from mdame.get_accounts()`)).toBe("42501: permission denied for function get_accounts");
      // What it does call still works.
      expect(await refused(() => runner`select mdame.assert_environment('dev')`)).toBeNull();
    } finally {
      await runner.end({ timeout: 2 });
    }
  });
});

describe("mdame doctor on the local stack", () => {
  test("every check is ok, line by line, and it exits 0", async () => {
    const run = await doctor({});
    const expected: (string | RegExp)[] = [
      "ok   environment/variables: every variable the components read is set and valid",
      "ok   environment/guard: ENV=dev: emulator (loopback) URLs are allowed",
      "ok   secrets/WEBHOOK_SECRET: whsec_ + base64 of 32 bytes",
      "ok   secrets/CREDENTIALS_KEY: base64 of 32 bytes (AES-256-GCM key)",
      "ok   secrets/SERVICE_ROLE_KEY: set (64 characters)",
      new RegExp(`^ok   database/database: reachable at 127\\.0\\.0\\.1:${LOCAL_STACK.dbPort}/postgres \\(PostgreSQL 15\\.`),
      "ok   database/schema: the mdame schema is installed",
      "ok   database/environment: ENV=dev matches the environment the database records",
      // The real extension on a server that has it (MDAME_PG_BINDIR, docs/reference/supabase-wiring.md).
      `ok   database/pgmq: ${
        serverPgmqVersion() === null ? "pgmq-compatible SQL" : `extension ${serverPgmqVersion()}`
      }; queues stage_tasks, visual_generation, render`,
      scheduleLine,
      // The stack's Telegram bot and chat are in Vault; no outside monitor is configured.
      /^ok   database\/watchdog: nothing failing; (no tick has ended yet|the last tick ended \d+ s ago); it pages through Telegram from the database \(no outside monitor: Vault secret mdame_heartbeat_url\)$/,
      /^ok   database\/engine role: mdame_engine may only call the RPCs \(no TEMP or CREATE, no role attributes, memberships or session defaults; row-level security on all \d+ mdame tables\)\. mdame_engine can still change its own password/,
      rolesLine,
      ...dimensionLines,
      "ok   database/account grants: no account needs reconnecting",
      "ok   database/upload privacy: no upload was made private against the privacy asked",
      // Every account is on the environment's client: the project default, planned within its 100 uploads a day.
      /^ok   database\/youtube projects: planned uploads a day fit every project's bucket \(default \d+\/100\)$/,
      // Every account was connected with the stack's key: the functions' census finds them all on it.
      `ok   database/credential keys: all ${accountCount} account${accountCount === 1 ? "" : "s"} sealed with the current key (ring: current ${
        credentialKeyRing({ CREDENTIALS_KEY: stackEnv.CREDENTIALS_KEY! }).current.kid
      })`,
      /^ok   database\/sizes: database [0-9.]+ (B|KiB|MiB|GiB); storage [0-9.]+ (B|KiB|MiB|GiB) in \d+ objects.* \(mdame storage usage\)$/,
      `ok   functions/pipeline: functions at ${LOCAL_FUNCTIONS_URL} answer (ENV=dev) and accept SERVICE_ROLE_KEY`,
      ...categoryLines,
      `ok   providers/gemini: key accepted; model gemini-2.5-flash (Gemini 2.5 Flash) at ${LOCAL_EMULATOR_URL}`,
      `ok   providers/openai-compat: key accepted; models listed at ${LOCAL_EMULATOR_URL}/v1`,
      `ok   providers/edge-tts: WebSocket handshake accepted at ${wss}`,
      `ok   providers/google-oauth: client accepted by ${LOCAL_EMULATOR_URL}/token (a made-up refresh token is refused with invalid_grant)`,
      `ok   providers/youtube: upload host ${LOCAL_EMULATOR_URL} answers (401 without credentials, as expected)`,
      `ok   providers/trends: feed at ${LOCAL_EMULATOR_URL} lists ${trendCount} trending topics for US`,
      `ok   providers/pexels: key accepted; search answered at ${LOCAL_EMULATOR_URL}`,
      // The engine creates its bucket on its first upload: before a run, the bucket may not exist yet.
      new RegExp(
        `^ok   providers/storage: Supabase Storage at ${LOCAL_EMULATOR_URL}(: bucket mdame-dev exists \\(private\\)| accepts the key; bucket mdame-dev does not exist yet and is created \\(private\\) on the first upload)$`,
      ),
      `ok   providers/telegram: bot @mdame_emulated_bot answers at ${LOCAL_EMULATOR_URL}; alerts go to chat ${LOCAL_TELEGRAM_CHAT_ID}`,
    ];
    expect(dimensionLines.length).toBeGreaterThan(0);
    expect(run.checks.length).toBe(expected.length);
    expected.forEach((want, i) => {
      if (typeof want === "string") expect(run.checks[i]).toBe(want);
      else expect(run.checks[i]).toMatch(want);
    });
    expect(run.out).toContain(`Configuration (the environment first, then ${paths.stackEnv}):`);
    expect(run.out).toContain(`${expected.length} ok, 0 warn, 0 failed: ready`);
    expect(run.code).toBe(0);
  }, 60_000);

  test("says where each variable came from: the environment wins over stack.env, per variable", async () => {
    const run = await doctor({ GEMINI_MODEL: "gemini-2.5-pro", LOG_LEVEL: "warn" });
    const rows = run.out.split("\n").filter((l) => /^  [A-Z_]+ /.test(l)).map((l) => l.trim().split(/\s{2,}/));
    const source = (name: string) => rows.find((r) => r[0] === name);
    expect(source("GEMINI_MODEL")).toEqual(["GEMINI_MODEL", "gemini-2.5-pro", "environment"]);
    expect(source("LOG_LEVEL")).toEqual(["LOG_LEVEL", "warn", "environment"]);
    expect(source("GEMINI_BASE_URL")).toEqual(["GEMINI_BASE_URL", LOCAL_EMULATOR_URL, paths.stackEnv]);
    expect(source("DB_URL")).toEqual(["DB_URL", `postgres://mdame_engine:*****@127.0.0.1:${LOCAL_STACK.dbPort}/postgres`, paths.stackEnv]);
    expect(source("GEMINI_API_KEY")).toEqual(["GEMINI_API_KEY", `set (${stackEnv.GEMINI_API_KEY!.length} characters)`, paths.stackEnv]);
    expect(source("YOUTUBE_UPLOAD_BASE_URL")?.[2]).toBe(paths.stackEnv);
    expect(source("FFMPEG_PATH")).toEqual(["FFMPEG_PATH", "-", "not set"]);
    expect(line(run.checks, "ok   providers/gemini:")).toBe(
      `ok   providers/gemini: key accepted; model gemini-2.5-pro (Gemini 2.5 Pro) at ${LOCAL_EMULATOR_URL}`,
    );
  }, 60_000);

  test("names each unreachable provider, the database and the functions, and exits 1", async () => {
    const closed = await freePort();
    const at = `http://127.0.0.1:${closed}`;
    const run = await doctor({
      DB_URL: `postgres://postgres:postgres@127.0.0.1:${closed}/postgres`,
      FUNCTIONS_URL: `${at}/functions/v1`,
      GEMINI_BASE_URL: at,
      EDGE_TTS_WSS_URL: `ws://127.0.0.1:${closed}${EDGE_TTS_PATH}`,
      GOOGLE_OAUTH_TOKEN_URL: `${at}/token`,
      YOUTUBE_UPLOAD_BASE_URL: at,
      TRENDS_BASE_URL: at,
      STORAGE_BACKEND: "supabase",
      SUPABASE_URL: at,
      OPENAI_COMPAT_BASE_URL: `${at}/v1`,
      PEXELS_BASE_URL: at,
    }, ["--timeout", "5"]);
    expect(run.code).toBe(1);
    const failed = run.checks.filter((l) => l.startsWith("FAIL"));
    expect(failed.map((l) => l.split(":")[0])).toEqual([
      "FAIL database/database",
      "FAIL functions/pipeline",
      "FAIL providers/gemini",
      "FAIL providers/openai-compat",
      "FAIL providers/edge-tts",
      "FAIL providers/google-oauth",
      "FAIL providers/youtube",
      "FAIL providers/trends",
      "FAIL providers/pexels",
      "FAIL providers/storage",
    ]);
    expect(line(failed, "FAIL database/database")).toStartWith(`FAIL database/database: cannot connect to 127.0.0.1:${closed}/postgres: `);
    expect(line(failed, "FAIL functions/pipeline")).toStartWith(`FAIL functions/pipeline: cannot reach ${at}/functions/v1: `);
    expect(line(failed, "FAIL providers/gemini")).toStartWith(`FAIL providers/gemini: cannot reach ${at}: `);
    expect(line(failed, "FAIL providers/edge-tts")).toStartWith(`FAIL providers/edge-tts: cannot reach ws://127.0.0.1:${closed}${EDGE_TTS_PATH}: `);
    expect(line(failed, "FAIL providers/google-oauth")).toStartWith(`FAIL providers/google-oauth: cannot reach ${at}/token: `);
    expect(line(failed, "FAIL providers/youtube")).toStartWith(`FAIL providers/youtube: cannot reach ${at}: `);
    expect(line(failed, "FAIL providers/trends")).toStartWith(`FAIL providers/trends: cannot reach ${at}: `);
    expect(line(failed, "FAIL providers/storage")).toStartWith(`FAIL providers/storage: cannot reach Supabase Storage at ${at}: `);
    for (const l of failed) expect(l).toMatch(/ECONNREFUSED|Unable to connect|refused/i);
    // Each failure says how to fix it.
    expect(run.out).toContain("     fix: check GEMINI_BASE_URL");
    expect(run.out).toContain("     fix: check SUPABASE_URL: Supabase dashboard: Project Settings > Data API > Project URL");
    expect(run.out).toContain("     fix: start the local stack (`npm run stack`), or check DB_URL");
    expect(line(failed, "FAIL providers/openai-compat")).toStartWith(`FAIL providers/openai-compat: cannot reach ${at}/v1: `);
    expect(line(failed, "FAIL providers/pexels")).toStartWith(`FAIL providers/pexels: cannot reach ${at}: `);
    expect(run.out).toContain("10 failed: not ready");
  }, 60_000);

  test("a key the emulator refuses is named, with Google's reason and where to get a key", async () => {
    const run = await doctor({
      GEMINI_API_KEY: "AIzaSy-not-the-issued-key",
      SERVICE_ROLE_KEY: "not-the-service-role-key-of-this-stack",
      OPENAI_COMPAT_API_KEY: "sk-not-the-issued-key",
      PEXELS_API_KEY: "not-the-issued-pexels-key",
    });
    expect(run.code).toBe(1);
    expect(line(run.checks, "FAIL providers/gemini")).toBe(
      `FAIL providers/gemini: ${LOCAL_EMULATOR_URL} refused GEMINI_API_KEY (HTTP 400 API_KEY_INVALID: API key not valid. Please pass a valid API key.)`,
    );
    expect(run.out).toContain("     fix: create an API key in Google AI Studio: https://aistudio.google.com/apikey");
    expect(line(run.checks, "FAIL functions/pipeline")).toBe(`FAIL functions/pipeline: ${LOCAL_FUNCTIONS_URL} refused SERVICE_ROLE_KEY (HTTP 401)`);
    expect(line(run.checks, "FAIL providers/openai-compat")).toBe(
      `FAIL providers/openai-compat: ${LOCAL_EMULATOR_URL}/v1 refused OPENAI_COMPAT_API_KEY (HTTP 401)`,
    );
    expect(line(run.checks, "FAIL providers/pexels")).toBe(`FAIL providers/pexels: ${LOCAL_EMULATOR_URL} refused PEXELS_API_KEY (HTTP 401)`);
    expect(run.checks.filter((l) => l.startsWith("FAIL")).length).toBe(4);
  }, 60_000);

  test("a provider that never answers fails within the check's time limit", async () => {
    const hanging = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    try {
      const started = Date.now();
      const run = await doctor({ TRENDS_BASE_URL: `http://127.0.0.1:${hanging.port}` }, ["--timeout", "1"]);
      expect(line(run.checks, "FAIL providers/trends")).toBe(`FAIL providers/trends: cannot reach http://127.0.0.1:${hanging.port}: no answer within 1 s`);
      expect(run.code).toBe(1);
      // Bounded: the report does not wait for the provider (the other checks run meanwhile).
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      hanging.stop(true);
    }
  }, 60_000);

  test("bad secrets, a wrong environment and credentials sealed with another key are each named", async () => {
    const otherKey = Buffer.from(new Uint8Array(32).fill(7)).toString("base64");
    const run = await doctor({ WEBHOOK_SECRET: "whsec_c2hvcnQ=", CREDENTIALS_KEY: otherKey, ENV: "prod", GEMINI_BASE_URL: LOCAL_EMULATOR_URL });
    expect(run.code).toBe(1);
    expect(line(run.checks, "FAIL environment/WEBHOOK_SECRET")).toBe(
      "FAIL environment/WEBHOOK_SECRET: WEBHOOK_SECRET must be whsec_ + base64 of at least 24 bytes",
    );
    // Every URL of the stack's configuration points at this machine: each one is named.
    const guard = line(run.checks, "FAIL environment/guard")!;
    expect(guard).toStartWith("FAIL environment/guard: ENV=prod refuses emulator URLs: ");
    const named = guard.slice("FAIL environment/guard: ENV=prod refuses emulator URLs: ".length).split(", ").sort();
    const loopback = Object.entries(stackEnv).filter(([k, v]) =>
      k.endsWith("_URL") && !["DB_URL", "EMULATOR_URL"].includes(k) && /^(wss?|https?):\/\/127\./.test(v)
    ).map(([k]) => k);
    expect(named).toEqual(loopback.sort());
    expect(line(run.checks, "FAIL secrets/WEBHOOK_SECRET")).toBe("FAIL secrets/WEBHOOK_SECRET: holds 5 bytes; at least 24 are needed");
    expect(line(run.checks, "ok   secrets/CREDENTIALS_KEY")).toBeDefined();
    expect(line(run.checks, "FAIL database/environment")).toBe("FAIL database/environment: ENV=prod but this database is dev");
    expect(run.out).toContain("     fix: set ENV=dev, or use the database of the environment you meant");
    const dimensions = run.checks.filter((l) => l.includes("database/dimension "));
    expect(dimensions.length).toBe(dimensionLines.length);
    for (const l of dimensions) {
      expect(l).toMatch(
        /^FAIL database\/dimension [a-z0-9_-]+: account \S+: credentials do not decrypt with the key ring \(credentials of account \S+ are sealed with key [0-9a-f]{8}, which is not in the key ring/,
      );
    }
    expect(line(run.checks, "FAIL functions/pipeline")).toBe(
      `FAIL functions/pipeline: the functions at ${LOCAL_FUNCTIONS_URL} run as ENV=dev, this configuration says ENV=prod`,
    );
  }, 60_000);

  test("--json gives the same checks as data", async () => {
    const run = await doctor({ GEMINI_MODEL: "imagen-3" }, ["--json"]);
    const report = JSON.parse(run.out) as {
      ok: boolean;
      checks: { family: string; name: string; status: string; message: string; fix?: string }[];
      summary: { fail: number };
    };
    expect(run.code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.summary.fail).toBe(1);
    expect(report.checks.find((c) => c.status === "fail")).toEqual({
      family: "providers",
      name: "gemini",
      status: "fail",
      message: `model imagen-3 not found at ${LOCAL_EMULATOR_URL}: models/imagen-3 is not found for API version v1beta.`,
      fix: "a Gemini model id, e.g. gemini-2.5-flash (https://ai.google.dev/gemini-api/docs/models)",
    });
  }, 60_000);

  test("never prints a secret, in text or JSON, passing or failing", async () => {
    const closed = await freePort();
    const password = "a-long-database-password-4711";
    const secrets = [
      stackEnv.SERVICE_ROLE_KEY!,
      stackEnv.WEBHOOK_SECRET!,
      stackEnv.CREDENTIALS_KEY!,
      stackEnv.GEMINI_API_KEY!,
      stackEnv.GOOGLE_OAUTH_CLIENT_SECRET!,
      "AIzaSy-wrong-key-0123456789",
      password,
    ];
    const runs = [
      await doctor({}),
      await doctor({}, ["--json"]),
      await doctor({ GEMINI_API_KEY: "AIzaSy-wrong-key-0123456789" }, ["--json"]),
      await doctor({
        DB_URL: `postgres://postgres:${password}@127.0.0.1:${closed}/postgres`,
        STORAGE_BACKEND: "supabase",
        SUPABASE_URL: `http://127.0.0.1:${closed}`,
      }),
    ];
    for (const run of runs) {
      const all = run.out + run.err;
      for (const secret of secrets) expect(all).not.toContain(secret);
      // The accounts' refresh tokens are decrypted for the check, never shown.
      expect(all).not.toContain("emulator-refresh-");
    }
    expect(runs[3]!.out).toContain(`postgres://postgres:*****@127.0.0.1:${closed}/postgres`);
  }, 90_000);

  test("an account Google refused and an upload YouTube made private are named, with the command and where to look", async () => {
    const sql = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
    try {
      const [account] = await sql<{ id: string; dimension_id: string; channel_handle: string }[]>`
        update mdame.dimension_accounts set health_state = 'needs_reconnect', health_reason = 'invalid_grant: Token has been expired or revoked.',
               health_since = '2026-11-30T10:00:00Z'
         where id = (select id from mdame.dimension_accounts where active order by dimension_id, channel_handle limit 1)
        returning id, dimension_id, channel_handle`;
      const [run] = await sql<{ id: string }[]>`
        insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind) values ('doctor-locked', 'dev', current_date, 'manual') returning id`;
      const [unit] = await sql<{ id: string }[]>`
        insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage)
        values (${run!.id}, ${account!.dimension_id}, 'doctor-locked', 'doctor-locked', '{"title": "t"}', 'published') returning id`;
      await sql`insert into mdame.publications (unit_id, account_id, platform, status, external_id, privacy_status, published_at)
                values (${unit!.id}, ${account!.id}, 'youtube', 'published', 'locked-video-1', 'private', now())`;

      const report = await doctor({});
      expect(report.code).toBe(1);
      expect(line(report.checks, `FAIL database/account ${account!.channel_handle}`)).toBe(
        `FAIL database/account ${account!.channel_handle}: needs reconnecting since 2026-11-30T10:00:00.000Z: ` +
          "invalid_grant: Token has been expired or revoked.; its publications wait (deferred) until then",
      );
      expect(report.out).toContain(`     fix: mdame account connect youtube --dimension ${account!.dimension_id} --channel ${account!.channel_handle} `);
      expect(line(report.checks, "warn database/upload privacy youtube")).toBe(
        `warn database/upload privacy youtube: YouTube made uploads private although public was asked: locked-video-1 on ${
          account!.channel_handle
        } (private). ` +
          "YouTube no longer keeps an unverified API project's uploads private (since 2 Nov 2026): the channel's own upload default " +
          "or YouTube's decision about the video or the channel did",
      );
      expect(report.out).toContain("Settings > Upload defaults > Visibility");
      expect(report.out).not.toContain("yt_api_form");
    } finally {
      await sql`delete from mdame.publications where external_id = 'locked-video-1'`;
      await sql`delete from mdame.events where unit_id in (select id from mdame.work_units where unit_key = 'doctor-locked')`;
      await sql`delete from mdame.work_units where unit_key = 'doctor-locked'`;
      await sql`delete from mdame.events where run_id in (select id from mdame.pipeline_runs where idempotency_key = 'doctor-locked')`;
      await sql`delete from mdame.pipeline_runs where idempotency_key = 'doctor-locked'`;
      await sql`update mdame.dimension_accounts set health_state = 'ok', health_reason = null, health_since = null`;
      await sql.end({ timeout: 2 });
    }
  }, 60_000);

  test("a TikTok grant TikTok refuses fails its dimension with TikTok's reason and TikTok's connect command", async () => {
    const sql = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
    const [account] = await sql<{ id: string; dimension_id: string; channel_handle: string; credentials_enc: string }[]>`
      select id, dimension_id, channel_handle, credentials_enc from mdame.dimension_accounts where platform = 'tiktok' and active`;
    try {
      // Credentials that open, holding a refresh token TikTok never issued.
      const ring = credentialKeyRing({ CREDENTIALS_KEY: stackEnv.CREDENTIALS_KEY! });
      const bogus = await encryptCredentials(ring, { refresh_token: "rft.never-issued-by-tiktok" }, account!.id);
      await sql`update mdame.dimension_accounts set credentials_enc = ${bogus} where id = ${account!.id}`;
      const report = await doctor({});
      expect(report.code).toBe(1);
      const failed = line(report.checks, `FAIL database/dimension ${account!.dimension_id}`)!;
      expect(failed).toContain(`account ${account!.channel_handle}: the TikTok token endpoint refused its refresh token`);
      expect(failed).toContain("invalid_grant");
      expect(report.out).toContain(`     fix: reconnect: mdame account connect tiktok --dimension ${account!.dimension_id} (or check CREDENTIALS_KEY`);
      expect(report.out).not.toContain(`mdame account connect youtube --dimension ${account!.dimension_id} (or`);
    } finally {
      await sql`update mdame.dimension_accounts set credentials_enc = ${account!.credentials_enc} where id = ${account!.id}`;
      await sql.end({ timeout: 2 });
    }
  }, 60_000);

  test("a Meta grant the user revoked fails its dimension with Meta's reason and each Meta platform's connect command", async () => {
    const revoke = await fetch(`${stackEnv.META_GRAPH_BASE_URL}/_emulator/meta/revocations`, {
      method: "POST",
      body: JSON.stringify({ app_id: stackEnv.META_APP_ID, user: `${metaDimension}-meta` }),
    });
    expect(revoke.status).toBe(200);
    try {
      const report = await doctor({});
      expect(report.code).toBe(1);
      const failed = line(report.checks, `FAIL database/dimension ${metaDimension}`)!;
      expect(failed).toContain("the Meta token endpoint refused its refresh token");
      expect(failed).toContain("code 190");
      expect(report.out).toContain(
        `     fix: reconnect: mdame account connect facebook --dimension ${metaDimension} or mdame account connect instagram --dimension ${metaDimension}`,
      );
    } finally {
      // The grant back, as a new connect would give it.
      await connectMetaAccountsAgain();
    }
  }, 90_000);

  test("`mdame doctor` as a process reads .local/stack.env and exits 0", () => {
    const child = Bun.spawnSync([process.execPath, join(paths.root, "cli", "mdame.ts"), "doctor"], {
      cwd: paths.root,
      env: {
        PATH: process.env.PATH ?? "",
        MDAME_DB_PORT: String(LOCAL_STACK.dbPort),
        MDAME_EDGE_PORT: String(LOCAL_STACK.edgePort),
        MDAME_EMULATOR_PORT: String(LOCAL_STACK.emulatorPort),
        // A second stack of the clone (scripts/test.ts) keeps its stack.env in its own folder.
        ...(process.env.MDAME_LOCAL_DIR ? { MDAME_LOCAL_DIR: process.env.MDAME_LOCAL_DIR } : {}),
      },
    });
    const out = child.stdout.toString();
    expect(out).toContain("0 failed: ready");
    expect(child.exitCode).toBe(0);
  }, 60_000);
});
