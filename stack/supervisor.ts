/**
 * `npm run stack`: runs the whole local stack in the foreground until Ctrl-C, as a process manager
 * would: db, emulators, edge, net, gpu-worker, render-runner, in that order, each started once the one
 * before is ready. A component that dies is restarted with the shared backoff (shared/backoff.ts:
 * exponential with jitter, 0.5 s .. 10 s, back to 0.5 s once it has stayed up 30 s). SIGINT/SIGTERM stop the components in reverse order.
 *
 *   bun stack/supervisor.ts [--quiet] [--prod] [--only db,emulators]
 * --prod: production on this machine (ENV=prod, every provider real, no emulators; docs/guides/deploy.md).
 *
 * Output of each component goes to `.local/logs/<component>.log` and, prefixed, to this terminal
 * (unless --quiet); the supervisor's own lines, and its start and exit lines in each component's
 * file, are JSON lines like the components' (docs/reference/logs.md). `.local/stack.env` holds the
 * environment every component gets.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { Backoff } from "../shared/backoff.ts";
import { createLogger, type LogContext, type Logger } from "../shared/logging/logger.ts";
import { type Component, COMPONENTS, LOCAL_DB_URL, LOCAL_EMULATOR_URL, LOCAL_FUNCTIONS_URL, LOCAL_STACK } from "../shared/config/local-stack.ts";
import * as db from "./db.ts";
import { logFile, paths, pidFile } from "./paths.ts";
import { reserveStackPorts, waitForPort } from "./ports.ts";
import { pgBinDir, serverExtensions } from "./pg-server.ts";
import { localStackEnv, workerEnv, writeStackEnv } from "./stack-env.ts";
import { raiseThroughDatabase, RestartWatch } from "./restart-alerts.ts";
import { type ComponentStatus, type StackStatus, supervisorPid } from "./stack-control.ts";

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10_000;
const STABLE_AFTER_MS = 30_000;
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

interface ComponentSpec {
  name: Component;
  /** File that must exist for the component to run (relative to the project). */
  entry: string;
  port?: number;
  command(): string[];
  cwd: string;
  ready(proc: ManagedProcess): Promise<boolean>;
  /** Why this installation does not need the component (it is then not started), or null. */
  notNeeded?(): string | null;
}

const log = createLogger("supervisor");
const say = (line: string, fields: LogContext = {}) => log.info(fields, line);

async function httpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

function denoBinary(): string {
  const local = join(paths.root, "node_modules", ".bin", "deno");
  return existsSync(local) ? local : "deno";
}

/** Workers expose no port: one that is still alive a second after starting counts as ready. */
const aliveForASecond = async (proc: ManagedProcess) => proc.upForMs() >= 1000;

const SPECS: ComponentSpec[] = [
  { name: "db", entry: "supabase", port: LOCAL_STACK.dbPort, cwd: "/", command: db.postgresForegroundCommand, ready: () => db.isAccepting() },
  {
    name: "emulators",
    entry: "emulators/main.ts",
    port: LOCAL_STACK.emulatorPort,
    cwd: paths.root,
    command: () => [process.execPath, "emulators/main.ts"],
    ready: () => httpOk(`${LOCAL_EMULATOR_URL}/_emulator/health`),
  },
  {
    name: "edge",
    entry: "stack/edge-host.ts",
    port: LOCAL_STACK.edgePort,
    cwd: paths.root,
    command: () => [denoBinary(), "run", "-A", "stack/edge-host.ts"],
    ready: () => httpOk(`${LOCAL_FUNCTIONS_URL}/pipeline/health`),
  },
  // pg_net's worker where the server has only its stand-in: sends the wake-ups SQL queues. After the
  // edge host, so the first wake-ups find the tick; without the stand-in there is nothing to send.
  // Where the server has the real pg_net its own worker sends, and a sender beside it would take
  // rows of the same queue.
  {
    name: "net",
    entry: "stack/net-sender.ts",
    cwd: paths.root,
    command: () => [process.execPath, "stack/net-sender.ts"],
    ready: aliveForASecond,
    notNeeded: () => (serverExtensions(pgBinDir()).pgNet ? `the server's pg_net sends the wake-ups (${pgBinDir()})` : null),
  },
  { name: "gpu-worker", entry: "gpu-worker/main.ts", cwd: paths.root, command: () => [process.execPath, "gpu-worker/main.ts"], ready: aliveForASecond },
  {
    name: "render-runner",
    entry: "render-runner/main.ts",
    cwd: paths.root,
    command: () => [process.execPath, "render-runner/main.ts"],
    ready: aliveForASecond,
  },
];

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Supervisor {
  readonly procs: ManagedProcess[] = [];
  status: StackStatus;
  stopping = false;
  /** Raises component_restarting after 3 restarts of one component within 10 minutes (docs/reference/alerts.md). */
  readonly restartWatch: RestartWatch;

  constructor(readonly quiet: boolean, readonly env: Record<string, string>) {
    this.restartWatch = new RestartWatch({ raise: raiseThroughDatabase(env.DB_URL!), report: say });
    this.status = { supervisor_pid: process.pid, started_at: new Date().toISOString(), phase: "starting", components: {} };
  }

  writeStatus(): void {
    const tmp = `${paths.stackStatus}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(this.status, null, 2)}\n`);
    renameSync(tmp, paths.stackStatus);
  }

  setComponent(name: Component, patch: Partial<ComponentStatus>): void {
    const current = this.status.components[name] ?? { state: "starting", pid: null, restarts: 0, last_exit: null };
    this.status.components[name] = { ...current, ...patch };
    this.writeStatus();
  }

  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.status.phase = "stopping";
    this.writeStatus();
    say("stopping components in reverse order");
    for (const proc of [...this.procs].reverse()) await proc.stop();
    this.status.phase = "stopped";
    this.writeStatus();
    rmSync(paths.supervisorPid, { force: true });
    say("stopped");
  }
}

/** One supervised child: spawn, readiness, restart with backoff, stop. */
class ManagedProcess {
  child: ChildProcess | null = null;
  startedAt = 0;
  readonly backoff = new Backoff({ initialMs: BACKOFF_MIN_MS, maxMs: BACKOFF_MAX_MS });
  restarts = 0;
  restartTimer: ReturnType<typeof setTimeout> | null = null;
  readyPoll: ReturnType<typeof setTimeout> | null = null;
  log: WriteStream;
  /** The supervisor's lines about this component, written into the component's own file. */
  markers: Logger;
  exited: Promise<void> = Promise.resolve();
  private readyWaiters: (() => void)[] = [];

  constructor(readonly spec: ComponentSpec, readonly sup: Supervisor) {
    this.log = createWriteStream(logFile(spec.name), { flags: "a" });
    this.markers = createLogger("supervisor", { write: (line: string) => this.writeLog(line) }).child({ managed: spec.name });
  }

  private writeLog(text: string | Buffer): void {
    if (!this.log.writableEnded) this.log.write(text);
  }

  upForMs(): number {
    return this.child && this.child.exitCode === null && this.child.signalCode === null ? Date.now() - this.startedAt : 0;
  }

  whenReady(): Promise<void> {
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  async start(): Promise<void> {
    if (this.spec.name === "db") await prepareDb();
    if (this.sup.stopping) return;
    const [command, ...args] = this.spec.command();
    // A worker connects as its own role and holds none of the publisher's secrets (docs/reference/roles.md).
    const base = { ...process.env, ...this.sup.env } as Record<string, string>;
    const name = this.spec.name;
    const env = name === "gpu-worker" || name === "render-runner" ? workerEnv(base, name) : base;
    const child = spawn(command!, args, { cwd: this.spec.cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    this.child = child;
    this.startedAt = Date.now();
    this.markers.info({ pid: child.pid, command: [command, ...args].join(" "), status: "started" }, `${this.spec.name} started`);
    // "exit", not "close": after runuser is killed, the orphaned server still holds the pipes open.
    this.exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        this.onExit(code, signal);
        resolve();
      })
    );
    child.once("error", (error) => this.markers.error({ err: error, status: "failed" }, `${this.spec.name} could not be spawned`));
    this.pipe(child.stdout!);
    this.pipe(child.stderr!);
    if (child.pid) writeFileSync(pidFile(this.spec.name), `${child.pid}\n`);
    this.sup.setComponent(this.spec.name, { state: "starting", pid: child.pid ?? null });
    this.pollReady(child);
  }

  private pipe(stream: NodeJS.ReadableStream): void {
    let partial = "";
    stream.on("data", (chunk: Buffer) => {
      this.writeLog(chunk);
      if (this.sup.quiet) return;
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) process.stdout.write(`${this.spec.name.padEnd(13)} | ${line}\n`);
    });
    stream.on("end", () => {
      if (partial && !this.sup.quiet) process.stdout.write(`${this.spec.name.padEnd(13)} | ${partial}\n`);
    });
  }

  private pollReady(child: ChildProcess): void {
    const check = async () => {
      if (this.child !== child || this.sup.stopping || this.upForMs() === 0) return;
      if (await this.spec.ready(this)) {
        if (this.child !== child) return;
        // The postmaster, not runuser, is the process worth signalling.
        const pid = this.spec.name === "db" ? db.runningPostmasterPid() ?? child.pid : child.pid;
        if (pid) writeFileSync(pidFile(this.spec.name), `${pid}\n`);
        say(`${this.spec.name} ready (pid ${pid})`, { managed: this.spec.name, pid, status: "succeeded" });
        this.sup.setComponent(this.spec.name, { state: "ready", pid: pid ?? null });
        for (const resolve of this.readyWaiters.splice(0)) resolve();
        return;
      }
      this.readyPoll = setTimeout(check, 200);
    };
    this.readyPoll = setTimeout(check, 100);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    const uptime = Date.now() - this.startedAt;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    this.markers.info(
      { exit: how, uptime_ms: uptime, status: this.sup.stopping ? "succeeded" : "failed" },
      `${this.spec.name} exited (${how}) after ${(uptime / 1000).toFixed(1)} s`,
    );
    const pid = this.child?.pid;
    this.child = null;
    rmSync(pidFile(this.spec.name), { force: true });
    // What the dead child started (an ffmpeg, say) would run on unsupervised. Not for db: a server
    // orphaned by a killed runuser is shut down cleanly by prepareDb() before the restart.
    if (pid && this.spec.name !== "db") signalGroup(pid, "SIGKILL");
    if (this.sup.stopping) return;
    if (uptime >= STABLE_AFTER_MS) this.backoff.reset();
    const delay = this.backoff.next();
    this.restarts += 1;
    say(`${this.spec.name} exited (${how}) after ${(uptime / 1000).toFixed(1)} s; restart #${this.restarts} in ${(delay / 1000).toFixed(1)} s`, {
      managed: this.spec.name,
      exit: how,
      restarts: this.restarts,
      retry_in_ms: delay,
      status: "retrying",
    });
    this.sup.setComponent(this.spec.name, { state: "restarting", pid: null, restarts: this.restarts, last_exit: how });
    if (this.spec.name !== "db") void this.sup.restartWatch.record(this.spec.name, how);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.start().catch((error) => {
        say(`${this.spec.name} could not be restarted: ${(error as Error).message}`, { managed: this.spec.name, status: "failed" });
        this.onExit(1, null);
      });
    }, delay);
  }

  async stop(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.readyPoll) clearTimeout(this.readyPoll);
    const child = this.child;
    if (child?.pid) {
      say(`stopping ${this.spec.name} (pid ${child.pid})`);
      if (this.spec.name === "db") {
        // Fast shutdown: signal the postmaster itself (runuser would turn SIGTERM into a SIGKILL).
        const postmaster = db.runningPostmasterPid();
        if (postmaster) process.kill(postmaster, "SIGINT");
        else signalGroup(child.pid, "SIGTERM");
      } else {
        signalGroup(child.pid, "SIGTERM");
      }
      const done = await Promise.race([this.exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
      if (!done) {
        say(`${this.spec.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing it`);
        signalGroup(child.pid, "SIGKILL");
        await this.exited;
      }
      // Grandchildren left in the group (a worker's ffmpeg, say) go with it.
      signalGroup(child.pid, "SIGKILL");
    }
    // A server orphaned by a killed runuser, while its restart was pending.
    if (this.spec.name === "db" && db.isRunning()) await db.stop(say);
    rmSync(pidFile(this.spec.name), { force: true });
    this.sup.setComponent(this.spec.name, { state: "stopped", pid: null });
    await new Promise<void>((resolve) => this.log.end(resolve));
  }
}

/**
 * Before the server runs under the supervisor: create and reset the cluster if it never existed,
 * and stop a server that pg_ctl (or an earlier supervisor) left running on the data directory.
 */
async function prepareDb(): Promise<void> {
  if (!db.isInitialised()) {
    say("db: no cluster yet; creating and resetting it first");
    await db.ensureRunning(say);
    await db.reset({ log: say });
  }
  db.markOutsideCluster(say);
  if (db.isRunning()) {
    say("db: a server already runs on the data directory; stopping it to run it supervised");
    await db.stop(say);
  }
  // After a kill -9 of the server, what it left would hold its shared memory and refuse the restart.
  db.reapOrphanedServerProcesses(say);
}

/** Processes a supervisor that died without stopping them left behind (their pid files remain). */
function stopOrphans(specs: ComponentSpec[]): void {
  for (const spec of specs) {
    if (spec.name === "db") continue; // prepareDb() handles a left-over server.
    let pid: number;
    try {
      pid = Number(readFileSync(pidFile(spec.name), "utf8").trim());
    } catch {
      continue;
    }
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      // Gone.
    }
    if (pid > 0 && isAlive(pid) && cmdline.includes(spec.entry)) {
      say(`${spec.name}: stopping pid ${pid} left behind by an earlier supervisor`);
      signalGroup(pid, "SIGKILL");
    }
    rmSync(pidFile(spec.name), { force: true });
  }
}

async function preflight(specs: ComponentSpec[]): Promise<string | null> {
  const other = supervisorPid();
  if (other !== null && other !== process.pid) {
    return `another stack supervisor is running (pid ${other}); stop it first (Ctrl-C in its terminal, or kill ${other})`;
  }
  stopOrphans(specs);
  reserveStackPorts(specs.flatMap((spec) => (spec.port === undefined ? [] : [spec.port])), say);
  for (const spec of specs) {
    if (spec.port === undefined) continue;
    if (spec.name === "db" && db.isRunning()) continue; // This clone's own cluster: taken over below.
    const problem = await waitForPort(spec.port, spec.name, { log: say });
    if (problem) return problem;
  }
  return null;
}

function parseArgs(argv: string[]): { quiet: boolean; only: Component[] | null; prod: boolean } {
  let quiet = false;
  let prod = false;
  let only: Component[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quiet" || arg === "-q") quiet = true;
    else if (arg === "--prod") prod = true;
    else if (arg === "--only" || arg.startsWith("--only=")) {
      const value = arg.includes("=") ? arg.slice("--only=".length) : argv[++i] ?? "";
      const names = value.split(",").filter(Boolean);
      const unknown = names.filter((n) => !(COMPONENTS as readonly string[]).includes(n));
      if (unknown.length > 0) throw new Error(`unknown component(s): ${unknown.join(", ")} (known: ${COMPONENTS.join(", ")})`);
      only = names as Component[];
    } else throw new Error(`unknown argument ${arg}; usage: bun stack/supervisor.ts [--quiet] [--prod] [--only ${COMPONENTS.join(",")}]`);
  }
  return { quiet, only, prod };
}

async function main(): Promise<number> {
  const { quiet, only, prod } = parseArgs(process.argv.slice(2));
  // Computed first: --prod with a provider left to its emulator is refused before anything starts.
  const env = localStackEnv(undefined, process.env, { prod });
  const selected = SPECS.filter((spec) => !only || only.includes(spec.name));
  const skipped = new Map<Component, string>();
  if (prod) skipped.set("emulators", "--prod: every provider is the real one");
  for (const spec of selected) {
    const why = !existsSync(join(paths.root, spec.entry)) ? `${spec.entry} not found` : spec.notNeeded?.() ?? null;
    if (why !== null) skipped.set(spec.name, why);
  }
  const present = selected.filter((spec) => !skipped.has(spec.name));
  for (const dir of [paths.run, paths.logs, paths.storage, paths.emulators]) mkdirSync(dir, { recursive: true });

  const problem = await preflight(present);
  if (problem) {
    log.error({ status: "failed" }, `refusing to start: ${problem}`);
    return 1;
  }
  writeFileSync(paths.supervisorPid, `${process.pid}\n`);
  writeStackEnv(env);
  say(`supervisor pid ${process.pid}; environment in ${paths.stackEnv}; logs in ${paths.logs}`);

  const sup = new Supervisor(quiet, env);
  for (const [name, why] of skipped) {
    say(`${name}: ${why}; not started`);
    sup.setComponent(name, { state: "absent" });
  }

  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) {
      say(`${signal} again: killing every component now`);
      for (const proc of sup.procs) if (proc.child?.pid) signalGroup(proc.child.pid, "SIGKILL");
      process.exit(1);
    }
    say(`${signal} received`);
    sup.shutdown().then(() => process.exit(0), (error) => {
      log.error({ err: error, status: "failed" }, "error while stopping");
      process.exit(1);
    });
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  try {
    for (const spec of present) {
      if (sup.stopping) break;
      const proc = new ManagedProcess(spec, sup);
      sup.procs.push(proc);
      const ready = proc.whenReady();
      await proc.start();
      const timedOut = await Promise.race([ready.then(() => false), sleep(READY_TIMEOUT_MS).then(() => true)]);
      if (timedOut && !sup.stopping) say(`${spec.name} is not ready after ${READY_TIMEOUT_MS / 1000} s (see ${logFile(spec.name)}); going on`);
      // SQL wakes the edge host through pg_net (or its stand-in) at the URL this stack serves.
      if (spec.name === "db" && !timedOut && !sup.stopping) await db.storeVaultSecrets(say, env);
    }
  } catch (error) {
    log.error({ err: error, status: "failed" }, "start-up failed");
    await sup.shutdown();
    return 1;
  }
  if (!sup.stopping) {
    sup.status.phase = "running";
    sup.writeStatus();
    const where: Partial<Record<Component, string>> = { db: LOCAL_DB_URL, emulators: LOCAL_EMULATOR_URL, edge: LOCAL_FUNCTIONS_URL };
    const running = present.map((spec) => (where[spec.name] ? `${spec.name} ${where[spec.name]}` : spec.name));
    say(`stack running: ${running.join(", ")}. Ctrl-C to stop.`, { status: "succeeded" });
  }
  // Runs until a signal arrives; the signal handler exits the process.
  await new Promise(() => {});
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log.error({ err: error, status: "failed" }, (error as Error).message);
    rmSync(paths.supervisorPid, { force: true });
    process.exit(1);
  },
);
