/**
 * `npm run clean`: a clone's local state gone, so deleting the clone leaves nothing behind.
 *
 *   npm run clean                                  stops this clone's stack and cluster, removes its
 *                                                  cluster (wherever it lives: under the clone, outside
 *                                                  it, or where MDAME_PGDATA says) and `.local/`
 *   npm run clean -- --orphans                     lists the clusters under /var/lib/postgresql/mdame
 *                                                  whose clone no longer exists (nothing removed)
 *   npm run clean -- --orphans --yes               removes them
 *   npm run clean -- --orphans --include-unmarked [--yes]
 *                                                  also the clusters with no marker whose clone is
 *                                                  unknown (made before clusters were marked)
 *
 * A running cluster is never removed by --orphans, nor one whose marker names a clone that exists,
 * nor an unmarked one whose hash is that of a worktree of this repository.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { cloneDataDir, OUTSIDE_CLUSTERS_ROOT, outsideDataDir, projectHash, readProjectMarker } from "./cluster-location.ts";
import { asPgUser, postmasterOn, runCommand } from "./db.ts";
import { pgBinDir } from "./pg-server.ts";
import { CLUSTER_LOCATION, paths, PROJECT_HASH } from "./paths.ts";
import { stopStack, supervisorPid } from "./stack-control.ts";

/** The hash paths.ts keys an outside cluster by: 12 hex digits. */
const CLUSTER_NAME = /^[0-9a-f]{12}$/;

/** Bytes under a path (files as stored, not following links); 0 when it does not exist. */
export function diskBytes(path: string): number {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of readdirSync(path)) total += diskBytes(join(path, entry));
  return total;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Stops the postmaster on `dataDir`, if one runs (pg_ctl, fast shutdown, as the cluster's OS user). */
async function stopClusterAt(dataDir: string, log: (line: string) => void): Promise<void> {
  if (postmasterOn(dataDir) === null) return;
  log(`pg_ctl: stopping the cluster in ${dataDir}`);
  const result = await runCommand(asPgUser([join(pgBinDir(), "pg_ctl"), "-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"]), { cwd: "/" });
  if (result.code !== 0 && postmasterOn(dataDir) !== null) {
    throw new Error(`pg_ctl stop failed on ${dataDir} (exit ${result.code}):\n${result.stderr || result.stdout}`);
  }
}

/** Whether a directory may be removed as a cluster's: it holds one (PG_VERSION), or nothing at all. */
function looksLikeCluster(dir: string): boolean {
  return existsSync(join(dir, "PG_VERSION")) || (existsSync(dir) && lstatSync(dir).isDirectory() && readdirSync(dir).length === 0);
}

interface CleanCloneOptions {
  /** The clone's `.local` folder. */
  localDir: string;
  /** Every place the clone's cluster may be: the one in use, the one under the clone, the one outside. */
  clusterDirs: string[];
  /** Stops the clone's stack (its supervisor) before anything is removed. */
  stopStack: () => Promise<void>;
  log?: (line: string) => void;
}

/** What a clean removed, with the bytes each held. */
export interface Removed {
  path: string;
  bytes: number;
}

/**
 * Stops the clone's stack and every cluster of it that runs, then removes its clusters (and their
 * Vault key scripts beside them) and its `.local` folder. A directory given as a cluster's that
 * holds something else is left alone and reported.
 */
export async function cleanClone(options: CleanCloneOptions): Promise<Removed[]> {
  const log = options.log ?? console.log;
  await options.stopStack();
  const removed: Removed[] = [];
  const remove = (path: string) => {
    if (!existsSync(path)) return;
    const bytes = diskBytes(path);
    rmSync(path, { recursive: true, force: true });
    removed.push({ path, bytes });
    log(`removed ${path} (${formatBytes(bytes)})`);
  };
  for (const dir of [...new Set(options.clusterDirs.map((d) => resolve(d)))]) {
    if (!existsSync(dir)) continue;
    if (!looksLikeCluster(dir)) {
      log(`left ${dir} alone: it holds no Postgres cluster`);
      continue;
    }
    await stopClusterAt(dir, log);
    remove(dir);
    remove(`${dir}-vault-getkey`);
  }
  remove(options.localDir);
  return removed;
}

/** One cluster under the outside root, and what --orphans makes of it. */
interface OutsideCluster {
  dir: string;
  bytes: number;
  /** The clone it belongs to: its marker's, or the worktree of this repository with its hash. */
  owner: string | null;
  ownerFrom: "marker" | "worktree" | null;
  /** When its server last wrote its control file (every checkpoint and shutdown): ISO date, or null. */
  lastUsed: string | null;
  /**
   * in-use: its clone exists; running: a postmaster serves it; orphan: its marker names a clone
   * that is gone; unmarked: no marker and no known clone.
   */
  state: "in-use" | "running" | "orphan" | "unmarked";
}

/** A clone's directory exists as a clone: it has its package.json. */
function cloneExists(path: string): boolean {
  return existsSync(join(path, "package.json"));
}

/**
 * The clusters under `root` (directories named by a 12-hex hash), each with its owner and state.
 * `knownClones` maps a hash to a clone path (this repository's worktrees), for unmarked clusters.
 */
export function surveyOutsideClusters(root: string, knownClones: ReadonlyMap<string, string>): OutsideCluster[] {
  if (!existsSync(root)) return [];
  const clusters: OutsideCluster[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!CLUSTER_NAME.test(name) || !lstatSync(dir).isDirectory()) continue;
    const marker = readProjectMarker(dir);
    const owner = marker?.project ?? knownClones.get(name) ?? null;
    const ownerFrom = marker ? "marker" : owner ? "worktree" : null;
    let state: OutsideCluster["state"];
    if (postmasterOn(dir) !== null) state = "running";
    else if (owner !== null && cloneExists(owner)) state = "in-use";
    else state = marker ? "orphan" : "unmarked";
    let lastUsed: string | null = null;
    try {
      lastUsed = `${statSync(join(dir, "global", "pg_control")).mtime.toISOString().slice(0, 16).replace("T", " ")} UTC`;
    } catch {
      // Not a whole cluster: its use is unknown.
    }
    clusters.push({ dir, bytes: diskBytes(dir) + diskBytes(`${dir}-vault-getkey`), owner, ownerFrom, lastUsed, state });
  }
  return clusters;
}

/** The clusters --orphans removes: orphans, and unmarked ones when asked. */
export function clustersToRemove(clusters: OutsideCluster[], includeUnmarked: boolean): OutsideCluster[] {
  return clusters.filter((c) => c.state === "orphan" || (includeUnmarked && c.state === "unmarked"));
}

/** Lines describing the survey, one per cluster, and what is (or would be) done. */
export function describeSurvey(clusters: OutsideCluster[], includeUnmarked: boolean, apply: boolean): string[] {
  if (clusters.length === 0) return ["no clusters outside the clones"];
  const lines = clusters.map((c) => {
    const owner = c.owner === null
      ? "no marker, clone unknown"
      : `${c.owner}${c.ownerFrom === "worktree" ? " (a worktree of this repository, no marker)" : ""}`;
    const action = c.state === "orphan" || (c.state === "unmarked" && includeUnmarked)
      ? (apply ? "removed" : "would be removed")
      : c.state === "unmarked"
      ? "kept (--include-unmarked removes it)"
      : c.state === "running"
      ? "kept: a server runs on it"
      : "kept: its clone exists";
    return `${c.dir}  ${formatBytes(c.bytes).padStart(8)}  last used ${c.lastUsed ?? "(unknown)           "}  ${c.state.padEnd(8)}  ${owner}: ${action}`;
  });
  const chosen = clustersToRemove(clusters, includeUnmarked);
  const total = formatBytes(chosen.reduce((sum, c) => sum + c.bytes, 0));
  lines.push(
    chosen.length === 0
      ? "nothing to remove"
      : apply
      ? `removed ${chosen.length} cluster(s), ${total}`
      : `${chosen.length} cluster(s), ${total}, would be removed: run again with --yes to remove them`,
  );
  return lines;
}

/** Removes the chosen clusters and their Vault key scripts, checking again that none started meanwhile. */
export function removeOutsideClusters(chosen: OutsideCluster[], log: (line: string) => void): number {
  let removed = 0;
  for (const cluster of chosen) {
    if (postmasterOn(cluster.dir) !== null) {
      log(`left ${cluster.dir}: a server started on it`);
      continue;
    }
    rmSync(cluster.dir, { recursive: true, force: true });
    rmSync(`${cluster.dir}-vault-getkey`, { force: true });
    removed += 1;
  }
  return removed;
}

/** This repository's worktrees by the hash paths.ts gives their path (`git worktree list`). */
function worktreeHashes(hashOf: (path: string) => string = projectHash): Map<string, string> {
  const listing = spawnSync("git", ["-C", paths.root, "worktree", "list", "--porcelain"], { encoding: "utf8" });
  const known = new Map<string, string>();
  for (const line of (listing.stdout ?? "").split("\n")) {
    if (line.startsWith("worktree ")) {
      const path = line.slice("worktree ".length);
      known.set(hashOf(path), path);
    }
  }
  return known;
}

const USAGE = "usage: npm run clean [-- --orphans [--include-unmarked] [--yes]]";

async function main(argv: string[]): Promise<number> {
  const known = new Set(["--orphans", "--include-unmarked", "--yes"]);
  const unknown = argv.find((a) => !known.has(a));
  if (unknown !== undefined) {
    console.error(`clean: unknown argument ${unknown}\n${USAGE}`);
    return 2;
  }
  const orphans = argv.includes("--orphans");
  if (!orphans && (argv.includes("--include-unmarked") || argv.includes("--yes"))) {
    console.error(`clean: --include-unmarked and --yes go with --orphans\n${USAGE}`);
    return 2;
  }
  if (orphans) {
    const includeUnmarked = argv.includes("--include-unmarked");
    const apply = argv.includes("--yes");
    const clusters = surveyOutsideClusters(OUTSIDE_CLUSTERS_ROOT, worktreeHashes());
    if (apply) removeOutsideClusters(clustersToRemove(clusters, includeUnmarked), console.log);
    for (const line of describeSurvey(clusters, includeUnmarked, apply)) console.log(line);
    return 0;
  }
  const removed = await cleanClone({
    localDir: paths.local,
    clusterDirs: [CLUSTER_LOCATION.dataDir, cloneDataDir(paths.local), outsideDataDir(PROJECT_HASH)],
    stopStack: async () => {
      if (supervisorPid() === null) return;
      console.log("stopping the stack");
      await stopStack();
    },
  });
  const total = formatBytes(removed.reduce((sum, r) => sum + r.bytes, 0));
  console.log(removed.length === 0 ? `nothing to remove: ${paths.root} has no local state` : `clean: ${total} removed; ${paths.root} holds no local state now`);
  return 0;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`clean failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
