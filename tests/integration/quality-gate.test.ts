import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CaptionBox } from "../../shared/contracts/captions.ts";
import type { QualityReport } from "../../shared/contracts/quality.ts";
import { type CaptionZone, measureQuality, topLevelBoxes } from "../../shared/media/quality-gate.ts";

/**
 * The quality gate against real files made by FFmpeg with known faults: a good 1080x1920 H.264
 * High / AAC-LC render at -14 LUFS passes; each fault fails its own check with the measured value
 * and its bound in the reason. Evidence is kept when a test fails.
 */

const DURATION_S = 6;
const ZONE: CaptionZone = { name: "intersection safe zone", left: 150, top: 288, right: 888, bottom: 1248 };
const INSIDE: CaptionBox = { cue: 0, text: "Octopuses have / three hearts.", start_ms: 0, left: 231, top: 1070, right: 807, bottom: 1224 };

let dir = "";
let keep = false;
const files: Record<string, string> = {};

function ffmpeg(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("ffmpeg", ["-hide_banner", "-nostdin", ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`ffmpeg ${args.join(" ")} failed: ${stderr}`));
      else resolve(stderr);
    });
  });
}

/** Integrated loudness of a file, read straight from ebur128's summary. */
async function loudness(path: string): Promise<number> {
  const log = await ffmpeg(["-i", path, "-map", "0:a", "-af", "ebur128=framelog=verbose", "-f", "null", "-"]);
  return Number(/I:\s+(-?[\d.]+) LUFS/.exec(log.slice(log.lastIndexOf("Summary:")))![1]);
}

const ENCODE = [
  "-c:v",
  "libx264",
  "-profile:v",
  "high",
  "-preset",
  "superfast",
  "-pix_fmt",
  "yuv420p",
  "-c:a",
  "aac",
  "-b:a",
  "128k",
  "-ar",
  "48000",
  "-ac",
  "2",
];
const TONE = `sine=frequency=440:sample_rate=48000:duration=${DURATION_S}`;

/** Video `graph` (a filter_complex ending in [v]) with a stereo tone at `gainDb`, faststart. */
async function make(name: string, graph: string, gainDb: number, extra: string[] = []): Promise<string> {
  const out = join(dir, `${name}.mp4`);
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    TONE,
    "-filter_complex",
    `${graph};[0:a]volume=${gainDb}dB,aformat=channel_layouts=stereo[a]`,
    "-map",
    "[v]",
    "-map",
    "[a]",
    ...ENCODE,
    "-t",
    String(DURATION_S),
    "-movflags",
    "+faststart",
    ...extra,
    "-y",
    out,
  ]);
  return out;
}

/** The same file with the audio made `deltaDb` louder or quieter; the video is copied. */
async function regain(name: string, from: string, deltaDb: number): Promise<string> {
  const out = join(dir, `${name}.mp4`);
  await ffmpeg([
    "-i",
    from,
    "-map",
    "0",
    "-c:v",
    "copy",
    "-af",
    `volume=${deltaDb}dB`,
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-ar",
    "48000",
    "-movflags",
    "+faststart",
    "-y",
    out,
  ]);
  return out;
}

const MOVING = `testsrc2=s=1080x1920:r=30:d=${DURATION_S}[v]`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-quality-gate-test-"));
  // Calibrate the tone once: render it, measure it, and set the gain that lands it on -14 LUFS.
  const probe = await make("calibration", `testsrc2=s=160x284:r=30:d=${DURATION_S}[v]`, 0);
  const gain = -14 - (await loudness(probe));
  files.good = await make("good", MOVING, gain);
  files.quiet = await regain("quiet", files.good, -8);
  files.loud = await regain("loud", files.good, 12);
  files.small = await make("small", `testsrc2=s=720x1280:r=30:d=${DURATION_S}[v]`, gain);
  files.black = await make(
    "black",
    "testsrc2=s=1080x1920:r=30:d=2[a];color=black:s=1080x1920:r=30:d=2[b];testsrc2=s=1080x1920:r=30:d=2[c];[a][b][c]concat=n=3:v=1:a=0[v]",
    gain,
  );
  files.frozen = await make(
    "frozen",
    "testsrc2=s=1080x1920:r=30:d=2,tpad=stop_mode=clone:stop_duration=2[a];testsrc2=s=1080x1920:r=30:d=2[b];[a][b]concat=n=2:v=1:a=0[v]",
    gain,
  );
  files.main = await make("main-profile", MOVING, gain, ["-profile:v", "main"]);
  files.slow = join(dir, "no-faststart.mp4");
  await ffmpeg(["-i", files.good, "-map", "0", "-c", "copy", "-y", files.slow]);
}, 180_000);

afterAll(async () => {
  if (keep) console.error(`quality gate evidence kept in ${dir}`);
  else if (dir) await rm(dir, { recursive: true, force: true });
});

async function gate(name: string, options: { expectedDurationS?: number; boxes?: CaptionBox[] } = {}): Promise<QualityReport> {
  return await measureQuality({
    path: files[name],
    expectedDurationS: options.expectedDurationS ?? DURATION_S,
    captions: { zone: ZONE, boxes: options.boxes ?? [INSIDE] },
  });
}

function failedChecks(report: QualityReport): string[] {
  return report.checks.filter((c) => !c.passed).map((c) => c.check);
}

async function evidence(block: () => Promise<void>) {
  try {
    await block();
  } catch (error) {
    keep = true;
    throw error;
  }
}

test("a good render passes every check, each with its value and bound", () =>
  evidence(async () => {
    const report = await gate("good");
    expect(report.failures).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.checks.map((c) => c.check)).toEqual([
      "resolution",
      "video_codec",
      "audio_codec",
      "faststart",
      "duration",
      "integrated_loudness",
      "true_peak",
      "black_frames",
      "frozen_frames",
      "captions_safe_zone",
    ]);
    expect(report.integrated_lufs!).toBeCloseTo(-14, 0);
    expect(report.true_peak_dbtp!).toBeLessThan(-1);
    expect(report.duration_s).toBeCloseTo(DURATION_S, 1);
    const byName = Object.fromEntries(report.checks.map((c) => [c.check, c]));
    expect(byName.resolution).toMatchObject({ value: "1080x1920", bound: "1080x1920", reason: null });
    expect(byName.video_codec).toMatchObject({ value: "h264 High", bound: "h264 High" });
    expect(byName.audio_codec).toMatchObject({ value: "aac LC 48000 Hz", bound: "aac LC 48000 Hz" });
    expect(byName.faststart).toMatchObject({ value: "moov before mdat" });
    expect(byName.integrated_loudness).toMatchObject({ unit: "LUFS", bound: "-14 +-1 LUFS" });
    expect(byName.true_peak).toMatchObject({ unit: "dBTP", bound: "<= -1 dBTP" });
    expect(byName.black_frames).toMatchObject({ value: 0, bound: "<= 1 s" });
    expect(byName.frozen_frames).toMatchObject({ value: 0, bound: "<= 1 s" });
    expect(byName.captions_safe_zone).toMatchObject({ value: 0, bound: "all 1 cues inside the intersection safe zone (x 150-888, y 288-1248)" });
  }), 60_000);

test("too quiet fails on integrated loudness, with the measured value", () =>
  evidence(async () => {
    const report = await gate("quiet");
    expect(report.passed).toBe(false);
    expect(failedChecks(report)).toEqual(["integrated_loudness"]);
    expect(report.integrated_lufs!).toBeCloseTo(-22, 0);
    expect(report.failures[0]).toMatch(/^integrated loudness -2[12]\.\d LUFS, outside -14 \+-1$/);
  }), 60_000);

test("too loud fails on loudness and on true peak", () =>
  evidence(async () => {
    const report = await gate("loud");
    expect(failedChecks(report)).toEqual(["integrated_loudness", "true_peak"]);
    expect(report.failures[0]).toMatch(/^integrated loudness -[23]\.\d LUFS, outside -14 \+-1$/);
    expect(report.failures[1]).toMatch(/^true peak -?\d+\.\d dBTP, above -1 dBTP$/);
    expect(report.true_peak_dbtp!).toBeGreaterThan(-1);
  }), 60_000);

test("the wrong size fails on resolution", () =>
  evidence(async () => {
    const report = await gate("small");
    expect(failedChecks(report)).toEqual(["resolution"]);
    expect(report.failures).toEqual(["resolution 720x1280, not 1080x1920"]);
  }), 60_000);

test("another H.264 profile fails on the video codec", () =>
  evidence(async () => {
    const report = await gate("main");
    expect(failedChecks(report)).toEqual(["video_codec"]);
    expect(report.failures).toEqual(["video codec h264 Main, not h264 High"]);
  }), 60_000);

test("two seconds of black fail, with the stretch's length", () =>
  evidence(async () => {
    const report = await gate("black");
    // A black picture held for 2 s is also a frozen one; both say so.
    expect(failedChecks(report)).toEqual(["black_frames", "frozen_frames"]);
    expect(report.failures[0]).toMatch(/^black picture for 2\.0\d s, longer than 1 s$/);
  }), 60_000);

test("two seconds of a frozen picture fail, with the stretch's length", () =>
  evidence(async () => {
    const report = await gate("frozen");
    expect(failedChecks(report)).toEqual(["frozen_frames"]);
    expect(report.failures[0]).toMatch(/^frozen picture for (1\.9\d|2\.0\d) s, longer than 1 s$/);
  }), 60_000);

test("moov after mdat (no faststart) fails", () =>
  evidence(async () => {
    expect(await topLevelBoxes(files.slow)).toEqual(expect.arrayContaining(["mdat", "moov"]));
    const report = await gate("slow");
    expect(failedChecks(report)).toEqual(["faststart"]);
    expect(report.failures).toEqual(["not faststart: mdat before moov"]);
  }), 60_000);

test("a length other than the narration's fails on duration", () =>
  evidence(async () => {
    const report = await gate("good", { expectedDurationS: 8 });
    expect(failedChecks(report)).toEqual(["duration"]);
    expect(report.failures[0]).toMatch(/^duration 6\.0\d s, outside 8\.00 \+-0\.5 s$/);
  }), 60_000);

test("a caption box outside the safe zone fails, naming the cue", () =>
  evidence(async () => {
    const outside: CaptionBox = { cue: 3, text: "follow for more", start_ms: 4250, left: 300, top: 1300, right: 700, bottom: 1420 };
    const report = await gate("good", { boxes: [INSIDE, outside] });
    expect(failedChecks(report)).toEqual(["captions_safe_zone"]);
    expect(report.failures).toEqual([
      'caption cue 3 "follow for more" at 4.25 s lies outside the intersection safe zone (x 150-888, y 288-1248): bottom edge 1420 > 1248',
    ]);
  }), 60_000);
