/**
 * The adaptive engine on synthetic weeks (scripts/eval/adapt-simulation-model.ts): per scenario and
 * seed, the weeks until the better choice held, the moves made, bounds violations and reversals
 * within the cooldown; then the noise scenario over many seeds (moves per 26 weeks); then the same
 * on other platforms (adapt.platforms): TikTok only, YouTube and TikTok each on its own figures, and pooled.
 *
 *   npm run eval:adapt [-- --seeds 20 --weeks 26]
 */
import process from "node:process";
import { type Audience, SCENARIOS, simulate } from "./adapt-simulation-model.ts";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i === -1 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 1 || value > 1000) throw new Error(`--${name} takes a whole number from 1 to 1000`);
  return value;
}

const seeds = flag("seeds", 20);
const weeks = flag("weeks", 26);
console.log(`adaptive engine simulation: ${seeds} seeds x ${weeks} weeks per scenario, 3 videos a day, retention noise sd 8 pp`);
console.log("scenario            converged  median_weeks  max_weeks  moves/run  bounds_violations  reversals  final");
for (const scenario of SCENARIOS) {
  const runs = Array.from({ length: seeds }, (_, i) => simulate(scenario, i + 1, weeks));
  const converged = runs.map((r) => r.weeksToConverge).filter((w): w is number => w !== null).sort((a, b) => a - b);
  const median = converged.length ? converged[Math.floor((converged.length - 1) / 2)] : null;
  const moves = runs.reduce((n, r) => n + r.moves.length, 0) / seeds;
  const violations = runs.reduce((n, r) => n + r.boundsViolations, 0);
  const reversals = runs.reduce((n, r) => n + r.reversals, 0);
  const last = runs[0]!.weeks.at(-1)!;
  const final = `target_s=${last.target_s} weights=${JSON.stringify(last.weights)} levels=${JSON.stringify(last.levels)} (seed 1)`;
  const share = scenario === "noise" ? "-" : `${converged.length}/${seeds}`;
  console.log(
    `${scenario.padEnd(20)}${share.padEnd(11)}${String(median ?? "-").padEnd(14)}${String(converged.at(-1) ?? "-").padEnd(11)}` +
      `${moves.toFixed(2).padEnd(11)}${String(violations).padEnd(19)}${String(reversals).padEnd(11)}${final}`,
  );
}
const noise = Array.from({ length: 200 }, (_, i) => simulate("noise", 1000 + i, weeks));
const noiseMoves = noise.map((r) => r.moves.length);
console.log(
  `noise over 200 seeds: ${noiseMoves.reduce((a, b) => a + b, 0) / 200} moves per ${weeks} weeks on average, ` +
    `${noiseMoves.filter((m) => m === 0).length}/200 runs with no move, at most ${Math.max(...noiseMoves)}, ` +
    `${noise.reduce((n, r) => n + r.reversals, 0)} reversals, ${noise.reduce((n, r) => n + r.boundsViolations, 0)} bounds violations`,
);

const AUDIENCES: [string, Audience][] = [
  ["tiktok only", { platforms: ["tiktok"], mode: "separate" }],
  ["youtube+tiktok separate", { platforms: ["youtube", "tiktok"], mode: "separate" }],
  ["youtube+tiktok pooled", { platforms: ["youtube", "tiktok"], mode: "pooled" }],
];
console.log("\nper platform (a video's views elsewhere than YouTube: log-normal around e^7, x1.65 for 6 pp of retention's true effect)");
console.log("audience                  scenario           converged  median_weeks  noise: moves/26 weeks over 200 seeds, runs with none");
for (const [label, audience] of AUDIENCES) {
  for (const scenario of ["shorter_retains", "source_a_beats_b"] as const) {
    const runs = Array.from({ length: seeds }, (_, i) => simulate(scenario, i + 1, weeks, audience));
    const converged = runs.map((r) => r.weeksToConverge).filter((w): w is number => w !== null).sort((a, b) => a - b);
    const median = converged.length ? converged[Math.floor((converged.length - 1) / 2)] : null;
    const noisy = scenario === "shorter_retains" ? Array.from({ length: 200 }, (_, i) => simulate("noise", 1000 + i, weeks, audience).moves.length) : null;
    console.log(
      `${label.padEnd(26)}${scenario.padEnd(19)}${`${converged.length}/${seeds}`.padEnd(11)}${String(median ?? "-").padEnd(14)}` +
        (noisy ? `${(noisy.reduce((a, b) => a + b, 0) / 200).toFixed(3)}, ${noisy.filter((m) => m === 0).length}/200` : ""),
    );
  }
}
