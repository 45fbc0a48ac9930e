/**
 * Synthesises the music beds the tests (and a local library) use, with FFmpeg's `aevalsrc`: slow
 * chords under a gentle pulse, stereo AAC, each with its licence sidecar saying it was generated
 * here for tests. No recorded or downloaded music is ever part of the repository.
 *
 *   bun scripts/music/generate-test-tracks.ts [out-dir]    (default: .local/music-test)
 *
 * The folder can then be stored under a library prefix (e.g. `music/test`) of the asset store.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import type { MusicLicense } from "../../render-runner/music-library.ts";

export interface TrackSpec {
  /** File name without extension. */
  name: string;
  title: string;
  durationS: number;
  /** Sine partials: frequency (Hz) and amplitude (linear, the sum stays under 1). */
  partials: Array<{ hz: number; amp: number }>;
  /** Tremolo rate, Hz: the slow pulse that makes the bed audibly move. */
  pulseHz: number;
}

export const TEST_TRACKS: readonly TrackSpec[] = [
  {
    name: "calm-a-minor",
    title: "Calm in A minor",
    durationS: 24,
    pulseHz: 0.5,
    partials: [{ hz: 220, amp: 0.18 }, { hz: 261.63, amp: 0.14 }, { hz: 329.63, amp: 0.12 }, { hz: 440, amp: 0.06 }],
  },
  {
    name: "bright-c-major",
    title: "Bright C major",
    durationS: 18,
    pulseHz: 2,
    partials: [{ hz: 261.63, amp: 0.16 }, { hz: 329.63, amp: 0.14 }, { hz: 392, amp: 0.12 }, { hz: 523.25, amp: 0.06 }],
  },
  {
    name: "low-d-drone",
    title: "Low D drone",
    durationS: 30,
    pulseHz: 0.25,
    partials: [{ hz: 73.42, amp: 0.22 }, { hz: 146.83, amp: 0.14 }, { hz: 220, amp: 0.08 }],
  },
];

/** The sidecar of a generated track. */
export function generatedLicense(spec: Pick<TrackSpec, "name" | "title">): MusicLicense {
  return {
    title: spec.title,
    author: "MD-AME test track generator (scripts/music/generate-test-tracks.ts)",
    license: "Generated for tests by FFmpeg aevalsrc; no third-party material; CC0-1.0",
    source_url: `https://music-test.invalid/generated/${spec.name}`,
  };
}

/** The aevalsrc expression of one channel; the right channel's pulse is offset so the bed is stereo. */
function expression(spec: TrackSpec, phase: number): string {
  const tones = spec.partials.map((p) => `${p.amp}*sin(2*PI*${p.hz}*t)`).join("+");
  return `(${tones})*(0.7+0.3*sin(2*PI*${spec.pulseHz}*t+${phase}))`;
}

/** Writes `<name>.m4a` and `<name>.license.json` into `dir`; returns the track's path. */
export async function synthesiseTrack(dir: string, spec: TrackSpec, options: { signal?: AbortSignal } = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${spec.name}.m4a`);
  const fade = Math.min(0.05, spec.durationS / 4);
  await runFfmpeg([
    "-f",
    "lavfi",
    "-i",
    `aevalsrc=exprs=${expression(spec, 0)}|${expression(spec, 1.3)}:s=48000:d=${spec.durationS}`,
    // Short fades at both ends, so a looped track has no click at the seam.
    "-af",
    `afade=t=in:d=${fade},afade=t=out:st=${spec.durationS - fade}:d=${fade}`,
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-map_metadata",
    "-1",
    "-y",
    path,
  ], { signal: options.signal });
  await writeFile(join(dir, `${spec.name}.license.json`), `${JSON.stringify(generatedLicense(spec), null, 2)}\n`, "utf8");
  return path;
}

/**
 * A band of pink noise between 12 and 15 kHz (a steady hiss, like cymbals): a bed a test can
 * hear apart from espeak-ng's speech, which has nothing above 11 kHz. Writes `<name>.m4a` and
 * its sidecar into `dir`.
 */
export async function synthesiseHighBandHiss(dir: string, spec: { name: string; title: string; durationS: number }): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${spec.name}.m4a`);
  await runFfmpeg([
    "-f",
    "lavfi",
    "-i",
    `anoisesrc=c=pink:r=48000:a=0.5:d=${spec.durationS}:seed=7`,
    "-af",
    "highpass=f=12000,highpass=f=12000,highpass=f=12000,lowpass=f=15000,aformat=channel_layouts=stereo",
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-map_metadata",
    "-1",
    "-y",
    path,
  ]);
  await writeFile(join(dir, `${spec.name}.license.json`), `${JSON.stringify(generatedLicense(spec), null, 2)}\n`, "utf8");
  return path;
}

/** Every test track into `dir`. */
export async function synthesiseTestTracks(dir: string): Promise<string[]> {
  const paths: string[] = [];
  for (const spec of TEST_TRACKS) paths.push(await synthesiseTrack(dir, spec));
  return paths;
}

if (import.meta.main) {
  const dir = process.argv[2] ?? join(".local", "music-test");
  const paths = await synthesiseTestTracks(dir);
  for (const path of paths) console.log(`generated ${path} (+ licence sidecar)`);
}
