/**
 * CPU time from /proc, for the scale bench's two CPU figures:
 *   - the database's: the postmaster and every process under it (backends, pg_cron's and pg_net's
 *     background workers, the checkpointer...), before and after;
 *   - the edge host's per request: the `cpu_ms` field of the edge host's per-request log lines when
 *     it writes them, else its process tree's CPU sampled each second (an upper bound per request:
 *     one second can hold several ticks, never a part of one more than once).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime, own and of waited-for children, in ms. */
  cpuMs: number;
}

/** One /proc/<pid>/stat line, read after the command's closing parenthesis (a name may hold spaces). */
export function parseProcStat(line: string): ProcStat {
  const close = line.lastIndexOf(")");
  const pid = Number(line.slice(0, line.indexOf(" ")));
  const fields = line.slice(close + 2).split(" ");
  // fields[0] is the state (field 3); utime..cstime are fields 14..17.
  const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  return { pid, ppid: Number(fields[1]), cpuMs: (ticks * 1000) / USER_HZ };
}

function allProcesses(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      stats.push(parseProcStat(readFileSync(`/proc/${name}/stat`, "utf8")));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return stats;
}

/**
 * CPU ms of `root` and every live process under it. Each process counts its own time and its
 * reaped children's (cutime, cstime), and a live process is in nobody's reaped time yet, so the
 * sum is exact: a backend that exits between two readings moves into the postmaster's cstime.
 */
export function treeCpuMs(root: number): number {
  const stats = allProcesses();
  const children = new Map<number, ProcStat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const self = stats.find((s) => s.pid === root);
  if (!self) return 0;
  let total = 0;
  const queue = [self];
  while (queue.length > 0) {
    const s = queue.pop()!;
    total += s.cpuMs;
    queue.push(...(children.get(s.pid) ?? []));
  }
  return total;
}

/** Per-second CPU of the edge host's process tree, the fallback when its log has no cpu_ms. */
export class EdgeCpuWindows {
  readonly windows: number[] = [];
  #last: number | null = null;
  #pid: number | null = null;

  constructor(private readonly edgePid: () => number | null) {}

  sample(): void {
    const pid = this.edgePid();
    if (pid === null) return;
    const now = treeCpuMs(pid);
    // A restarted edge host starts counting again.
    if (this.#last !== null && pid === this.#pid && now >= this.#last) this.windows.push(now - this.#last);
    this.#last = now;
    this.#pid = pid;
  }
}

/** `cpu_ms` of each per-request line of an edge host log (pino JSON); lines without it are skipped. */
export function requestCpuFromLog(text: string): number[] {
  const values: number[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"cpu_ms"')) continue;
    try {
      const entry = JSON.parse(line) as { cpu_ms?: unknown };
      if (typeof entry.cpu_ms === "number" && Number.isFinite(entry.cpu_ms)) values.push(entry.cpu_ms);
    } catch {
      // A line cut by the rotation or another writer.
    }
  }
  return values;
}
