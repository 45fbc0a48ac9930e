/**
 * The test runner's pool (scripts/test.ts): every job of the database layers (a test file, pgTAP,
 * the pgmq-1.4 layer) goes to whichever lane is free, so the machine's cores stay busy until the
 * last job instead of each layer waiting for its slowest stack. A lane is a whole local stack of
 * the clone (its own cluster, ports and `.local/` state) or, for the jobs that need none, a lane
 * without one. A lane runs one job at a time; a free lane takes the first job in the queue it may
 * run (one pinned to another lane, or needing a stack it lacks, waits for that lane; a lane kept for
 * pinned jobs takes no other), and the queue
 * is ordered longest first, as the last runs that passed them measured them (`.local/test-times.json`), so the long
 * e2e runs start at once and the short files fill the gaps at the end.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface Lane {
  name: string;
  /** False for the lane that runs only the jobs that need no stack. */
  hasStack: boolean;
  /**
   * True for a lane that runs only the jobs pinned to it: a stack for the jobs that spend their time
   * waiting (on pg_cron's minutes, say), so they hold no lane the busy jobs need.
   */
  pinnedOnly?: boolean;
}

export interface PoolJob<R> {
  /** A test file's path, or the name of a job that is not one file. */
  name: string;
  /** The lane it must run on, if any. */
  lane?: string;
  needsStack: boolean;
  /** Expected seconds, for the order (longest first). */
  expected: number;
  run(lane: Lane): Promise<R>;
}

/**
 * The index of the job `lane` takes next, or -1 when none of the queue's jobs may run on it. A lane
 * with a stack takes a job that needs none only when no job left needs its stack: stacks are the
 * scarce lanes.
 */
export function nextJob(queue: readonly Pick<PoolJob<unknown>, "lane" | "needsStack">[], lane: Lane): number {
  const may = (job: Pick<PoolJob<unknown>, "lane" | "needsStack">) =>
    (job.lane === lane.name || (job.lane === undefined && !lane.pinnedOnly)) && (lane.hasStack || !job.needsStack);
  const first = queue.findIndex((job) => may(job) && job.needsStack === lane.hasStack);
  return first !== -1 ? first : queue.findIndex(may);
}

/** The jobs longest first; equal ones keep their order. */
export function longestFirst<J extends Pick<PoolJob<unknown>, "expected">>(jobs: J[]): J[] {
  return jobs.map((job, index) => ({ job, index })).sort((a, b) => b.job.expected - a.job.expected || a.index - b.index).map(({ job }) => job);
}

export interface Finished<R> {
  job: PoolJob<R>;
  lane: Lane;
  result: R;
  seconds: number;
  /** When it ended, in seconds on the clock of `performance.now()`. */
  endedAt: number;
}

/**
 * Runs every job on the lanes, each lane one job at a time; `onStart` and `onDone` are called as
 * they go. Resolves with every job's result once all are done. A job no lane may run is reported
 * as an error before anything starts.
 */
export async function runPool<R>(
  jobs: PoolJob<R>[],
  lanes: Lane[],
  events: { onStart?: (job: PoolJob<R>, lane: Lane) => void; onDone?: (done: Finished<R>) => void } = {},
): Promise<Finished<R>[]> {
  const orphans = jobs.filter((job) => !lanes.some((lane) => nextJob([job], lane) === 0));
  if (orphans.length > 0) throw new Error(`no lane may run ${orphans.map((j) => j.name).join(", ")}`);
  const queue = longestFirst(jobs);
  const finished: Finished<R>[] = [];
  const work = async (lane: Lane) => {
    for (;;) {
      const index = nextJob(queue, lane);
      if (index === -1) return;
      const [job] = queue.splice(index, 1);
      events.onStart?.(job!, lane);
      const started = performance.now();
      const result = await job!.run(lane);
      const ended = performance.now();
      const done = { job: job!, lane, result, seconds: (ended - started) / 1000, endedAt: ended / 1000 };
      finished.push(done);
      events.onDone?.(done);
    }
  };
  await Promise.all(lanes.map(work));
  return finished;
}

/** Seconds each job took the last time, by name (`.local/test-times.json`); empty when none was kept. */
export function readTimes(file: string): Record<string, number> {
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (typeof parsed !== "object" || parsed === null) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === "number" && entry[1] >= 0));
  } catch {
    return {};
  }
}

/** Keeps this run's times, over the last ones (a job not run this time keeps its old time). */
export function writeTimes(file: string, times: Record<string, number>): void {
  mkdirSync(dirname(file), { recursive: true });
  const merged = { ...readTimes(file), ...Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(v * 10) / 10])) };
  writeFileSync(file, `${JSON.stringify(Object.fromEntries(Object.entries(merged).sort()), null, 2)}\n`);
}
