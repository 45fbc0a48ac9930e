/**
 * Where a clone's cluster lives (stack/cluster-location.ts): under the clone unless root's
 * `postgres` user cannot enter it; a cluster already made stays where it is; the marker of an
 * outside cluster names its clone.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  chooseClusterLocation,
  cloneDataDir,
  outsideDataDir,
  postgresUserCanEnter,
  PROJECT_MARKER,
  projectHash,
  readProjectMarker,
  writeProjectMarker,
} from "../../stack/cluster-location.ts";
import { PROJECT_HASH, PROJECT_ROOT } from "../../stack/paths.ts";

let dir: string;
let localDir: string;
let outsideRoot: string;
const asked: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mdame-cluster-location-"));
  localDir = join(dir, "clone", ".local");
  outsideRoot = join(dir, "outside");
  mkdirSync(join(dir, "clone"));
  asked.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const choose = (overrides: { asRoot?: boolean; canEnter?: boolean; env?: string } = {}) =>
  chooseClusterLocation({
    localDir,
    projectHash: "0123456789ab",
    asRoot: overrides.asRoot ?? true,
    pgDataFromEnv: overrides.env,
    outsideRoot,
    pgUserCanEnter: (d) => {
      asked.push(d);
      return overrides.canEnter ?? true;
    },
  });

describe("where the cluster lives", () => {
  test("MDAME_PGDATA wins", () => {
    expect(choose({ env: "/srv/pg" })).toMatchObject({ dataDir: "/srv/pg", place: "environment" });
  });

  test("not root: always under the clone, without asking the postgres user", () => {
    expect(choose({ asRoot: false, canEnter: false })).toMatchObject({ dataDir: join(localDir, "db", "data"), place: "clone" });
    expect(asked).toEqual([]);
  });

  test("root, no cluster yet: under the clone when postgres can enter the nearest folder of .local/db there", () => {
    expect(choose({ canEnter: true })).toMatchObject({ dataDir: cloneDataDir(localDir), place: "clone" });
    expect(asked).toEqual([join(dir, "clone")]);
    mkdirSync(localDir);
    asked.length = 0;
    choose();
    expect(asked).toEqual([localDir]);
  });

  test("root, no cluster yet, postgres cannot enter the clone: outside, keyed by the clone's hash", () => {
    const chosen = choose({ canEnter: false });
    expect(chosen).toMatchObject({ dataDir: join(outsideRoot, "0123456789ab"), place: "outside" });
    expect(chosen.reason).toContain(join(dir, "clone"));
  });

  test("a cluster already made outside keeps being used, even where postgres could enter the clone now", () => {
    mkdirSync(outsideDataDir("0123456789ab", outsideRoot), { recursive: true });
    expect(choose({ canEnter: true })).toMatchObject({ place: "outside", dataDir: join(outsideRoot, "0123456789ab") });
    expect(asked).toEqual([]);
  });

  test("a cluster under the clone is used first, whatever exists outside", () => {
    mkdirSync(outsideDataDir("0123456789ab", outsideRoot), { recursive: true });
    mkdirSync(cloneDataDir(localDir), { recursive: true });
    writeFileSync(join(cloneDataDir(localDir), "PG_VERSION"), "15\n");
    expect(choose({ canEnter: false })).toMatchObject({ place: "clone", dataDir: cloneDataDir(localDir) });
  });

  test("the project hash is the one paths.ts keys clusters by", () => {
    expect(projectHash(PROJECT_ROOT)).toBe(PROJECT_HASH);
    expect(projectHash("/a")).toMatch(/^[0-9a-f]{12}$/);
    expect(projectHash("/a")).not.toBe(projectHash("/b"));
  });

  test.skipIf(typeof process.getuid !== "function" || process.getuid() !== 0)(
    "as root, the postgres user's access is asked of the OS: a 0700 folder is closed to it",
    () => {
      const open = join(dir, "open");
      const closed = join(dir, "closed");
      mkdirSync(open, { mode: 0o755 });
      mkdirSync(closed, { mode: 0o700 });
      chmodSync(dir, 0o755);
      chmodSync(closed, 0o700);
      expect(postgresUserCanEnter(open, "postgres")).toBe(true);
      expect(postgresUserCanEnter(closed, "postgres")).toBe(false);
      mkdirSync(join(closed, "inner"), { mode: 0o755 });
      expect(postgresUserCanEnter(join(closed, "inner"), "postgres")).toBe(false);
    },
  );
});

describe("the marker of a cluster outside its clone", () => {
  test("names the clone once; reading a missing or broken marker gives null", () => {
    const data = join(dir, "data");
    mkdirSync(data);
    expect(readProjectMarker(data)).toBeNull();
    expect(writeProjectMarker(data, "/srv/clones/some-clone")).toBe(true);
    expect(readProjectMarker(data)?.project).toBe("/srv/clones/some-clone");
    const first = readFileSync(join(data, PROJECT_MARKER), "utf8");
    expect(writeProjectMarker(data, "/srv/clones/some-clone")).toBe(false);
    expect(readFileSync(join(data, PROJECT_MARKER), "utf8")).toBe(first);
    writeFileSync(join(data, PROJECT_MARKER), "{not json");
    expect(readProjectMarker(data)).toBeNull();
    writeFileSync(join(data, PROJECT_MARKER), JSON.stringify({ project: "relative/path" }));
    expect(readProjectMarker(data)).toBeNull();
  });
});
