import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import process from "node:process";
import { makeScratchDir, orphanedScratchDirs, processExists, sweepScratchDirs } from "../../shared/storage/scratch-dirs.ts";

let base: string;
let sleeper: ReturnType<typeof spawn>;

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  const pid = child.pid!;
  await new Promise((resolve) => child.on("exit", resolve));
  return pid;
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "mdame-unit-scratch-"));
  sleeper = spawn("sleep", ["30"]);
});

afterAll(() => {
  sleeper.kill("SIGKILL");
  rmSync(base, { recursive: true, force: true });
});

describe("scratch directories", () => {
  test("a scratch directory is named after its kind and this process", async () => {
    const dir = await makeScratchDir("render", base);
    expect(existsSync(dir)).toBe(true);
    expect(basename(dir)).toMatch(new RegExp(`^mdame-scratch-render-${process.pid}-.{6}$`));
  });

  test("a kind that is not lowercase letters is refused", async () => {
    await expect(makeScratchDir("../x", base)).rejects.toThrow("lowercase letters");
    await expect(makeScratchDir("render-1", base)).rejects.toThrow("lowercase letters");
  });

  test("processExists tells a live process from one that has exited", async () => {
    expect(processExists(process.pid)).toBe(true);
    expect(processExists(sleeper.pid!)).toBe(true);
    expect(processExists(await deadPid())).toBe(false);
  });

  test("a sweep removes, with their contents, only the directories of processes that are gone", async () => {
    const dead = await deadPid();
    const orphan = join(base, `mdame-scratch-render-${dead}-abc123`);
    mkdirSync(join(orphan, "nested"), { recursive: true });
    writeFileSync(join(orphan, "nested", "render.mp4"), Buffer.alloc(4096));
    const mine = await makeScratchDir("scene", base);
    const live = join(base, `mdame-scratch-publish-${sleeper.pid}-def456`);
    mkdirSync(live);
    const unrelated = join(base, `mdame-render-${dead}-zzz`);
    mkdirSync(unrelated);

    expect(await orphanedScratchDirs(base)).toEqual([orphan]);
    const swept = await sweepScratchDirs(base);
    expect(swept).toEqual({ removed: [orphan], failed: [] });
    expect(existsSync(orphan)).toBe(false);
    for (const kept of [mine, live, unrelated]) expect(existsSync(kept)).toBe(true);
    expect(await sweepScratchDirs(base)).toEqual({ removed: [], failed: [] });
  });

  test("a sweep of a directory that does not exist finds nothing", async () => {
    expect(await sweepScratchDirs(join(base, "absent"))).toEqual({ removed: [], failed: [] });
  });
});
