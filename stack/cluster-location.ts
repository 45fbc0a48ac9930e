/**
 * Where a clone's Postgres cluster lives (docs/design.md, "Local stack"), and the marker that names the
 * clone owning a cluster kept outside it.
 *
 * Under the clone (`.local/db/data`) whenever possible, so deleting the clone deletes its data. As
 * root the cluster runs as the `postgres` OS user (initdb refuses root), which may not be able to
 * enter the clone (one under /root, say); only then does the cluster live outside, in
 * /var/lib/postgresql/mdame/<hash of the clone's path>, with `mdame-project.json` in it naming the
 * clone, so `npm run clean -- --orphans` can tell a cluster whose clone was deleted. A clone that
 * already has a cluster outside keeps using it until `npm run clean` removes it: nothing moves data.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Where root's clusters live when the `postgres` OS user cannot enter the clone. */
export const OUTSIDE_CLUSTERS_ROOT = "/var/lib/postgresql/mdame";

/** The file in an outside cluster's data directory naming the clone it belongs to. */
export const PROJECT_MARKER = "mdame-project.json";

type ClusterPlace = "clone" | "outside" | "environment";

interface ClusterLocation {
  dataDir: string;
  place: ClusterPlace;
  /** Why there, for `db.ts status` and `npm run clean`. */
  reason: string;
}

interface LocationInputs {
  /** The clone's `.local` folder. */
  localDir: string;
  /** The clone's short hash (paths.ts PROJECT_HASH). */
  projectHash: string;
  asRoot: boolean;
  /** MDAME_PGDATA, when set. */
  pgDataFromEnv?: string;
  outsideRoot?: string;
  /** Whether the `postgres` OS user may pass through `dir` (and every folder above it). */
  pgUserCanEnter: (dir: string) => boolean;
}

/** A short, stable name for a clone, from its path: what keeps clusters of different clones apart. */
export function projectHash(projectRoot: string): string {
  return createHash("sha256").update(projectRoot).digest("hex").slice(0, 12);
}

/** The cluster's data directory inside the clone. */
export function cloneDataDir(localDir: string): string {
  return join(localDir, "db", "data");
}

/** The cluster's data directory outside the clone, for root when `postgres` cannot enter it. */
export function outsideDataDir(projectHash: string, outsideRoot: string = OUTSIDE_CLUSTERS_ROOT): string {
  return join(outsideRoot, projectHash);
}

/** The nearest folder of `dir` (itself or an ancestor) that exists. */
function nearestExisting(dir: string): string {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/**
 * Decides where the cluster lives. A cluster already made stays where it is (the clone's first,
 * then the outside one); a new one goes under the clone unless root's `postgres` user cannot reach
 * `.local/db` there.
 */
export function chooseClusterLocation(inputs: LocationInputs): ClusterLocation {
  if (inputs.pgDataFromEnv) return { dataDir: inputs.pgDataFromEnv, place: "environment", reason: "MDAME_PGDATA names it" };
  const inClone = cloneDataDir(inputs.localDir);
  if (!inputs.asRoot) return { dataDir: inClone, place: "clone", reason: "the cluster runs as this user, inside the clone" };
  if (existsSync(join(inClone, "PG_VERSION"))) return { dataDir: inClone, place: "clone", reason: "the clone's cluster exists" };
  const outside = outsideDataDir(inputs.projectHash, inputs.outsideRoot);
  if (existsSync(outside)) {
    return { dataDir: outside, place: "outside", reason: "the clone's cluster exists outside it, where it was made (npm run clean removes it)" };
  }
  const entry = nearestExisting(dirname(inClone));
  if (inputs.pgUserCanEnter(entry)) return { dataDir: inClone, place: "clone", reason: "the postgres OS user can enter the clone" };
  return { dataDir: outside, place: "outside", reason: `the postgres OS user cannot enter ${entry}` };
}

/** Whether the `postgres` OS user may search `dir` (and so pass every folder above it): `runuser ... test -x`. */
export function postgresUserCanEnter(dir: string, pgUser: string): boolean {
  return spawnSync("runuser", ["-u", pgUser, "--", "test", "-x", dir], { stdio: "ignore" }).status === 0;
}

/** What an outside cluster's marker says. */
interface ProjectMarker {
  project: string;
  created_at: string;
}

/** The marker of a cluster directory, or null when it has none (or an unreadable one). */
export function readProjectMarker(dataDir: string): ProjectMarker | null {
  try {
    const value = JSON.parse(readFileSync(join(dataDir, PROJECT_MARKER), "utf8")) as Partial<ProjectMarker>;
    return typeof value.project === "string" && value.project.startsWith("/") ? { project: value.project, created_at: String(value.created_at ?? "") } : null;
  } catch {
    return null;
  }
}

/**
 * Names the owning clone in a cluster kept outside it (a no-op when the marker is there). Called at
 * init and at every start, so clusters made before markers existed get one when their clone runs.
 */
export function writeProjectMarker(dataDir: string, project: string, owner?: { uid: number; gid: number }): boolean {
  if (readProjectMarker(dataDir)?.project === project) return false;
  const file = join(dataDir, PROJECT_MARKER);
  writeFileSync(file, `${JSON.stringify({ project, created_at: new Date().toISOString() })}\n`, { mode: 0o644 });
  if (owner) chownSync(file, owner.uid, owner.gid);
  return true;
}
