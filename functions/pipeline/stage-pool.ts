import process from "node:process";

/**
 * The stage runner's pool: up to `concurrency` tasks in flight, claimed as slots free, so a claim
 * asks for exactly the free slots and the claims follow the backlog. Stage tasks mostly wait on
 * I/O (LLM, TTS, uploads): running several at once costs little CPU and shortens a tick's drain.
 */
interface PoolOptions<T> {
  concurrency: number;
  /** Claims up to `n` tasks; fewer, or none, when the queue shows fewer visible. */
  claim: (n: number) => Promise<T[]>;
  /** Runs one claimed task to its end; false when it failed (and was handed back or dead-lettered). */
  run: (task: T) => Promise<boolean>;
  /** False once the tick's wall or CPU budget is spent: nothing more is claimed after that. */
  mayClaim: () => boolean;
}

interface PoolResult {
  processed: number;
  failed: number;
  /** True when the budget stopped the claims: work may remain for the next tick. */
  more: boolean;
}

export async function runPool<T>(options: PoolOptions<T>): Promise<PoolResult> {
  const inFlight = new Set<Promise<void>>();
  let processed = 0;
  let failed = 0;
  // A task whose run threw (its failure could not even be recorded, e.g. the database went away):
  // no claim after it, and the drain rethrows it once the other tasks are done.
  let thrown: { error: unknown } | null = null;
  const start = (task: T) => {
    const running: Promise<void> = options.run(task).then(
      (ok) => {
        processed++;
        if (!ok) failed++;
      },
      (error) => {
        processed++;
        failed++;
        thrown ??= { error };
      },
    ).finally(() => inFlight.delete(running));
    inFlight.add(running);
  };

  // After a claim found fewer tasks than it asked for, the next one waits for a task to finish:
  // a finished task's completion queues its next stage, the work a claim at once would not see.
  let claimAfterSettle = false;
  let more = false;
  for (;;) {
    const free = options.concurrency - inFlight.size;
    if (free > 0 && !claimAfterSettle && thrown === null) {
      if (!options.mayClaim()) {
        more = true;
        break;
      }
      const tasks = await options.claim(free);
      for (const task of tasks) start(task);
      if (tasks.length === 0 && inFlight.size === 0) break;
      claimAfterSettle = tasks.length < free;
      continue;
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight);
    claimAfterSettle = false;
  }
  await Promise.all(inFlight);
  if (thrown !== null) throw (thrown as { error: unknown }).error;
  return { processed, failed, more };
}

/**
 * The CPU time (user + system, in ms) this process has used since the meter started. On the
 * hosted runtime the count is the whole process's, at least the request's own; in the local edge
 * host's workers, which serve one request at a time, it is the request's.
 */
export function startCpuMeter(): () => number {
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
}
