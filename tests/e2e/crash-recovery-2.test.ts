/**
 * Crash run B: chosen points in each component (a clip stored before its callback, a render cut
 * mid-way, an upload done but not yet recorded) and, in the same run, random kills of two
 * components at random moments (the seed is printed); tests/e2e/crash-scenarios.ts says what every
 * run checks. A random kill may land before, between or after the chosen points: each fires once,
 * whichever process of its component reaches it.
 */
import { afterAll, describe, test } from "bun:test";
import process from "node:process";
import type { RunStatus } from "../../shared/contracts/operator.ts";
import { seededRandom } from "../../scripts/soak/plan.ts";
import { inStage, killComponent, runScenario, say, sayDurations, SCENARIO_TIMEOUT_MS, sleep } from "./crash-scenarios.ts";

afterAll(sayDurations);

describe("a crash anywhere converges with zero duplicates", () => {
  test("run B: clip stored before its callback, mid-render, uploaded before it was recorded, and random kills at random moments", async () => {
    const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    say(`run B seed ${seed} (replay: CRASH_SEED=${seed} bun test tests/e2e/crash-recovery-2.test.ts)`);
    // Seeded (mulberry32), so a random crash can be replayed from its seed.
    const random = seededRandom(seed);
    // Each component is killed while it has work: the window opens when that work appears and
    // spans most of the time that work lasts in a run of short videos (about 100 s in all).
    const windows: Record<"edge" | "gpu-worker" | "render-runner", { opens: (s: RunStatus) => boolean; spanMs: number }> = {
      "edge": { opens: () => true, spanMs: 70_000 },
      "gpu-worker": { opens: inStage("media"), spanMs: 12_000 },
      "render-runner": { opens: inStage("render"), spanMs: 40_000 },
    };
    const pool = Object.keys(windows) as (keyof typeof windows)[];
    const victims = [pool.splice(Math.floor(random() * pool.length), 1)[0]!, pool.splice(Math.floor(random() * pool.length), 1)[0]!];
    const plan = victims.map((component) => ({ component, afterMs: Math.floor(random() * windows[component].spanMs) }));
    say(`run B random kills: ${plan.map((p) => `${p.component} ${(p.afterMs / 1000).toFixed(1)} s into its window`).join(", ")}`);
    await runScenario({
      name: "b-chosen-points-and-random-kills",
      dimension: "sains-singkat",
      failpoints: {
        "visual.after-store-before-callback": "gpu-worker",
        "render.mid-render": "render-runner",
        "publish.after-upload-before-record": "edge",
      },
      during: async (run) => {
        const killed = await Promise.all(plan.map(async ({ component, afterMs }) => {
          if (!(await run.when(windows[component].opens))) return null;
          await sleep(afterMs);
          if (run.latest()?.run.status !== "running") run.say(`the run ended before ${component}'s kill; killing it anyway`);
          await killComponent(component, run.say);
          return component;
        }));
        return killed.filter((c) => c !== null);
      },
    });
  }, SCENARIO_TIMEOUT_MS);
});
