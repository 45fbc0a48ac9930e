/**
 * A render whose encoded true peak came out over the limit, the quality gate's only complaint: the
 * render task lowers its sound (the picture copied) and measures again, instead of rendering the
 * same peaks again and failing the unit.
 * - With real FFmpeg and the real gate: a Short whose sound sits at -14 LUFS with clicks reaching
 *   about -0.6 dBTP fails on its true peak alone; lowered by the overshoot and the margin, it passes,
 *   its loudness still inside the gate's band.
 * - The task's orchestration, the render and the gate standing in: a peak-only failure is corrected
 *   once with the gain it calls for; a render that failed anything else is never touched.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { QualityReport } from "../../shared/contracts/quality.ts";
import type { RenderJob } from "../../shared/contracts/queue.ts";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { TRUE_PEAK_LIMIT_DBTP } from "../../shared/media/loudness.ts";
import { measureQuality } from "../../shared/media/quality-gate.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import type { TaskContext } from "../../shared/worker/pull-worker.ts";
import { attenuateAudio } from "../../render-runner/ffmpeg-render.ts";
import { createRenderDefinition, PEAK_CORRECTION_MARGIN_DB, peakOvershootOnly, type RenderTaskDeps } from "../../render-runner/render-task.ts";

let dir: string;
let loud: string;
const DURATION_S = 3;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "peak-correction-"));
  loud = join(dir, "loud.mp4");
  // A moving picture (the gate refuses a frozen one) and a tone near -14 LUFS with a click every
  // half second whose true peak passes -1 dBTP.
  await runFfmpeg([
    "-f",
    "lavfi",
    "-i",
    `testsrc2=s=1080x1920:r=30:d=${DURATION_S}`,
    "-f",
    "lavfi",
    "-i",
    // Commas inside the expression are escaped for the filter graph's parser.
    `aevalsrc=0.275*sin(2*PI*440*t)+1.05*lt(mod(t\\,0.5)\\,0.004)*sin(2*PI*3000*t):s=48000:d=${DURATION_S}`,
    "-c:v",
    "libx264",
    "-profile:v",
    "high",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-b:a",
    "192k",
    "-ar",
    "48000",
    "-ac",
    "2",
    "-movflags",
    "+faststart",
    "-y",
    loud,
  ]);
}, 60_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

const gateOf = (path: string) => measureQuality({ path, expectedDurationS: DURATION_S, captions: null }, {});

test("a render over the true-peak limit alone passes the real gate once its sound is lowered by the overshoot and the margin", async () => {
  const before = await gateOf(loud);
  expect(before.passed).toBe(false);
  expect(before.checks.filter((c) => !c.passed).map((c) => c.check)).toEqual(["true_peak"]);
  const overshoot = peakOvershootOnly(before)!;
  expect(overshoot).toBeGreaterThan(0);

  const fixed = join(dir, "fixed.mp4");
  await copyFile(loud, fixed);
  await attenuateAudio(fixed, -(overshoot + PEAK_CORRECTION_MARGIN_DB));
  const after = await gateOf(fixed);
  expect(after.failures).toEqual([]);
  expect(after.true_peak_dbtp!).toBeLessThanOrEqual(TRUE_PEAK_LIMIT_DBTP);
  // Lowered by about the gain asked, not more.
  expect(before.integrated_lufs! - after.integrated_lufs!).toBeGreaterThan(overshoot + PEAK_CORRECTION_MARGIN_DB - 0.3);
  expect(before.integrated_lufs! - after.integrated_lufs!).toBeLessThan(overshoot + PEAK_CORRECTION_MARGIN_DB + 0.3);
  await expect(attenuateAudio(fixed, 0.5)).rejects.toThrow("an attenuation is -20..0 dB");
}, 60_000);

function report(failed: Array<{ check: QualityReport["checks"][number]["check"]; value: number }>, truePeak: number): QualityReport {
  return {
    passed: failed.length === 0,
    integrated_lufs: -14,
    true_peak_dbtp: truePeak,
    duration_s: DURATION_S,
    checks: failed.map((f) => ({ check: f.check, passed: false, value: f.value, unit: "", bound: "", reason: `${f.check} failed` })),
    failures: failed.map((f) => `${f.check} failed`),
  };
}

async function taskSetup(gates: QualityReport[]) {
  const store = new LocalDirectoryStore(join(dir, `store-${crypto.randomUUID()}`));
  await mkdir(join(dir, "work"), { recursive: true });
  const dummy = join(dir, "input.bin");
  await writeFile(dummy, "not read: the stand-in render copies loud.mp4");
  await store.putFile("voice/peak.mp3", dummy, "audio/mpeg");
  await store.putFile("scenes/peak.mp4", dummy, "video/mp4");
  const attenuations: number[] = [];
  let gateCalls = 0;
  const deps: RenderTaskDeps = {
    store,
    workDir: join(dir, "work"),
    render: async (plan) => {
      await copyFile(loud, plan.outPath);
      const level = { input_i: -14, input_tp: -2, input_lra: 3, input_thresh: -24, target_offset: 0 };
      return { levels: { voice: level, music: null, makeup_db: 0 }, final: level, linear: true };
    },
    qualityGate: () => Promise.resolve(gates[Math.min(gateCalls++, gates.length - 1)]!),
    attenuate: (_path, gainDb) => Promise.resolve(void attenuations.push(gainDb)),
    cover: () => Promise.reject(new Error("no cover in this test")),
  };
  const job: RenderJob = {
    run_id: crypto.randomUUID(),
    unit_id: crypto.randomUUID(),
    dimension_id: "ocean-facts",
    title: "Peaks",
    audio_key: "voice/peak.mp3",
    audio_duration_ms: 500,
    words: [{ text: "Loud", offset_ms: 0, duration_ms: 200 }, { text: "clicks.", offset_ms: 200, duration_ms: 300 }],
    scenes: [{ index: 0, asset_key: "scenes/peak.mp4", first_word: 0 }],
    caption_font: "DejaVu Sans",
    caption_profile: "youtube_shorts",
    step_token: "step:peak-test:5:abc",
  };
  const lines: Array<Record<string, unknown>> = [];
  const ctx: TaskContext = {
    logger: createLogger("peak-test", { write: (line: string) => void lines.push(JSON.parse(line)) }),
    signal: new AbortController().signal,
    heartbeat: () => Promise.resolve(),
    queue: "render",
    msgId: 9,
    readCt: 1,
    workerId: "peak-test",
  };
  return { deps, job, ctx, lines, attenuations, gateCalls: () => gateCalls };
}

test("the task corrects a peak-only failure once, with the gain it calls for, and reports the corrected measure", async () => {
  const { deps, job, ctx, lines, attenuations, gateCalls } = await taskSetup([report([{ check: "true_peak", value: -0.6 }], -0.6), report([], -1.6)]);
  const outcome = await createRenderDefinition(deps).run(job, ctx);
  expect(outcome).toMatchObject({ kind: "render.completed", quality: { passed: true, true_peak_dbtp: -1.6 } });
  expect(gateCalls()).toBe(2);
  expect(attenuations).toHaveLength(1);
  expect(attenuations[0]!).toBeCloseTo(-(0.4 + PEAK_CORRECTION_MARGIN_DB), 6);
  expect(lines.find((l) => l.status === "correcting")).toMatchObject({ true_peak_dbtp: -0.6, gain_db: -0.9 });
}, 30_000);

test("a render that failed anything besides its peak is not corrected: it is rendered again, then fails", async () => {
  const failing = report([{ check: "true_peak", value: -0.6 }, { check: "integrated_loudness", value: -16 }], -0.6);
  const { deps, job, ctx, attenuations } = await taskSetup([failing]);
  await expect(createRenderDefinition(deps).run(job, ctx)).rejects.toThrow("quality gate failed");
  expect(attenuations).toEqual([]);
}, 30_000);
