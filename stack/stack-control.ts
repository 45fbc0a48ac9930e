/**
 * Programmatic control of the local stack, for tests and scripts: start the supervisor
 * (`bun stack/supervisor.ts --quiet`) as a child, wait until every component is ready, stop it.
 *
 *   const stack = await startStack();
 *   try { ... } finally { await stack.stop(); }
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { Component } from "../shared/config/local-stack.ts";
import { paths } from "./paths.ts";

/** What the supervisor reports about one component in `.local/run/stack-status.json`. */
export interface ComponentStatus {
  /**
   * absent: not run, since its entry file does not exist or the installation does not need it (net
   * where the server has pg_net); starting: spawned, not ready yet; ready: its readiness check
   * passed; restarting: died, waiting out the backoff; stopped.
   */
  state: "absent" | "starting" | "ready" | "restarting" | "stopped";
  pid: number | null;
  restarts: number;
  last_exit: string | null;
}

export interface StackStatus {
  supervisor_pid: number;
  started_at: string;
  /** starting: bringing components up; running: all started; stopping; stopped. */
  phase: "starting" | "running" | "stopping" | "stopped";
  components: Partial<Record<Component, ComponentStatus>>;
}

export function readStackStatus(): StackStatus | null {
  try {
    return JSON.parse(readFileSync(paths.stackStatus, "utf8")) as StackStatus;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The supervisor's script, relative to the clone: how it is started and how its process is recognised. */
export const SUPERVISOR_ENTRY = "stack/supervisor.ts";

/** Pid of the live supervisor of this clone (as its pid file names it), or null. */
export function supervisorPid(pidFile: string = paths.supervisorPid): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, "utf8").trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  try {
    // A recycled pid belongs to some other program; only the supervisor's command line counts.
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(SUPERVISOR_ENTRY)) return null;
  } catch {
    // No /proc: trust the signal check.
  }
  return pid;
}

function supervisorLogTail(lines = 40): string {
  try {
    return readFileSync(paths.supervisorLog, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no supervisor log)";
  }
}

/** True when every component that is run has passed its readiness check. */
function allReady(status: StackStatus | null): boolean {
  if (!status || status.phase !== "running") return false;
  return Object.values(status.components).every((c) => c && (c.state === "ready" || c.state === "absent"));
}

interface WaitOptions {
  timeoutMs?: number;
  /** Fail fast when this supervisor process is gone. */
  supervisor?: number;
}

/**
 * Resolves with the stack's status once every component it runs is ready; rejects when the
 * supervisor exits or the timeout passes (the message carries the end of the supervisor's log).
 */
export async function waitForReady(options: WaitOptions = {}): Promise<StackStatus> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = readStackStatus();
    const pid = options.supervisor ?? status?.supervisor_pid;
    if (status && pid === status.supervisor_pid && allReady(status) && isAlive(pid)) return status;
    if (pid !== undefined && !isAlive(pid)) {
      throw new Error(`the stack supervisor (pid ${pid}) exited before the stack was ready:\n${supervisorLogTail()}`);
    }
    if (Date.now() > deadline) {
      const states = status ? Object.entries(status.components).map(([k, v]) => `${k}=${v?.state}`).join(" ") : "no status yet";
      throw new Error(`the stack was not ready within ${timeoutMs} ms (${states}):\n${supervisorLogTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve) => {
    const poll = () => {
      if (!isAlive(pid)) return resolve(true);
      if (Date.now() > deadline) return resolve(false);
      setTimeout(poll, 100);
    };
    poll();
  });
}

/**
 * Stops the running supervisor of this clone, if any (SIGTERM: it stops every component in reverse
 * order), and waits for it to exit.
 */
export async function stopStack(timeoutMs = 90_000): Promise<void> {
  const pid = supervisorPid();
  if (pid === null) return;
  process.kill(pid, "SIGTERM");
  if (!(await waitForExit(pid, timeoutMs))) throw new Error(`the stack supervisor (pid ${pid}) did not stop within ${timeoutMs} ms`);
}

interface StartStackOptions {
  /** Don't echo components' output (it still goes to `.local/logs/<component>.log`). Default true. */
  quiet?: boolean;
  /** Run only these components (default: all whose entry file exists). */
  only?: Component[];
  /** How long to wait for readiness; default 120 s. */
  timeoutMs?: number;
}

export interface StackHandle {
  /** The supervisor's pid. */
  readonly pid: number;
  /** False when a supervisor was already running: stop() then leaves it alone. */
  readonly owned: boolean;
  readonly status: StackStatus;
  /** Stops the stack (when owned) and waits until every process is gone. */
  stop(): Promise<void>;
}

/**
 * Starts the local stack and resolves once every component is ready. Reuses a supervisor that is
 * already running for this clone (then `owned` is false). The supervisor's own output goes to
 * `.local/logs/supervisor.log`.
 */
export async function startStack(options: StartStackOptions = {}): Promise<StackHandle> {
  const existing = supervisorPid();
  if (existing !== null) {
    const status = await waitForReady({ timeoutMs: options.timeoutMs, supervisor: existing });
    return { pid: existing, owned: false, status, stop: async () => {} };
  }
  mkdirSync(paths.logs, { recursive: true });
  const args = [join(paths.root, SUPERVISOR_ENTRY)];
  if (options.quiet ?? true) args.push("--quiet");
  if (options.only) args.push("--only", options.only.join(","));
  const out = openSync(paths.supervisorLog, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, { cwd: paths.root, stdio: ["ignore", out, out], env: process.env });
  } finally {
    closeSync(out);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${process.execPath} ${args.join(" ")}`);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let status: StackStatus;
  try {
    status = await waitForReady({ timeoutMs: options.timeoutMs, supervisor: pid });
  } catch (error) {
    if (isAlive(pid)) {
      process.kill(pid, "SIGTERM");
      await exited;
    }
    throw error;
  }
  return {
    pid,
    owned: true,
    status,
    stop: async () => {
      if (!isAlive(pid)) return;
      process.kill(pid, "SIGTERM");
      await exited;
    },
  };
}
