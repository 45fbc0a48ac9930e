import {
  gainToTarget,
  LOUDNESS_TARGET,
  type LoudnessMeasurement,
  loudnormApplyFilter,
  measureLoudness,
  peakLimiterFilter,
  peaksFitAfterGain,
} from "../shared/media/loudness.ts";

/**
 * The audio of a render: the voice, levelled to the loudness target, optionally over a music bed
 * that is looped or trimmed to the video, faded in and out and ducked under the voice by a
 * sidechain compressor keyed by the voice itself; then a peak limiter, so the final gain can stay
 * linear. The same graph is used by the measuring pass and by the render, so what is measured is
 * exactly what gets normalised.
 */

const AUDIO_SAMPLE_RATE = 48_000;
const FORMAT = `aformat=sample_fmts=fltp:sample_rates=${AUDIO_SAMPLE_RATE}:channel_layouts=stereo`;
/** Sidechain ratio: high enough that the dip follows the threshold closely. */
const DUCK_RATIO = 20;
/**
 * RMS level of speech levelled to the target, as the compressor's detector sees it (about 4 dB
 * under the integrated loudness for narration); the threshold is set from it so the bed dips by
 * about `duck_db` while the voice speaks.
 */
const SPEECH_RMS_DBFS = LOUDNESS_TARGET.integrated - 4;

export interface MusicBedMix {
  /** Loudness of the bed where nobody speaks, relative to the voice, LU. */
  gain_db: number;
  duck_db: number;
  fade_s: number;
}

interface AudioMixInputs {
  /** Input index of the voice. */
  voice: number;
  /** Input index of the music track (opened with `-stream_loop -1`), or null for voice only. */
  music: number | null;
  /** Exact output duration, seconds. */
  durationS: number;
}

/** Levels measured in the first pass: the voice's, and the track's over the span it plays. */
export interface SourceLevels {
  voice: LoudnessMeasurement;
  music: LoudnessMeasurement | null;
  /**
   * Gain ahead of the limiter, dB: 0 at first; raised when limiting the peaks took so much
   * loudness away that the final gain would lift the peaks over the ceiling again.
   */
  makeup_db: number;
}

/** Measuring rounds of the mix: the first, and at most two with more makeup gain. */
const MAX_MIX_ROUNDS = 3;

/**
 * How much of a gain pushed into the limiter comes out as loudness, assumed for the first raise
 * of the makeup gain. A mix whose peaks do not fit is one the limiter is already squashing, so
 * well under 1: narration with sharp peaks keeps about 0.4 (espeak-ng, measured), smoother
 * voices more. Raising by the shortfall divided by 1 (the old rule) fell short and took a third
 * round; 0.5 usually lands in one, at worst a little over the target, which the final gain takes
 * back. From the second raise on, the slope measured between the last two rounds is used.
 */
export const ASSUMED_LIMITER_SLOPE = 0.5;
/** Limits on a measured slope (a noisy pair of rounds must not send the gain off) and on one raise, dB. */
const SLOPE_RANGE = [0.2, 1] as const;
const MAX_MAKEUP_STEP_DB = 12;

/**
 * The next makeup gain after a round that fell short of the target: the shortfall divided by
 * how much of a raise the limiter lets through (assumed, or measured from the previous round).
 */
export function nextMakeupDb(
  current: { makeup_db: number; measured: LoudnessMeasurement },
  previous: { makeup_db: number; measured: LoudnessMeasurement } | null,
): number {
  const shortfall = gainToTarget(current.measured);
  let slope = ASSUMED_LIMITER_SLOPE;
  if (previous && current.makeup_db !== previous.makeup_db) {
    const measured = (current.measured.input_i - previous.measured.input_i) / (current.makeup_db - previous.makeup_db);
    slope = Math.min(SLOPE_RANGE[1], Math.max(SLOPE_RANGE[0], measured));
  }
  const step = Math.max(-MAX_MAKEUP_STEP_DB, Math.min(MAX_MAKEUP_STEP_DB, shortfall / slope));
  return Math.round((current.makeup_db + step) * 100) / 100;
}

const db = (value: number) => `${value.toFixed(2)}dB`;
const seconds = (value: number) => value.toFixed(6);

/** The compressor threshold (linear) that dips the bed by about `duckDb` under levelled speech. */
export function duckThreshold(duckDb: number): number {
  const thresholdDb = SPEECH_RMS_DBFS - duckDb / (1 - 1 / DUCK_RATIO);
  return Math.max(10 ** (-60 / 20), Math.min(1, 10 ** (thresholdDb / 20)));
}

/**
 * Filter chains from the inputs to `[<out>]`: voice (+ ducked bed) -> limiter, padded with
 * silence or cut to exactly `durationS`.
 */
export function buildMixGraph(inputs: AudioMixInputs, levels: SourceLevels, music: MusicBedMix | null, out: string): string[] {
  const d = seconds(inputs.durationS);
  const voiceGain = gainToTarget(levels.voice);
  const voiceChain = `[${inputs.voice}:a]aresample=${AUDIO_SAMPLE_RATE},${FORMAT},volume=${db(voiceGain)},` +
    `apad=whole_dur=${d},atrim=duration=${d},asetpts=PTS-STARTPTS`;
  const limiter = `volume=${db(levels.makeup_db)},${peakLimiterFilter()}`;
  if (inputs.music === null || music === null || levels.music === null) {
    return [`${voiceChain},${limiter}[${out}]`];
  }
  const bedGain = gainToTarget(levels.music, LOUDNESS_TARGET.integrated + music.gain_db);
  const fade = Math.min(music.fade_s, inputs.durationS / 2);
  const fades = fade > 0 ? `,afade=t=in:d=${seconds(fade)},afade=t=out:st=${seconds(inputs.durationS - fade)}:d=${seconds(fade)}` : "";
  return [
    `${voiceChain},asplit=2[mixvoice][mixkey]`,
    `[${inputs.music}:a]aresample=${AUDIO_SAMPLE_RATE},${FORMAT},atrim=duration=${d},asetpts=PTS-STARTPTS,volume=${db(bedGain)}${fades}[mixbed]`,
    `[mixbed][mixkey]sidechaincompress=threshold=${duckThreshold(music.duck_db).toFixed(6)}:ratio=${DUCK_RATIO}:attack=15:release=400:detection=rms[mixducked]`,
    `[mixvoice][mixducked]amix=inputs=2:duration=first:dropout_transition=0:normalize=0,${limiter}[${out}]`,
  ];
}

/**
 * The second pass on a mix: loudnorm with the first pass's measurement (`linear=true`: one gain),
 * back to 48 kHz (loudnorm works at 192 kHz), cut again so resampling cannot move the end.
 */
export function normaliseChain(final: LoudnessMeasurement, durationS: number): string {
  const d = seconds(durationS);
  return `${loudnormApplyFilter(final)},aresample=${AUDIO_SAMPLE_RATE},${FORMAT},atrim=duration=${d},asetpts=PTS-STARTPTS`;
}

/** The whole audio of a render in one graph: the mix, normalised with the second-pass measurement, at exactly `durationS`. */
export function buildRenderAudioGraph(
  inputs: AudioMixInputs,
  levels: SourceLevels,
  music: MusicBedMix | null,
  final: LoudnessMeasurement,
  out: string,
): string[] {
  return [...buildMixGraph(inputs, levels, music, "mixed"), `[mixed]${normaliseChain(final, inputs.durationS)}[${out}]`];
}

interface AudioSources {
  voicePath: string;
  musicPath: string | null;
  durationS: number;
}

/**
 * The measuring passes, all audio only and all with the cheap ebur128 meter: the sources' levels
 * (side by side), then the final mix. When the mix's peaks (after the limiter) plus the gain to
 * the target would cross loudnorm's ceiling, loudnorm could not stay linear: the mix is measured
 * again with that gain moved ahead of the limiter, so the limiter, not loudnorm's dynamic mode,
 * deals with the peaks. The last measurement of the mix is loudnorm's first pass: the render hands
 * it to loudnorm with `linear=true`. With `mixPath`, each round also writes the mix it measured
 * there (the last round's stays), so the second pass needs neither the sources nor the limiter.
 */
export async function measureRenderAudio(
  sources: AudioSources,
  music: MusicBedMix | null,
  options: { signal?: AbortSignal; ffmpegPath?: string; niceness?: number; mixPath?: string } = {},
): Promise<{ levels: SourceLevels; final: LoudnessMeasurement }> {
  const d = seconds(sources.durationS);
  const meter = { signal: options.signal, ffmpegPath: options.ffmpegPath, niceness: options.niceness };
  const mixMeter = { ...meter, writeTo: options.mixPath };
  const voice = measureLoudness(["-i", sources.voicePath], `[0:a]aresample=${AUDIO_SAMPLE_RATE},${FORMAT}[measure]`, meter);
  const track = sources.musicPath && music
    ? measureLoudness(["-stream_loop", "-1", "-i", sources.musicPath], `[0:a]aresample=${AUDIO_SAMPLE_RATE},${FORMAT},atrim=duration=${d}[measure]`, meter)
    : Promise.resolve(null);
  const [voiceLevel, trackLevel] = await Promise.all([voice, track]);
  const levels: SourceLevels = { voice: voiceLevel, music: trackLevel, makeup_db: 0 };
  const inputArgs = ["-i", sources.voicePath];
  if (levels.music) inputArgs.push("-stream_loop", "-1", "-i", sources.musicPath!);
  const mixInputs = { voice: 0, music: levels.music ? 1 : null, durationS: sources.durationS };
  let final = await measureLoudness(inputArgs, buildMixGraph(mixInputs, levels, music, "measure").join(";"), mixMeter);
  let previous: { makeup_db: number; measured: LoudnessMeasurement } | null = null;
  for (let round = 1; round < MAX_MIX_ROUNDS && !peaksFitAfterGain(final); round++) {
    const current = { makeup_db: levels.makeup_db, measured: final };
    levels.makeup_db = nextMakeupDb(current, previous);
    previous = current;
    final = await measureLoudness(inputArgs, buildMixGraph(mixInputs, levels, music, "measure").join(";"), mixMeter);
  }
  return { levels, final };
}
