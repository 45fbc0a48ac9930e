/**
 * The crash scenarios' machinery, shared by tests/e2e/crash-recovery-1.test.ts and
 * crash-recovery-2.test.ts (a run each, so two lanes of the test pool run them side by side):
 * Crash tests through the real processes: the supervised stack (Postgres, the Deno edge host, both
 * Bun workers, the emulators) runs a whole pipeline run while components are killed with SIGKILL,
 * at chosen points (failpoints, shared/failpoints.ts) and at random moments, and Postgres is
 * killed mid-run. The supervisor restarts what died; each run must then converge to the result of
 * an undisturbed run: every unit published, one publication per unit and account, one upload per
 * publication on the YouTube emulator, the uploaded bytes equal to the rendered video, no work left
 * in the queues, and no lock held after one tick.
 *
 * Each run makes one dimension's video (run A the seed's first dimension, run B its second).
 * Each run starts from a reset database, an empty asset store and empty emulators, on a stack of
 * its own (the failpoints are in its environment). Several failpoints share a run when they fire in
 * different components or stages, or one after the other in the same stage (each fires once).
 * Run B's random kills print their seed; replay them with
 * `CRASH_SEED=<seed> bun test tests/e2e/crash-recovery-2.test.ts`.
 * Each run's logs are kept in `.local/crash-evidence/<run>/`.
 */
import { expect } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { type Component, LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { RunStatus } from "../../shared/contracts/operator.ts";
import { createSql } from "../../shared/db/client.ts";
import * as db from "../../stack/db.ts";
import { WORKER_REPLACED_MESSAGE } from "../../stack/edge-functions.ts";
import { logFile, paths, pidFile } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { readStackStatus, type StackHandle, startStack, supervisorPid } from "../../stack/stack-control.ts";
import { orphanedScratchDirs } from "../../shared/storage/scratch-dirs.ts";
import { connectTestAccounts } from "../fixtures/connect-accounts.ts";
import { checkConverged, Checks } from "./crash-convergence.ts";

const env = localStackEnv();
const RUN_TIMEOUT_MS = 8 * 60_000;
export const SCENARIO_TIMEOUT_MS = 12 * 60_000;
/** How long a component killed at the very end of a run may take to be restarted and ready. */
const RESTART_WAIT_MS = 30_000;
/** A restart takes seconds; a status endpoint silent this long means the stack is not coming back. */
const UNREACHABLE_LIMIT_MS = 120_000;
/**
 * The leases of stage tasks and worker jobs (LEASE_S, 30 s by default): a killed holder's work
 * waits them out before it is claimed again, so shorter ones keep a run short; the heartbeats that
 * hold a lease are the same, at a third of it.
 */
const LEASE_S = 10;
/** Small upload chunks, so a video of a few MB takes several and a crash can fall between two. */
const UPLOAD_CHUNK_BYTES = 512 * 1024;
/** Narration length of the dimensions in a crash run (mdame.dimensions.narration_*_words). */
const SHORT_NARRATION = { min: 60, max: 75 } as const;
const LOGGED = ["supervisor", "db", "emulators", "edge", "net", "gpu-worker", "render-runner"] as const;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const say = (line: string) => console.log(`[crash ${new Date().toISOString().slice(11, 19)}] ${line}`);
const durations: { run: string; seconds: number; outcome: string }[] = [];

function logSizes(): Record<string, number> {
  return Object.fromEntries(LOGGED.map((c) => [c, existsSync(logFile(c)) ? statSync(logFile(c)).size : 0]));
}

function logSince(component: string, offset: number): string {
  if (!existsSync(logFile(component))) return "";
  const text = readFileSync(logFile(component));
  return text.subarray(Math.min(offset, text.length)).toString("utf8");
}

function readPid(component: Component): number | null {
  try {
    const pid = Number(readFileSync(pidFile(component), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Empty database (migrations + seed, no accounts), empty asset store and emulators; no server left running. */
async function cleanSlate(): Promise<void> {
  const other = supervisorPid();
  if (other !== null) throw new Error(`a stack supervisor (pid ${other}) is already running; crash tests need a stack of their own`);
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  await db.stop(() => {});
  // Content-addressed assets of an earlier run would let every job finish without doing its work.
  rmSync(paths.storage, { recursive: true, force: true });
  rmSync(paths.emulators, { recursive: true, force: true });
  mkdirSync(paths.storage, { recursive: true });
}

/** Starts a stack of its own whose every component has `extra` in its environment. */
async function startStackWith(extra: Record<string, string>): Promise<StackHandle> {
  const saved = Object.fromEntries(Object.keys(extra).map((k) => [k, process.env[k]]));
  Object.assign(process.env, extra);
  try {
    const stack = await startStack({ quiet: true, timeoutMs: 180_000 });
    if (!stack.owned) throw new Error("startStack reused a running stack; crash tests need a stack of their own");
    return stack;
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return await fetch(`${env.FUNCTIONS_URL}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json", ...init.headers },
    signal: AbortSignal.timeout(15_000),
  });
}

async function triggerRun(key: string): Promise<string> {
  const response = await api("/pipeline/runs", { method: "POST", body: JSON.stringify({ idempotency_key: key }) });
  const body = await response.json() as { run_id: string; created: boolean };
  if (response.status !== 202 || !body.created) throw new Error(`trigger refused (${response.status}): ${JSON.stringify(body)}`);
  return body.run_id;
}

/**
 * The run's status; null while the edge host or the database is down (restarting). Throws when the
 * run is gone: something else reset the database of this clone during the test.
 */
async function runStatus(runId: string): Promise<RunStatus | null> {
  let response: Response;
  try {
    response = await api(`/pipeline/runs/${runId}`);
  } catch {
    return null;
  }
  if (response.status === 404) {
    throw new Error(`run ${runId} is gone: the database was reset during the test (a demo or another test on this clone?)`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    return null;
  }
  return RunStatus.parse(await response.json());
}

interface RunContext {
  runId: string;
  /** The latest status seen (null until the first answer). */
  latest(): RunStatus | null;
  /** Resolves once `predicate` holds for a status seen, or with false when the run ended first. */
  when(predicate: (status: RunStatus) => boolean): Promise<boolean>;
  say(line: string): void;
}

interface Scenario {
  name: string;
  /**
   * The one dimension the run makes a video for (the others are paused): crash safety is per unit,
   * and one unit keeps a run short. The runs share out the seed's dimensions, so both languages
   * and visual backends are crashed.
   */
  dimension: "tech-explained" | "sains-singkat";
  /** Failpoint -> the component it kills. */
  failpoints: Partial<Record<string, Component>>;
  /** Crashes caused from outside while the run goes on; returns the components it killed. */
  during?: (run: RunContext) => Promise<Component[]>;
}

/** How long a kill waits for a component that is between a crash and its restart. */
const KILL_WAIT_MS = 60_000;

/**
 * Kills a component's process (for the db, the postmaster) with SIGKILL, as a machine failure would.
 * A component caught between a crash (a failpoint's, or an earlier kill) and its restart has no live
 * process: the kill waits for the supervisor to bring it back, then strikes, so a random moment
 * never lands on nothing.
 */
export async function killComponent(component: Component, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + KILL_WAIT_MS;
  for (;;) {
    const pid = readPid(component);
    if (pid !== null) {
      try {
        process.kill(pid, "SIGKILL");
        log(`kill -9 ${component} (pid ${pid})`);
        return;
      } catch (error) {
        // A pid file left by a process already gone: wait for the restarted one.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    if (Date.now() > deadline) throw new Error(`${component} did not come back within ${KILL_WAIT_MS / 1000} s to be killed: is it running?`);
    await sleep(200);
  }
}

export async function runScenario(scenario: Scenario): Promise<void> {
  const t0 = Date.now();
  const log = (line: string) => say(`${scenario.name} +${((Date.now() - t0) / 1000).toFixed(0)}s: ${line}`);
  const evidence = join(paths.local, "crash-evidence", scenario.name);
  rmSync(evidence, { recursive: true, force: true });
  mkdirSync(evidence, { recursive: true });
  let outcome = "failed";

  await cleanSlate();
  const offsets = logSizes();
  const failpointDir = mkdtempSync(join(tmpdir(), "mdame-failpoints-"));
  // The stack's own temp directory, so what a killed process leaves there can be told apart.
  const scratchBase = mkdtempSync(join(tmpdir(), "mdame-crash-tmp-"));
  let stack: StackHandle;
  try {
    stack = await startStackWith({
      MDAME_FAILPOINTS: Object.keys(scenario.failpoints).join(","),
      MDAME_FAILPOINT_DIR: failpointDir,
      MDAME_UPLOAD_CHUNK_BYTES: String(UPLOAD_CHUNK_BYTES),
      LEASE_S: String(LEASE_S),
      TMPDIR: scratchBase,
    });
  } catch (error) {
    rmSync(failpointDir, { recursive: true, force: true });
    rmSync(scratchBase, { recursive: true, force: true });
    throw error;
  }
  const sql = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-crash-test" });
  try {
    log(`stack up; failpoints: ${Object.keys(scenario.failpoints).join(", ") || "none"}`);
    // Short videos (about 30 s of speech): renders take most of a run's time, and crashes need no more.
    await sql`update mdame.dimensions set narration_min_words = ${SHORT_NARRATION.min}, narration_max_words = ${SHORT_NARRATION.max}`;
    await sql`update mdame.dimensions set active = (id = ${scenario.dimension})`;
    // The reset left no accounts: each dimension's is connected through `mdame account connect`.
    await connectTestAccounts(env);
    const runId = await triggerRun(`crash-${scenario.name}-${Date.now()}`);
    log(`run ${runId} started`);

    let latest: RunStatus | null = null;
    let ended = false;
    const waiters: { predicate: (s: RunStatus) => boolean; resolve: (ok: boolean) => void }[] = [];
    const run: RunContext = {
      runId,
      latest: () => latest,
      when: (predicate) => {
        if (latest && predicate(latest)) return Promise.resolve(true);
        if (ended) return Promise.resolve(false);
        return new Promise((resolve) => waiters.push({ predicate, resolve }));
      },
      say: log,
    };
    // Settled at once either way, so a failed kill is reported after the run, not as an unhandled rejection.
    const during = (scenario.during?.(run) ?? Promise.resolve([] as Component[])).then(
      (killed) => ({ killed, error: null as unknown }),
      (error: unknown) => ({ killed: [] as Component[], error }),
    );

    const deadline = Date.now() + RUN_TIMEOUT_MS;
    let lastShown = "";
    let lastAnswer = Date.now();
    while (Date.now() < deadline) {
      const status = await runStatus(runId);
      if (!status && Date.now() - lastAnswer > UNREACHABLE_LIMIT_MS) {
        throw new Error(`the status endpoint has not answered for ${UNREACHABLE_LIMIT_MS / 1000} s (was the stack restarted?); logs in ${evidence}`);
      }
      if (status) {
        lastAnswer = Date.now();
        latest = status;
        const shown = `${status.run.status} ${status.units.map((u) => `${u.dimension_id}:${u.stage}`).join(" ")}`;
        if (shown !== lastShown) log(shown);
        lastShown = shown;
        for (const w of waiters.splice(0)) {
          if (w.predicate(status)) w.resolve(true);
          else waiters.push(w);
        }
        if (status.run.status !== "running") break;
      }
      await sleep(1000);
    }
    ended = true;
    for (const w of waiters.splice(0)) w.resolve(false);
    const { killed: killedFromOutside, error: duringError } = await during;
    if (duringError) throw duringError;
    if (!latest || latest.run.status === "running") {
      throw new Error(`run ${runId} not terminal after ${RUN_TIMEOUT_MS / 60_000} min (${lastShown}); logs in ${evidence}`);
    }
    log(`run ${latest.run.status}`);

    const checks = new Checks();
    await checkFailpointsFired(checks, scenario, failpointDir, offsets, killedFromOutside);
    await checkConverged(checks, sql, runId, env.EMULATOR_URL);
    // A restarted component sweeps the scratch directories its killed predecessors left behind.
    const orphans = await orphanedScratchDirs(scratchBase);
    checks.check("no scratch directory of a killed process is left", orphans.length === 0, orphans);
    if (checks.failures.length > 0) log(`broken guarantees (logs in ${evidence}):\n  ${checks.failures.join("\n  ")}`);
    expect(checks.failures).toEqual([]);
    outcome = "passed";
  } finally {
    await sql.end({ timeout: 2 }).catch(() => {});
    await stack.stop();
    for (const component of LOGGED) writeFileSync(join(evidence, `${component}.log`), logSince(component, offsets[component] ?? 0));
    if (existsSync(failpointDir)) cpSync(failpointDir, join(evidence, "failpoints"), { recursive: true });
    rmSync(failpointDir, { recursive: true, force: true });
    rmSync(scratchBase, { recursive: true, force: true });
    const seconds = (Date.now() - t0) / 1000;
    durations.push({ run: scenario.name, seconds, outcome });
    log(`${outcome} in ${seconds.toFixed(0)} s`);
  }
}

/** Each crash happened: its failpoint's record, its line in the component's log, a restart. */
async function checkFailpointsFired(checks: Checks, scenario: Scenario, dir: string, offsets: Record<string, number>, killed: Component[]) {
  // A kill just before the run ended may still be restarting: give the supervisor a moment.
  const expected = [...Object.values(scenario.failpoints), ...killed] as Component[];
  const deadline = Date.now() + RESTART_WAIT_MS;
  let status = readStackStatus();
  // A failpoint in a stage kills the edge host's worker process, which the host's own pool
  // replaces (stack/edge-pool.ts), as the hosted runtime replaces a user worker; the supervisor
  // restarts every other component.
  const replacedByPool = (c: Component) => c === "edge" && logSince("edge", offsets.edge ?? 0).includes(WORKER_REPLACED_MESSAGE);
  const restartedBySupervisor = (c: Component) => (status?.components[c]?.restarts ?? 0) > 0;
  const restarted = (c: Component) => restartedBySupervisor(c) || replacedByPool(c);
  while (Date.now() < deadline && !(Object.values(scenario.failpoints).every((c) => restarted(c!)) && killed.every(restartedBySupervisor))) {
    await sleep(250);
    status = readStackStatus();
  }
  for (const [name, component] of Object.entries(scenario.failpoints)) {
    checks.check(`failpoint ${name} fired (record ${name}.hit)`, existsSync(join(dir, `${name}.hit`)));
    checks.check(
      `failpoint ${name} killed ${component}`,
      logSince(component!, offsets[component!] ?? 0).includes(`failpoint ${name} hit: killing the process`),
    );
    checks.check(`the supervisor (or the edge host's pool) restarted ${component} after ${name}`, restarted(component!), status?.components[component!]);
  }
  for (const component of killed) {
    checks.check(`the supervisor restarted ${component} after kill -9`, restartedBySupervisor(component), status?.components[component]);
  }
}

export const inStage = (...stages: string[]) => (status: RunStatus) => status.units.some((u) => stages.includes(u.stage));

/** The runs' durations, said once a file's runs are over. */
export function sayDurations(): void {
  if (durations.length === 0) return;
  say("durations:");
  for (const d of durations) say(`  ${d.run.padEnd(28)} ${d.outcome.padEnd(7)} ${d.seconds.toFixed(0).padStart(5)} s`);
  say(`  total ${durations.reduce((sum, d) => sum + d.seconds, 0).toFixed(0)} s`);
}
