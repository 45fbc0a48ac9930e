/**
 * The failpoint facility (shared/failpoints.ts) in real child processes, under Bun and Deno: a
 * failpoint kills its process with SIGKILL on the chosen hit, once per process and, through its
 * record, once across the restarts a supervisor makes with the same environment.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseFailpoints } from "../../shared/failpoints.ts";

const root = resolve(import.meta.dir, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "mdame-failpoint-test-"));
const probe = join(scratch, "probe.ts");
writeFileSync(
  probe,
  `
import { failpoint, failpointWhen } from ${JSON.stringify(join(root, "shared", "failpoints.ts"))};
for (let i = 1; i <= 3; i++) {
  failpoint("probe.loop");
  console.log("passed " + i);
}
const stop = failpointWhen("probe.watch", () => true, 5);
await new Promise((r) => setTimeout(r, 100));
stop();
console.log("done");
`,
);

const RUNTIMES = {
  bun: [process.execPath, probe],
  deno: [join(root, "node_modules", ".bin", "deno"), "run", "-A", "--quiet", probe],
} as const;

function runProbe(runtime: keyof typeof RUNTIMES, env: Record<string, string>) {
  const [command, ...args] = RUNTIMES[runtime];
  const result = spawnSync(command, args, { encoding: "utf8", env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 60_000 });
  return { signal: result.signal, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.each(Object.keys(RUNTIMES) as (keyof typeof RUNTIMES)[])("failpoints under %s", (runtime) => {
  test("unset, every failpoint passes", () => {
    const run = runProbe(runtime, {});
    expect(run.signal).toBeNull();
    expect(run.stdout).toContain("passed 3\ndone");
  }, 60_000);

  test("name@N kills the process with SIGKILL on the Nth hit, once per stack", () => {
    const dir = join(scratch, `${runtime}-nth`);
    const first = runProbe(runtime, { MDAME_FAILPOINTS: "probe.loop@2", MDAME_FAILPOINT_DIR: dir });
    expect(first.signal).toBe("SIGKILL");
    expect(first.stdout).toBe("passed 1\n");
    expect(first.stderr).toContain("failpoint probe.loop hit: killing the process");
    expect(JSON.parse(readFileSync(join(dir, "probe.loop.hit"), "utf8")).name).toBe("probe.loop");
    // The restarted process has the same environment: the record keeps the failpoint from firing again.
    const restarted = runProbe(runtime, { MDAME_FAILPOINTS: "probe.loop@2", MDAME_FAILPOINT_DIR: dir });
    expect(restarted.signal).toBeNull();
    expect(restarted.stdout).toContain("passed 3\ndone");
  }, 60_000);

  test("failpointWhen fires once its condition holds", () => {
    const run = runProbe(runtime, { MDAME_FAILPOINTS: "probe.watch", MDAME_FAILPOINT_DIR: join(scratch, `${runtime}-watch`) });
    expect(run.signal).toBe("SIGKILL");
    expect(run.stdout).toContain("passed 3\n");
    expect(run.stdout).not.toContain("done");
    expect(existsSync(join(scratch, `${runtime}-watch`, "probe.watch.hit"))).toBe(true);
  }, 60_000);

  test("ENV=prod refuses failpoints", () => {
    const run = runProbe(runtime, { ENV: "prod", MDAME_FAILPOINTS: "probe.loop" });
    expect(run.signal).toBeNull();
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("MDAME_FAILPOINTS is set with ENV=prod");
  }, 60_000);
});

test("a malformed MDAME_FAILPOINTS entry is refused", () => {
  expect(parseFailpoints(" a.b , c-d@3 ,")).toEqual(new Map([["a.b", 1], ["c-d", 3]]));
  expect(() => parseFailpoints("a.b@0")).toThrow(/not <name> or <name>@<N>/);
  expect(() => parseFailpoints("Bad Name")).toThrow(/not <name> or <name>@<N>/);
});
