/**
 * Supabase's per-request limits as the local edge host enforces them, and what it reads of a
 * worker process to enforce them. The hosted runtime's values are the defaults (EDGE_CPU_LIMIT_MS,
 * EDGE_MEMORY_LIMIT_MB, EDGE_WALL_LIMIT_S in shared/config/env.ts, which the tick reads too).
 */
import { readFile } from "node:fs/promises";
import type { EngineEnv } from "../shared/config/env.ts";

export interface EdgeLimits {
  /** CPU time (user + system) a request may use. */
  cpuMs: number;
  /** Resident memory its worker may hold while it runs. */
  memoryBytes: number;
  /** Time from the request reaching a worker to its answer. */
  wallMs: number;
}

export type EdgeLimit = keyof EdgeLimits;

export function edgeLimits(env: Pick<EngineEnv, "EDGE_CPU_LIMIT_MS" | "EDGE_MEMORY_LIMIT_MB" | "EDGE_WALL_LIMIT_S">): EdgeLimits {
  return { cpuMs: env.EDGE_CPU_LIMIT_MS, memoryBytes: env.EDGE_MEMORY_LIMIT_MB * 1024 * 1024, wallMs: env.EDGE_WALL_LIMIT_S * 1000 };
}

/** What a limit's log line and answer call it. */
export const LIMIT_NAMES: Record<EdgeLimit, string> = { cpuMs: "cpu", memoryBytes: "memory", wallMs: "wall" };

interface ProcessUsage {
  /** CPU time since the process started: all its threads (V8's GC and compiler included). */
  cpuMs: number;
  rssBytes: number;
}

/** /proc counts CPU time in USER_HZ ticks, 100 a second on Linux whatever the kernel's own HZ. */
const USER_HZ = 100;

/**
 * A process's CPU time (utime + stime of /proc/<pid>/stat) and resident memory (VmRSS of
 * /proc/<pid>/status); null once the process is gone.
 */
export async function processUsage(pid: number): Promise<ProcessUsage | null> {
  try {
    const [stat, status] = await Promise.all([readFile(`/proc/${pid}/stat`, "utf8"), readFile(`/proc/${pid}/status`, "utf8")]);
    // The command name (2nd field) is in parentheses and may hold spaces: fields are counted after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? "0");
    return { cpuMs: (ticks * 1000) / USER_HZ, rssBytes: rssKb * 1024 };
  } catch {
    return null;
  }
}

/** The first limit `used` passes, if any. */
export function limitPassed(limits: EdgeLimits, used: { cpuMs: number; rssBytes: number; wallMs: number }): EdgeLimit | null {
  if (used.cpuMs > limits.cpuMs) return "cpuMs";
  if (used.rssBytes > limits.memoryBytes) return "memoryBytes";
  if (used.wallMs > limits.wallMs) return "wallMs";
  return null;
}
