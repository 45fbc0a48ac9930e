/**
 * A small accelerated soak through the real processes (`npm run soak -- --days 3 --dimensions 2`):
 * three simulated days on the supervised stack with every fault kind of the plan injected, then
 * the verdict a user reads: the last line of stdout reports zero duplicates, zero stuck and zero
 * lost work, every failure is explained by an injected fault (exit code 0), no publication failed
 * for quota or a revoked grant and every reported account was reconnected, every fault kind was
 * injected, the kills and Postgres restarts were answered by the supervisor restarting what died,
 * and while the database was sick the engine logged no more than the ceiling allows.
 * `--day-seconds 360` keeps the sick-database window to 48-96 s (2-4 minutes at the default 900).
 * The soak's report stays in `out/soak-e2e/` as evidence.
 */
import { expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { paths } from "../../stack/paths.ts";
import { FAULT_KINDS } from "../../scripts/soak/plan.ts";
import type { SoakReport } from "../../scripts/soak/report.ts";

const SOAK_TIMEOUT_MS = 25 * 60_000;
const OUT = "out/soak-e2e";

function runSoak(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(paths.root, "scripts", "soak", "main.ts"), ...args], { cwd: paths.root, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      process.stdout.write(chunk);
    });
    child.once("exit", (code) => resolve({ code, stdout }));
  });
}

test("bad arguments are refused with a clear message and exit code 2", async () => {
  const { code, stdout } = await runSoak(["--days", "0", "--dimensions", "2", "--seed", "1"]);
  expect(code).toBe(2);
  expect(stdout).toBe("");
});

test("three simulated days under faults: nothing duplicated, stuck or lost, every failure explained", async () => {
  const { code, stdout } = await runSoak(["--days", "3", "--dimensions", "2", "--seed", "3", "--day-seconds", "360", "--out", OUT]);
  const lines = stdout.trimEnd().split("\n");
  const last = lines.at(-1) ?? "";
  expect(last).toMatch(/^days=3 runs=\d+ published=\d+ rejected=\d+ failed=\d+ deferred=\d+ duplicates=0 stuck=0 lost=0$/);

  const report = JSON.parse(readFileSync(join(paths.root, OUT, "report.json"), "utf8")) as SoakReport;
  expect(report.unexplained).toEqual([]);
  // A spent quota, a reached cap or a revoked grant defers publications; none fails one, every
  // deferral names what it waits for, and every account the engine reported was reconnected.
  expect(report.publish_refusal_failures).toEqual([]);
  expect(report.deferred_unnamed).toEqual([]);
  expect(report.reconnects.filter((r) => r.reconnected_at === null)).toEqual([]);
  const missing = FAULT_KINDS.filter((kind) => (report.fault_kinds_injected[kind] ?? 0) < 1);
  expect(missing).toEqual([]);
  // The sick database was measured, ran its planned time, and the engine's logging stayed bounded.
  expect(report.sick_database.length).toBeGreaterThanOrEqual(1);
  for (const window of report.sick_database) {
    expect({ fault: window.fault_id, ended_by: window.ended_by }).toEqual({ fault: window.fault_id, ended_by: "plan" });
  }
  expect(report.log_floods).toEqual([]);
  // The channel-standing guard checked every planned unit; the soak's topics are distinct, so none is a near-copy to reject.
  expect(report.similarity.checks).toBeGreaterThan(0);
  expect(report.similarity.rejected).toEqual([]);
  expect(code).toBe(0);
  // Each kill and each Postgres restart was answered by the supervisor restarting the component.
  for (const fault of report.faults.filter((f) => f.injected_at && (f.kind === "kill" || f.kind === "pg_restart"))) {
    const component = fault.kind === "kill" ? fault.component! : "db";
    expect({ component, restarted: (report.effects.restarts[component] ?? 0) > 0 }).toEqual({ component, restarted: true });
  }
  // The last line agrees with the report, and the days add up to it.
  expect(last).toContain(`published=${report.totals.published}`);
  expect(report.per_day.reduce((n, d) => n + d.published, 0)).toBe(report.totals.published);
  expect(report.per_day).toHaveLength(3);
}, SOAK_TIMEOUT_MS);
