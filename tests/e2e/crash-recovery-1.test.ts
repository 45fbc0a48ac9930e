/**
 * Crash run A: chosen points in each component (a clip mid-generation, a render stored before its
 * callback, the upload session stored before the first byte, then the upload cut mid-way), and
 * Postgres killed while the render runs; tests/e2e/crash-scenarios.ts says what every run checks.
 * The two points in the publish stage fire one after the other: the resumed upload is the one cut.
 */
import { afterAll, describe, test } from "bun:test";
import { inStage, killComponent, runScenario, sayDurations, SCENARIO_TIMEOUT_MS, sleep } from "./crash-scenarios.ts";

afterAll(sayDurations);

describe("a crash anywhere converges with zero duplicates", () => {
  test("run A: mid-generation, render stored before its callback, session stored, mid-upload, and Postgres killed mid-render", async () => {
    await runScenario({
      name: "a-chosen-points-and-postgres",
      dimension: "tech-explained",
      failpoints: {
        "visual.mid-generation": "gpu-worker",
        "render.after-store-before-callback": "render-runner",
        "publish.after-session-stored": "edge",
        "publish.mid-upload": "edge",
      },
      during: async (run) => {
        // While the render runs: its callbacks and heartbeats meet a dead server.
        if (!(await run.when(inStage("render")))) return [];
        await sleep(3000);
        await killComponent("db", run.say);
        return ["db"];
      },
    });
  }, SCENARIO_TIMEOUT_MS);
});
