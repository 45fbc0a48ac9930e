import { escapeFilterValue, type FfmpegProgress, runFfmpeg } from "../shared/media/ffmpeg.ts";
import { isLinear, type LoudnessMeasurement } from "../shared/media/loudness.ts";
import { buildRenderAudioGraph, measureRenderAudio, type MusicBedMix, type SourceLevels } from "./music-mix.ts";

/** The published format: vertical 1080x1920 H.264 high / AAC. */
export const RENDER_FORMAT = {
  width: 1080,
  height: 1920,
  fps: 30,
  audioSampleRate: 48_000,
  audioBitrate: "128k",
  videoProfile: "high",
} as const;

export interface RenderPlan {
  /** One entry per scene in play order: its local clip and how many frames it fills. */
  clips: Array<{ path: string; frames: number }>;
  audioPath: string;
  /** ASS script burned into the picture; null renders without captions. */
  subtitlesPath: string | null;
  /** Extra font directory for libass (fontconfig finds system fonts without it). */
  fontsDir?: string;
  /** A music bed under the voice (a local track), or null/absent for voice only. */
  music?: { path: string; mix: MusicBedMix } | null;
  outPath: string;
  /** x264 preset; veryfast keeps a 40-s video within about real time on 2 cores. */
  preset?: string;
  crf?: number;
  /**
   * Encoder and filter threads of this render; absent lets FFmpeg use every core. Set it when
   * several renders share a machine (render-runner/render-concurrency.ts).
   */
  threads?: number;
}

/** What the render measured and applied to reach the loudness target. */
export interface RenderAudioReport {
  levels: SourceLevels;
  /** The final mix before normalisation (second pass input). */
  final: LoudnessMeasurement;
  /** Whether loudnorm normalised with one gain (true) or had to fall back to its dynamic mode. */
  linear: boolean;
}

/**
 * Scaler for the clips: bilinear upscaling of generated footage is indistinguishable from bicubic
 * after x264 at this bitrate, and costs about half as much, which is most of the render's own
 * filtering work (docs/benchmarks.md, render throughput).
 */
export const SCALE_FLAGS = "bilinear";

/**
 * Names how a render is made, in its storage key (render-task.ts renderAssetKey): a video stored
 * by an earlier recipe (before loudness normalisation, say) is not reused for the same job.
 */
export const RENDER_RECIPE = "loudnorm-2pass/v1";

/**
 * The video encoder settings of every render: H.264 high (x264). Exported so the render
 * benchmark encodes its lower bound and its naive pipeline exactly the same way.
 */
export function videoEncoderArgs(options: Pick<RenderPlan, "preset" | "crf" | "threads">): string[] {
  return [
    "-c:v", "libx264",
    "-profile:v", RENDER_FORMAT.videoProfile,
    "-preset", options.preset ?? "veryfast",
    "-crf", String(options.crf ?? 21),
    ...(options.threads === undefined ? [] : ["-threads:v", String(options.threads)]),
    "-pix_fmt", "yuv420p",
    "-r", String(RENDER_FORMAT.fps),
    "-g", String(RENDER_FORMAT.fps * 2),
  ];
}

/** The audio encoder settings of every render: AAC stereo at 48 kHz. */
export function audioEncoderArgs(): string[] {
  return ["-c:a", "aac", "-b:a", RENDER_FORMAT.audioBitrate, "-ar", String(RENDER_FORMAT.audioSampleRate), "-ac", "2"];
}

/** Total frames of a plan: the sum of its clips' slots. */
export function planFrames(plan: Pick<RenderPlan, "clips">): number {
  return plan.clips.reduce((sum, c) => sum + c.frames, 0);
}

/**
 * The ffmpeg arguments of one render. Each clip is looped (`-stream_loop -1`), retimed to 30 fps,
 * cut to its slot by frame count, scaled and cropped to fill 1080x1920; the clips are
 * concatenated, the captions burned in; the audio (music-mix.ts: voice, optional bed, loudness
 * normalised with the measured values) is padded with silence or cut to the video's exact
 * length, so the output lasts exactly `planFrames / fps` seconds.
 */
export function buildRenderArgs(plan: RenderPlan, audio: Pick<RenderAudioReport, "levels" | "final">): string[] {
  const { width, height, fps } = RENDER_FORMAT;
  if (plan.clips.length === 0) throw new Error("a render needs at least one clip");
  for (const clip of plan.clips) {
    if (!Number.isInteger(clip.frames) || clip.frames < 1) throw new Error(`clip ${clip.path} has ${clip.frames} frames`);
  }
  const totalFrames = planFrames(plan);

  // One decoder thread per clip: the clips decode side by side anyway, and eight frame-threaded
  // decoders only add buffers and thread hand-offs (less memory, slightly less CPU, measured).
  const inputs = plan.clips.flatMap((clip) => ["-threads", "1", "-stream_loop", "-1", "-i", clip.path]);
  inputs.push("-i", plan.audioPath);
  const voiceInput = plan.clips.length;
  const music = plan.music ?? null;
  if (music) inputs.push("-stream_loop", "-1", "-i", music.path);

  const chains = plan.clips.map((clip, i) =>
    `[${i}:v]fps=${fps},trim=end_frame=${clip.frames},setpts=PTS-STARTPTS,` +
    `scale=${width}:${height}:force_original_aspect_ratio=increase:flags=${SCALE_FLAGS},crop=${width}:${height},setsar=1,format=yuv420p[v${i}]`
  );
  const concatInputs = plan.clips.map((_, i) => `[v${i}]`).join("");
  chains.push(`${concatInputs}concat=n=${plan.clips.length}:v=1:a=0[vcat]`);
  if (plan.subtitlesPath) {
    const fontsDir = plan.fontsDir ? `:fontsdir=${escapeFilterValue(plan.fontsDir)}` : "";
    chains.push(`[vcat]ass=filename=${escapeFilterValue(plan.subtitlesPath)}${fontsDir}[vout]`);
  } else {
    chains.push("[vcat]null[vout]");
  }
  chains.push(...buildRenderAudioGraph(
    { voice: voiceInput, music: music ? voiceInput + 1 : null, durationS: totalFrames / fps },
    audio.levels,
    music?.mix ?? null,
    audio.final,
    "aout",
  ));

  return [
    ...(plan.threads === undefined ? [] : ["-filter_complex_threads", String(plan.threads)]),
    ...inputs,
    "-filter_complex", chains.join(";"),
    "-map", "[vout]",
    "-map", "[aout]",
    "-frames:v", String(totalFrames),
    ...videoEncoderArgs(plan),
    ...audioEncoderArgs(),
    "-map_metadata", "-1",
    "-movflags", "+faststart",
    "-f", "mp4",
    "-y", plan.outPath,
  ];
}

/**
 * Runs the render: the audio-only measuring passes (music-mix.ts), then the one encode, which
 * normalises the audio with what they measured. Progress reports carry the fraction done.
 */
export async function renderVideo(
  plan: RenderPlan,
  options: { signal?: AbortSignal; ffmpegPath?: string; onProgress?: (progress: FfmpegProgress & { fraction: number }) => void } = {},
): Promise<RenderAudioReport> {
  const totalMs = (planFrames(plan) / RENDER_FORMAT.fps) * 1000;
  const audio = await measureRenderAudio(
    { voicePath: plan.audioPath, musicPath: plan.music?.path ?? null, durationS: totalMs / 1000 },
    plan.music?.mix ?? null,
    { signal: options.signal, ffmpegPath: options.ffmpegPath },
  );
  await runFfmpeg(buildRenderArgs(plan, audio), {
    signal: options.signal,
    ffmpegPath: options.ffmpegPath,
    onProgress: (p) => options.onProgress?.({ ...p, fraction: p.done ? 1 : Math.min(1, p.out_time_ms / totalMs) }),
  });
  return { ...audio, linear: isLinear(audio.final) };
}
