import { z } from "zod";
import { NonRetriableError } from "../errors.ts";
import { runFfmpeg } from "./ffmpeg.ts";

/**
 * Broadcast loudness for the published videos (EBU R128 / ITU-R BS.1770 as FFmpeg's `ebur128`
 * and `loudnorm` measure it). Shorts platforms play at about -14 LUFS integrated; a video mastered
 * quieter sounds weak next to its neighbours, one with peaks at 0 dBTP distorts after the
 * platform's own transcode. Normalisation is two-pass: a cheap audio-only pass (ebur128) measures
 * the final mix, and loudnorm applies the measured values with `linear=true`, which is a plain
 * gain (no pumping).
 */
export const LOUDNESS_TARGET = {
  /** Integrated loudness, LUFS. */
  integrated: -14,
  /**
   * True-peak ceiling handed to loudnorm, dBTP. The published limit is -1 dBTP; the half decibel
   * between them absorbs the AAC encoder's overshoot.
   */
  truePeak: -1.5,
  /** Loudness range target, LU (only used if loudnorm has to fall back to dynamic mode). */
  range: 11,
} as const;

/** The published limit a measured output must stay under, dBTP. */
export const TRUE_PEAK_LIMIT_DBTP = -1;

/**
 * A measurement in the shape loudnorm's second pass takes (the names of its first-pass report),
 * read from ebur128's summary (`parseEbur128Summary`).
 */
export const LoudnessMeasurement = z.object({
  input_i: z.number(),
  input_tp: z.number(),
  input_lra: z.number(),
  input_thresh: z.number(),
  target_offset: z.number(),
}).strict();
export type LoudnessMeasurement = z.infer<typeof LoudnessMeasurement>;

/**
 * A measurement that cannot drive the second pass (silence, or no report in the log). The same
 * audio always measures the same, so retrying cannot help.
 */
export class LoudnessMeasurementError extends NonRetriableError {
  constructor(message: string) {
    super(message);
    this.name = "LoudnessMeasurementError";
  }
}

/**
 * The second-pass filter: the first pass's measurement with `linear=true`. loudnorm then applies
 * one gain (target - measured integrated). It stays linear only while the measured true peak plus
 * that gain is under the ceiling; `isLinear` tells whether it will, so callers can limit the
 * peaks beforehand (see `PEAK_CEILING_DBTP`). loudnorm always outputs 192 kHz: resample after it.
 */
export function loudnormApplyFilter(m: LoudnessMeasurement): string {
  const { integrated, truePeak, range } = LOUDNESS_TARGET;
  return `loudnorm=I=${integrated}:TP=${truePeak}:LRA=${range}` +
    `:measured_I=${m.input_i}:measured_TP=${m.input_tp}:measured_LRA=${m.input_lra}:measured_thresh=${m.input_thresh}` +
    `:offset=${m.target_offset}:linear=true:print_format=none`;
}

/** Whether loudnorm can reach the target with a plain gain (its own rule for keeping linear mode). */
export function isLinear(m: LoudnessMeasurement): boolean {
  return m.input_tp + (LOUDNESS_TARGET.integrated - m.input_i) <= LOUDNESS_TARGET.truePeak;
}

/** The gain that brings a measured signal to `targetLufs`, in dB. */
export function gainToTarget(m: LoudnessMeasurement, targetLufs: number = LOUDNESS_TARGET.integrated): number {
  return targetLufs - m.input_i;
}

/**
 * Ceiling of the limiter ahead of loudnorm, dBTP: 1.5 dB under loudnorm's own, so the small gain
 * loudnorm still applies after limiting keeps the peaks under its ceiling (it stays linear) with
 * room for the encoder's overshoot.
 */
const PEAK_CEILING_DBTP = LOUDNESS_TARGET.truePeak - 1.5;

/**
 * The AAC encoder lifts true peaks by up to about half a decibel. Mixes are levelled so the peaks
 * after the final gain stay this far under loudnorm's ceiling, and the encoded file under
 * TRUE_PEAK_LIMIT_DBTP.
 */
const ENCODER_PEAK_HEADROOM_DB = 0.5;

/** Whether the final gain keeps a mix's peaks under the ceiling with the encoder's headroom to spare. */
export function peaksFitAfterGain(m: LoudnessMeasurement): boolean {
  return m.input_tp + gainToTarget(m) <= LOUDNESS_TARGET.truePeak - ENCODER_PEAK_HEADROOM_DB;
}

/**
 * A lookahead limiter holding true peaks under `ceilingDb`: alimiter only sees sample peaks, so it
 * runs on the signal oversampled 4x (192 kHz), where sample peaks are within a small fraction of
 * a dB of the true peaks. Its output stays at that level (`level=false`).
 */
export function peakLimiterFilter(ceilingDb: number = PEAK_CEILING_DBTP, sampleRate = 48_000): string {
  const limit = 10 ** (ceilingDb / 20);
  return `aresample=${sampleRate * 4},alimiter=limit=${limit.toFixed(5)}:attack=5:release=60:level=false,aresample=${sampleRate}`;
}

const SUMMARY_VALUE = (label: string, unit: string) => new RegExp(`${label}:\\s*([+-]?(?:\\d+(?:\\.\\d+)?|inf))\\s*${unit}`);

/**
 * Reads the summary `ebur128=peak=true` prints when its input ends: integrated loudness and its
 * gating threshold, loudness range, true peak. The same BS.1770 measures as loudnorm's report, at
 * a fifth of the cost (loudnorm resamples everything to 192 kHz); one decimal, which is all the
 * levelling passes need. `target_offset` is loudnorm's own and is 0 here.
 */
export function parseEbur128Summary(log: string): LoudnessMeasurement {
  const start = log.lastIndexOf("Summary:");
  if (start < 0) throw new LoudnessMeasurementError("no ebur128 summary in the FFmpeg log");
  const summary = log.slice(start);
  const integrated = summary.indexOf("Integrated loudness:");
  const range = summary.indexOf("Loudness range:");
  const peak = summary.indexOf("True peak:");
  if (integrated < 0 || range < 0 || peak < 0) throw new LoudnessMeasurementError("the ebur128 summary is incomplete (was peak=true set?)");
  const read = (text: string, label: string, unit: string, field: string): number => {
    const match = SUMMARY_VALUE(label, unit).exec(text);
    if (!match) throw new LoudnessMeasurementError(`ebur128 reported no ${field}`);
    if (/inf$/i.test(match[1]!)) throw new LoudnessMeasurementError(`ebur128 reported ${field}=${match[1]}: the audio is silent`);
    return Number.parseFloat(match[1]!);
  };
  const integratedText = summary.slice(integrated, range);
  const m = {
    input_i: read(integratedText, "I", "LUFS", "input_i"),
    input_thresh: read(integratedText, "Threshold", "LUFS", "input_thresh"),
    input_lra: read(summary.slice(range, peak), "LRA", "LU", "input_lra"),
    input_tp: read(summary.slice(peak), "Peak", "dBFS", "input_tp"),
    target_offset: 0,
  };
  // BS.1770 gates at -70 LUFS: silence measures as -70 integrated rather than -inf.
  if (m.input_i <= -70) throw new LoudnessMeasurementError("ebur128 measured -70 LUFS or less: the audio is silent");
  return LoudnessMeasurement.parse(m);
}

/**
 * Runs an audio-only measurement with `ebur128=peak=true`: `inputArgs` are FFmpeg inputs, `graph`
 * a filtergraph whose output label `[measure]` is the audio to measure (the meter is appended
 * here). ebur128 passes its input through untouched: `writeTo` keeps the measured audio (32-bit
 * float WAV), so a later pass can apply the gain without rebuilding it.
 */
export async function measureLoudness(
  inputArgs: readonly string[],
  graph: string,
  options: { signal?: AbortSignal; ffmpegPath?: string; niceness?: number; writeTo?: string } = {},
): Promise<LoudnessMeasurement> {
  const args = [
    ...inputArgs,
    "-filter_complex",
    `${graph};[measure]ebur128=peak=true[measured]`,
    "-map",
    "[measured]",
    "-vn",
    "-sn",
    "-dn",
    // The summary is printed at info level; the runner's default is errors only.
    "-loglevel",
    "info",
    ...(options.writeTo ? ["-c:a", "pcm_f32le", "-f", "wav", "-y", options.writeTo] : ["-f", "null", "-"]),
  ];
  const { stderrTail } = await runFfmpeg(args, { signal: options.signal, ffmpegPath: options.ffmpegPath, niceness: options.niceness, stderrTailBytes: 64_000 });
  return parseEbur128Summary(stderrTail);
}
