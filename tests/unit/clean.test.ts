/**
 * `npm run clean` (stack/clean.ts) on folders made for the test: a clone's cluster and `.local/`
 * removed, and --orphans telling the clusters outside the clones apart (orphan, unmarked, in use),
 * removing only what it is asked to.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { writeProjectMarker } from "../../stack/cluster-location.ts";
import { cleanClone, clustersToRemove, describeSurvey, diskBytes, formatBytes, removeOutsideClusters, surveyOutsideClusters } from "../../stack/clean.ts";
import { paths } from "../../stack/paths.ts";

let dir: string;
let root: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mdame-clean-"));
  root = join(dir, "mdame");
  mkdirSync(root);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A stopped cluster's directory: PG_VERSION and some data. */
function fakeCluster(path: string, bytes = 4096): string {
  mkdirSync(join(path, "base"), { recursive: true });
  mkdirSync(join(path, "global"));
  writeFileSync(join(path, "global", "pg_control"), Buffer.alloc(8192));
  utimesSync(join(path, "global", "pg_control"), new Date("2026-11-20T10:30:00Z"), new Date("2026-11-20T10:30:00Z"));
  writeFileSync(join(path, "PG_VERSION"), "15\n");
  writeFileSync(join(path, "base", "1"), Buffer.alloc(bytes));
  return path;
}

function clone(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, "package.json"), "{}");
  return path;
}

describe("cleaning a clone", () => {
  test("stops the stack first, then removes its clusters, their Vault key scripts and .local/", async () => {
    const local = join(clone("a"), ".local");
    const inClone = fakeCluster(join(local, "db", "data"));
    writeFileSync(join(local, "secrets.json"), "{}");
    const outside = fakeCluster(join(root, "aaaaaaaaaaaa"), 10_000);
    writeFileSync(`${outside}-vault-getkey`, "#!/bin/sh\n");
    const order: string[] = [];
    const removed = await cleanClone({
      localDir: local,
      clusterDirs: [inClone, outside, join(root, "bbbbbbbbbbbb")],
      stopStack: async () => {
        order.push(`stop (local exists: ${existsSync(local)})`);
      },
      log: (line) => order.push(line),
    });
    expect(order[0]).toBe("stop (local exists: true)");
    expect(removed.map((r) => r.path)).toEqual([inClone, outside, `${outside}-vault-getkey`, local]);
    expect(removed.find((r) => r.path === outside)!.bytes).toBeGreaterThanOrEqual(10_000);
    expect(existsSync(local) || existsSync(outside) || existsSync(`${outside}-vault-getkey`)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });

  test("a directory named as a cluster's that holds something else is left alone", async () => {
    const other = join(dir, "not-a-cluster");
    mkdirSync(other);
    writeFileSync(join(other, "important.txt"), "keep me");
    const lines: string[] = [];
    await cleanClone({ localDir: join(dir, "none", ".local"), clusterDirs: [other], stopStack: async () => {}, log: (l) => lines.push(l) });
    expect(existsSync(join(other, "important.txt"))).toBe(true);
    expect(lines).toEqual([`left ${other} alone: it holds no Postgres cluster`]);
  });
});

describe("clusters outside the clones (--orphans)", () => {
  function layout() {
    const alive = clone("alive");
    const known = clone("known-worktree");
    const inUse = fakeCluster(join(root, "111111111111"));
    writeProjectMarker(inUse, alive);
    const orphan = fakeCluster(join(root, "222222222222"), 20_000);
    writeProjectMarker(orphan, join(dir, "deleted-clone"));
    writeFileSync(`${orphan}-vault-getkey`, "#!/bin/sh\n");
    const unmarked = fakeCluster(join(root, "333333333333"), 30_000);
    const unmarkedKnown = fakeCluster(join(root, "444444444444"));
    mkdirSync(join(root, "not-a-hash"));
    writeFileSync(join(root, "555555555555"), "a file, not a cluster");
    const knownClones = new Map([["444444444444", known]]);
    return { inUse, orphan, unmarked, unmarkedKnown, knownClones, alive, known };
  }

  test("each cluster is told by its marker, or by the worktree whose hash it bears", () => {
    const l = layout();
    const survey = surveyOutsideClusters(root, l.knownClones);
    expect(survey.map((c) => [c.dir, c.state, c.owner, c.ownerFrom])).toEqual([
      [l.inUse, "in-use", l.alive, "marker"],
      [l.orphan, "orphan", join(dir, "deleted-clone"), "marker"],
      [l.unmarked, "unmarked", null, null],
      [l.unmarkedKnown, "in-use", l.known, "worktree"],
    ]);
    expect(survey[1]!.bytes).toBe(diskBytes(l.orphan) + diskBytes(`${l.orphan}-vault-getkey`));
    expect(surveyOutsideClusters(join(dir, "missing"), new Map())).toEqual([]);
  });

  test("a dry run lists sizes and what would go, and removes nothing", () => {
    const l = layout();
    const survey = surveyOutsideClusters(root, l.knownClones);
    const lines = describeSurvey(survey, false, false);
    expect(lines.find((line) => line.startsWith(l.orphan))).toContain("orphan");
    expect(lines.find((line) => line.startsWith(l.orphan))).toContain("would be removed");
    expect(lines.find((line) => line.startsWith(l.orphan))).toContain(formatBytes(survey[1]!.bytes));
    expect(lines.find((line) => line.startsWith(l.unmarked))).toContain("kept (--include-unmarked removes it)");
    expect(lines.find((line) => line.startsWith(l.unmarked))).toContain("last used 2026-11-20 10:30");
    expect(lines.find((line) => line.startsWith(l.inUse))).toContain("kept: its clone exists");
    expect(lines.at(-1)).toContain("run again with --yes");
    expect(existsSync(l.orphan)).toBe(true);
  });

  test("orphans go; unmarked ones only when included; clusters of live clones never", () => {
    const l = layout();
    let survey = surveyOutsideClusters(root, l.knownClones);
    expect(removeOutsideClusters(clustersToRemove(survey, false), () => {})).toBe(1);
    expect(existsSync(l.orphan) || existsSync(`${l.orphan}-vault-getkey`)).toBe(false);
    expect(existsSync(l.unmarked)).toBe(true);
    survey = surveyOutsideClusters(root, l.knownClones);
    expect(clustersToRemove(survey, true).map((c) => c.dir)).toEqual([l.unmarked]);
    expect(removeOutsideClusters(clustersToRemove(survey, true), () => {})).toBe(1);
    expect(readdirSync(root).sort()).toEqual(["111111111111", "444444444444", "555555555555", "not-a-hash"]);
    expect(describeSurvey(surveyOutsideClusters(root, l.knownClones), true, true).at(-1)).toBe("nothing to remove");
  });

  test("the command refuses unknown arguments and --yes without --orphans, touching nothing", async () => {
    for (const args of [["--bogus"], ["--yes"], ["--include-unmarked"]]) {
      const child = Bun.spawn([process.execPath, join(paths.root, "stack", "clean.ts"), ...args], { cwd: paths.root, stdout: "pipe", stderr: "pipe" });
      const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect(code).toBe(2);
      expect(stderr).toContain("usage: npm run clean");
    }
    expect(existsSync(paths.local)).toBe(true);
  });
});
