/**
 * A clone the `postgres` OS user cannot enter, for real: a copy of the stack's code inside a 0700
 * folder (under this clone's `.local/`, so it resolves this clone's node_modules) is a clone of its
 * own. Its cluster goes to /var/lib/postgresql/mdame/<its hash> with a marker naming it; its
 * `npm run clean` (stack/clean.ts run from the copy) stops and removes that cluster and its
 * `.local/`; and once such a clone is deleted, --orphans finds its cluster as an orphan and removes
 * it. Only the copy's own cluster is touched. Runs as root only (otherwise clusters live in clones).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { OUTSIDE_CLUSTERS_ROOT, outsideDataDir, PROJECT_MARKER, projectHash } from "../../stack/cluster-location.ts";
import { clustersToRemove, removeOutsideClusters, surveyOutsideClusters } from "../../stack/clean.ts";
import { postmasterOn } from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

let closed: string;
let clone: string;
let dataDir: string;
let port: number;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs one of the copy's stack scripts, as its clone would. */
async function inClone(script: string, args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, MDAME_DB_PORT: String(port), MDAME_RESERVE_PORTS: "0" };
  delete env.MDAME_PGDATA;
  const child = Bun.spawn([process.execPath, join(clone, "stack", script), ...args], { cwd: clone, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: stdout + stderr };
}

function makeClone(): void {
  mkdirSync(clone, { recursive: true });
  for (const part of ["stack", "shared", "functions"]) cpSync(join(paths.root, part), join(clone, part), { recursive: true });
  writeFileSync(join(clone, "package.json"), readFileSync(join(paths.root, "package.json")));
}

beforeAll(async () => {
  if (!asRoot) return;
  closed = join(paths.local, "test-closed-clones", String(process.pid));
  mkdirSync(closed, { recursive: true, mode: 0o700 });
  clone = join(closed, "clone");
  dataDir = outsideDataDir(projectHash(clone));
  port = await freePort();
});

afterAll(async () => {
  if (!asRoot) return;
  if (postmasterOn(dataDir) !== null && existsSync(join(clone, "stack"))) await inClone("db.ts", ["stop"]);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(join(paths.local, "test-closed-clones"), { recursive: true, force: true });
}, 90_000);

describe.skipIf(!asRoot)("a clone the postgres OS user cannot enter", () => {
  test("its cluster lives outside, marked with the clone's path, and runs", async () => {
    makeClone();
    expect(existsSync(dataDir)).toBe(false);
    const init = await inClone("db.ts", ["init"]);
    expect(init.code).toBe(0);
    expect(init.output).toContain(`initdb: creating cluster in ${dataDir}`);
    expect(init.output).toContain(`the postgres OS user cannot enter ${clone}`);
    expect(JSON.parse(readFileSync(join(dataDir, PROJECT_MARKER), "utf8")).project).toBe(clone);
    expect(existsSync(join(clone, ".local", "db"))).toBe(false);
    const start = await inClone("db.ts", ["start"]);
    expect(start.code).toBe(0);
    expect(postmasterOn(dataDir)).not.toBeNull();
    const status = await inClone("db.ts", ["status"]);
    expect(status.output).toContain(`location:       outside: the clone's cluster exists outside it, where it was made`);
  }, 120_000);

  test("--orphans keeps it while its clone exists", () => {
    const mine = surveyOutsideClusters(OUTSIDE_CLUSTERS_ROOT, new Map()).find((c) => c.dir === dataDir);
    expect(mine).toMatchObject({ owner: clone, ownerFrom: "marker", state: "running" });
  });

  test("the clone's npm run clean stops it and removes it and the clone's .local/", async () => {
    mkdirSync(join(clone, ".local", "logs"), { recursive: true });
    writeFileSync(join(clone, ".local", "logs", "db.log"), "a line\n");
    const clean = await inClone("clean.ts", []);
    expect(clean.code).toBe(0);
    expect(clean.output).toContain(`pg_ctl: stopping the cluster in ${dataDir}`);
    expect(clean.output).toContain(`removed ${dataDir}`);
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(join(clone, ".local"))).toBe(false);
    expect(existsSync(join(clone, "package.json"))).toBe(true);
  }, 120_000);

  test("once the clone is deleted, --orphans names its cluster an orphan and removes it", async () => {
    expect((await inClone("db.ts", ["init"])).code).toBe(0);
    rmSync(clone, { recursive: true, force: true });
    const mine = surveyOutsideClusters(OUTSIDE_CLUSTERS_ROOT, new Map()).filter((c) => c.dir === dataDir);
    expect(mine.map((c) => [c.state, c.owner])).toEqual([["orphan", clone]]);
    expect(clustersToRemove(mine, false)).toEqual(mine);
    expect(removeOutsideClusters(mine, () => {})).toBe(1);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);
});
