/**
 * The engine's real processes as the soak drives them: a clean slate, the supervised stack
 * (stack/supervisor.ts restarts what dies, as a process manager would), dimensions and accounts set up
 * through `mdame`, leases scaled to the accelerated clock, and the faults done to processes
 * (kill -9, a Postgres fast shutdown) and to the emulators (POST /_emulator/faults).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { connectAccounts, connectThroughCli } from "../demo/connect-accounts.ts";
import * as db from "../../stack/db.ts";
import { paths, pidFile } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type StackHandle, startStack, supervisorPid } from "../../stack/stack-control.ts";
import type { DimensionPlan, EmulatorArm, Killable, TrendItem } from "./plan.ts";

/** Narration length of the soak's videos: about 30 s of speech, so renders stay short. */
export const SOAK_NARRATION = { min: 60, max: 75 } as const;

/**
 * Stage leases and deadlines on the accelerated clock (mdame.stage_policies of the soak's own
 * database): visibility timeouts a quarter, retry backoff a tenth, deadlines a sixth of the
 * engine's, each kept above what the work itself takes on this machine.
 */
const SCALE_POLICIES = `
  update mdame.stage_policies set
    visibility_timeout_s = greatest(10, visibility_timeout_s / 4),
    retry_backoff_s = greatest(1, retry_backoff_s / 10),
    deadline_s = greatest(120, deadline_s / 6)`;

export type Log = (line: string) => void;

/** Empty database (migrations + seed), empty asset store and emulators; no server left running. */
export async function cleanSlate(log: Log): Promise<void> {
  const other = supervisorPid();
  if (other !== null) throw new Error(`a stack supervisor (pid ${other}) already runs for this clone; stop it first: the soak runs a stack of its own`);
  if (!db.isInitialised()) await db.init(log);
  await db.ensureRunning(log);
  await db.reset({ log: () => {} });
  await db.stop(() => {});
  rmSync(paths.storage, { recursive: true, force: true });
  rmSync(paths.emulators, { recursive: true, force: true });
  mkdirSync(paths.storage, { recursive: true });
}

/** Starts the supervised stack with every external service emulated. */
export async function startSoakStack(): Promise<StackHandle> {
  const saved = process.env.MDAME_EMULATE;
  process.env.MDAME_EMULATE = "all";
  try {
    const stack = await startStack({ quiet: true, timeoutMs: 180_000 });
    if (!stack.owned) throw new Error("a stack was already running; the soak needs a stack of its own");
    return stack;
  } finally {
    if (saved === undefined) delete process.env.MDAME_EMULATE;
    else process.env.MDAME_EMULATE = saved;
  }
}

/** The stack's environment (the URLs and keys its components get). */
export function stackEnv(): Record<string, string> {
  return localStackEnv();
}

/**
 * A superuser connection to the local cluster: the soak scales the stage policies and plays
 * pg_cron (trigger_run, tick). Components use the stack's own DB_URL.
 */
export function adminSql(): Sql {
  return createSql(LOCAL_DB_URL, { max: 2, application: "mdame-soak" });
}

export async function scaleStagePolicies(sql: Sql): Promise<Record<string, unknown>[]> {
  await sql.unsafe(SCALE_POLICIES);
  return [...await sql`select stage, max_attempts, visibility_timeout_s, retry_backoff_s, deadline_s from mdame.stage_policies order by stage`];
}

function runMdame(env: Record<string, string>, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(paths.root, "cli", "mdame.ts"), ...args], {
      cwd: paths.root,
      env: { ...process.env, FUNCTIONS_URL: env.FUNCTIONS_URL!, SERVICE_ROLE_KEY: env.SERVICE_ROLE_KEY! },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`mdame ${args.join(" ")} exited ${code}: ${out.trim()}`));
    });
  });
}

/** The configuration file `mdame dimension add --file` gets for a planned dimension. */
export function dimensionConfig(dimension: DimensionPlan, emulatorUrl: string): Record<string, unknown> {
  return {
    id: dimension.id,
    display_name: dimension.display_name,
    language: "en",
    tts_voice: dimension.tts_voice,
    trend_geo: dimension.trend_geo,
    style: { palette: dimension.palette, motion: dimension.motion, caption_font: "DejaVu Sans" },
    visuals: { backends: ["procedural"], pexels_blocklist: [] },
    daily_limit: dimension.daily_limit,
    narration_min_words: SOAK_NARRATION.min,
    narration_max_words: SOAK_NARRATION.max,
    subject: { keywords: dimension.keywords, categories: [dimension.subject], excluded_terms: [] },
    sources: [{ kind: "feed", url: `${emulatorUrl}/posted-feeds/${dimension.id}.xml`, weight: 1 }],
    min_score: 0.2,
  };
}

/**
 * The seed's demo dimensions paused, the planned ones added, each with a YouTube account on the
 * emulator, all through `mdame` as an operator does it.
 */
export async function setUpDimensions(env: Record<string, string>, dimensions: DimensionPlan[], dir: string, log: Log): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const listed = JSON.parse(await runMdame(env, ["dimension", "list", "--json"])) as { dimensions?: { id: string; active: boolean }[] } | {
    id: string;
    active: boolean;
  }[];
  const existing = Array.isArray(listed) ? listed : listed.dimensions ?? [];
  for (const other of existing.filter((d) => d.active)) await runMdame(env, ["dimension", "pause", other.id]);
  for (const dimension of dimensions) {
    const file = join(dir, `${dimension.id}.json`);
    writeFileSync(file, `${JSON.stringify(dimensionConfig(dimension, env.EMULATOR_URL!), null, 2)}\n`);
    await runMdame(env, ["dimension", "add", "--file", file]);
  }
  const outcomes = await connectAccounts({ env, dimensions: dimensions.map((d) => d.id), channelFor: soakChannel, log });
  log(`${dimensions.length} dimension(s) added, ${outcomes.filter((o) => o.connected).length} account(s) connected`);
}

/** The pid a component's pid file names (for the db, the postmaster), or null. */
export function componentPid(component: Killable): number | null {
  try {
    const pid = Number(readFileSync(pidFile(component), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** kill -9, as a machine failure would; the supervisor restarts the component. */
export function killComponent(component: Killable): number | null {
  const pid = componentPid(component);
  if (pid === null) return null;
  try {
    process.kill(pid, "SIGKILL");
    return pid;
  } catch {
    return null;
  }
}

/** Postgres fast shutdown (SIGINT to the postmaster); the supervisor starts it again. */
export function restartPostgres(): number | null {
  const pid = db.runningPostmasterPid();
  if (pid === null) return null;
  process.kill(pid, "SIGINT");
  return pid;
}

async function emulatorCall(env: Record<string, string>, path: string, init: RequestInit): Promise<Response> {
  return await fetch(`${env.EMULATOR_URL}${path}`, { ...init, headers: { "content-type": "application/json" }, signal: AbortSignal.timeout(5_000) });
}

/** Arms one emulator fault; false when the emulator is down (being restarted) or refused it. */
export async function armEmulator(env: Record<string, string>, arm: EmulatorArm): Promise<boolean> {
  try {
    const response = await emulatorCall(env, "/_emulator/faults", { method: "POST", body: JSON.stringify(arm) });
    if (!response.ok) throw new Error(`the emulator refused fault ${JSON.stringify(arm)}: ${await response.text()}`);
    await response.body?.cancel();
    return true;
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("the emulator refused")) throw error;
    return false;
  }
}

export async function disarmEmulator(env: Record<string, string>): Promise<void> {
  try {
    const response = await emulatorCall(env, "/_emulator/faults", { method: "DELETE" });
    await response.body?.cancel();
  } catch {
    // Down: a restarted emulator holds no faults.
  }
}

/** Serves `items` as the dimension's feed from now on; retried while the emulator restarts. */
export async function postFeed(env: Record<string, string>, dimension: string, items: TrendItem[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await emulatorCall(env, `/_emulator/posted-feeds/${dimension}`, { method: "PUT", body: JSON.stringify({ items }) });
      if (response.ok) return void (await response.body?.cancel());
      throw new Error(`posting the feed of ${dimension} failed: ${response.status} ${await response.text()}`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("posting the feed")) throw error;
      if (Date.now() > deadline) throw new Error(`the emulator did not take the feed of ${dimension} within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * Moves the emulator's clock to simulated day `day` (0 for the first): `day` whole days ahead of
 * real time, so YouTube's quota day and each channel's 24-hour upload window follow the simulated
 * days as the engine's quota ledger does (setEngineDay). Retried while the emulator restarts.
 */
export async function setEmulatorDay(env: Record<string, string>, day: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await emulatorCall(env, "/_emulator/clock", { method: "POST", body: JSON.stringify({ offset_ms: day * 86_400_000 }) });
      if (response.ok) return void (await response.body?.cancel());
      throw new Error(`moving the emulator's clock to day ${day + 1} failed: ${response.status} ${await response.text()}`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("moving the emulator's clock")) throw error;
      if (Date.now() > deadline) throw new Error(`the emulator did not take day ${day + 1}'s clock within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** The emulator channel (its signed-in user) a soak dimension publishes to. */
export function soakChannel(dimension: string): string {
  return `${dimension}-demo`;
}

/** Refresh tokens of the OAuth emulator are `emulator-refresh-<channel>` (emulators/google-oauth/token-store.ts). */
const EMULATOR_REFRESH_TOKEN_PREFIX = "emulator-refresh-";

/**
 * Google revokes the channel's grant (the user removed the app's access, or a Testing-mode token
 * reached its 7 days): its refresh token is refused with invalid_grant until the channel is
 * connected again. Returns what the emulator said, or null when it did not answer.
 */
export async function revokeGrant(env: Record<string, string>, channel: string): Promise<string | null> {
  try {
    const response = await emulatorCall(env, "/_emulator/oauth/revocations", {
      method: "POST",
      body: JSON.stringify({ refresh_token: `${EMULATOR_REFRESH_TOKEN_PREFIX}${channel}` }),
    });
    const body = await response.json() as { access_tokens_revoked?: number; error?: string };
    if (!response.ok) throw new Error(`revoking the grant of ${channel} failed: ${response.status} ${body.error ?? ""}`);
    return `the grant of channel ${channel} revoked (${body.access_tokens_revoked ?? 0} access token(s) with it)`;
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("revoking the grant")) throw error;
    return null;
  }
}

/** What the operator runs for an account reported as needing a reconnect: `mdame account connect`, signing in as the channel. */
export async function reconnectAccount(env: Record<string, string>, dimension: string, channel: string): Promise<void> {
  await connectThroughCli(env, dimension, channel, 60);
}

/**
 * Moves the engine's clock (mdame.set_engine_clock, honoured by a dev database only) to simulated
 * day `day`, as setEmulatorDay moves the emulator's: the quota ledger charges the simulated day's
 * Pacific quota day, and the drain publishes a deferral once the simulated clock passes its time.
 */
export async function setEngineDay(sql: Sql, day: number): Promise<void> {
  await sql`select mdame.set_engine_clock(make_interval(days => ${day}::int))`;
}

/** The platform's view: every completed upload on the YouTube emulator. */
export async function platformVideos(env: Record<string, string>): Promise<{ id: string; sha256: string; channel?: string; title?: string }[]> {
  const response = await fetch(`${env.EMULATOR_URL}/_emulator/youtube/videos`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`the YouTube emulator answered ${response.status}`);
  return await response.json() as { id: string; sha256: string }[];
}
