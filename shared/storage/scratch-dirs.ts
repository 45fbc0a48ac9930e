/**
 * Scratch directories for work in progress (a clip being drawn, a render, a video being uploaded).
 *
 * A process killed with SIGKILL never reaches its `finally`, so its scratch directory stays behind
 * (10–20 MB for a render). Each directory is named after the process that made it,
 * `mdame-scratch-<kind>-<pid>-<random>`, and every component sweeps, when it starts, the ones whose
 * process is gone. Runs on Bun and on Deno (node: modules only).
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const PREFIX = "mdame-scratch-";
const NAME = /^mdame-scratch-([a-z]+)-(\d+)-/;

/** Creates `<base>/mdame-scratch-<kind>-<pid>-XXXXXX` (base: the OS temp directory). */
export async function makeScratchDir(kind: string, base: string = tmpdir()): Promise<string> {
  if (!/^[a-z]+$/.test(kind)) throw new Error(`scratch directory kind must be lowercase letters, got ${JSON.stringify(kind)}`);
  return await mkdtemp(join(base, `${PREFIX}${kind}-${process.pid}-`));
}

/** Whether a process with this pid exists (on Linux, from /proc; elsewhere by signal 0). */
export function processExists(pid: number): boolean {
  if (existsSync("/proc/self")) return existsSync(`/proc/${pid}`);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/** Scratch directories under `base` whose process is gone: what a sweep would remove. */
export async function orphanedScratchDirs(base: string = tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(base);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const match = NAME.exec(name);
      return match !== null && Number(match[2]) !== process.pid && !processExists(Number(match[2]));
    })
    .map((name) => join(base, name));
}

/** A start-up sweep: removes what dead processes left under the OS temp directory and logs it, if anything. */
export async function sweepScratchDirsAtStart(logger: { info(detail: object, message: string): void }): Promise<void> {
  const swept = await sweepScratchDirs();
  if (swept.removed.length + swept.failed.length > 0) {
    logger.info({ removed: swept.removed, failed: swept.failed }, "scratch directories of dead processes swept");
  }
}

/**
 * Removes the scratch directories of processes that are gone; returns what it removed. A directory
 * that cannot be removed is left for the next sweep and named in `failed`.
 */
export async function sweepScratchDirs(base: string = tmpdir()): Promise<{ removed: string[]; failed: string[] }> {
  const removed: string[] = [];
  const failed: string[] = [];
  for (const dir of await orphanedScratchDirs(base)) {
    try {
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      failed.push(dir);
    }
  }
  return { removed, failed };
}
