/**
 * How a caller finds the clone's live supervisor (stack/stack-control.ts): the pid its file names,
 * alive, running the supervisor's script. A stack started while one is live would otherwise start
 * a second supervisor, and the two would stop and restart each other's Postgres.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SUPERVISOR_ENTRY, supervisorPid } from "../../stack/stack-control.ts";

let dir: string;
const children: ChildProcess[] = [];

/**
 * A live process whose command line carries `label` (bash keeps it as $0 while sleep runs),
 * returned once the kernel shows that command line (a fresh child briefly shows its parent's).
 */
async function processLabelled(label: string): Promise<number> {
  const child = spawn("bash", ["-c", "sleep 60; true", label], { stdio: "ignore" });
  children.push(child);
  const pid = child.pid!;
  for (let i = 0; i < 200 && !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(label); i++) await Bun.sleep(10);
  return pid;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mdame-supervisor-pid-"));
});

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test("the supervisor's own process is recognised by its script", async () => {
  const file = join(dir, "supervisor.pid");
  const pid = await processLabelled(`/some/clone/${SUPERVISOR_ENTRY}`);
  writeFileSync(file, `${pid}\n`);
  expect(supervisorPid(file)).toBe(pid);
});

test("a pid recycled by another program, a dead pid, or no pid file is no supervisor", async () => {
  const file = join(dir, "other.pid");
  writeFileSync(file, `${await processLabelled("/some/clone/stack/other.ts")}\n`);
  expect(supervisorPid(file)).toBeNull();
  writeFileSync(file, "4194304\n");
  expect(supervisorPid(file)).toBeNull();
  expect(supervisorPid(join(dir, "missing.pid"))).toBeNull();
});
