/**
 * Crash runs A (chosen points in each component) and C (the upload session stored before the first
 * byte, and Postgres killed mid-run); tests/e2e/crash-scenarios.ts says what every run checks.
 */
import { afterAll, describe, test } from "bun:test";
import { inStage, killComponent, runScenario, say, sayDurations, SCENARIO_TIMEOUT_MS, sleep } from "./crash-scenarios.ts";

afterAll(sayDurations);

describe("a crash anywhere converges with zero duplicates", () => {
  test("run A: mid-generation, render stored before its callback, mid-upload", async () => {
    await runScenario({
      name: "a-chosen-points",
      dimension: "tech-explained",
      failpoints: {
        "visual.mid-generation": "gpu-worker",
        "render.after-store-before-callback": "render-runner",
        "publish.mid-upload": "edge",
      },
    });
  }, SCENARIO_TIMEOUT_MS);

  test("run C: session stored before the first byte, and Postgres killed mid-run", async () => {
    await runScenario({
      name: "c-session-and-postgres",
      dimension: "tech-explained",
      failpoints: { "publish.after-session-stored": "edge" },
      during: async (run) => {
        // While the render runs: its callbacks and heartbeats meet a dead server.
        if (!(await run.when(inStage("render")))) return [];
        await sleep(3000);
        killComponent("db", run.say);
        return ["db"];
      },
    });
  }, SCENARIO_TIMEOUT_MS);
});
