import { rm } from "node:fs/promises";
import { escapeFilterValue, type FfmpegProgress, runFfmpeg } from "../shared/media/ffmpeg.ts";
import { isLinear, type LoudnessMeasurement } from "../shared/media/loudness.ts";
import { measureRenderAudio, type MusicBedMix, normaliseChain, type SourceLevels } from "./music-mix.ts";

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
export const RENDER_RECIPE = "loudnorm-2pass/v2";

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

/** Intermediate files of a render, beside its output; removed when the render ends. */
export function renderPartPaths(outPath: string): { video: string; mix: string; audio: string } {
  return { video: `${outPath}.video.mp4`, mix: `${outPath}.mix.wav`, audio: `${outPath}.audio.m4a` };
}

/**
 * The picture of a render, without sound. Each clip is looped (`-stream_loop -1`), retimed to 30
 * fps, cut to its slot by frame count, scaled and cropped to fill 1080x1920 (a clip already that
 * size passes the scaler untouched); the clips are concatenated and the captions burned in. The
 * output lasts exactly `planFrames / fps` seconds.
 */
export function buildVideoArgs(plan: RenderPlan, outPath: string): string[] {
  return [
    ...pictureFrameArgs(plan),
    ...videoEncoderArgs(plan),
    "-map_metadata", "-1",
    "-f", "mp4",
    "-y", outPath,
  ];
}

/**
 * Inputs, filter graph and mapping of the picture up to its encoder: what follows these
 * arguments receives exactly the frames the render encodes (the render benchmark writes them out
 * raw to time one encode of them).
 */
export function pictureFrameArgs(plan: RenderPlan): string[] {
  const { width, height, fps } = RENDER_FORMAT;
  if (plan.clips.length === 0) throw new Error("a render needs at least one clip");
  for (const clip of plan.clips) {
    if (!Number.isInteger(clip.frames) || clip.frames < 1) throw new Error(`clip ${clip.path} has ${clip.frames} frames`);
  }
  // One decoder thread per clip: the clips decode side by side anyway, and eight frame-threaded
  // decoders only add buffers and thread hand-offs (less memory, slightly less CPU, measured).
  const inputs = plan.clips.flatMap((clip) => ["-threads", "1", "-stream_loop", "-1", "-i", clip.path]);
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
  return [
    ...(plan.threads === undefined ? [] : ["-filter_complex_threads", String(plan.threads)]),
    ...inputs,
    "-filter_complex", chains.join(";"),
    "-map", "[vout]",
    "-an", "-sn", "-dn",
    "-frames:v", String(planFrames(plan)),
  ];
}

/**
 * The sound of a render: the measured mix (music-mix.ts: voice, optional ducked bed, limiter, as
 * the measuring pass wrote it) normalised by loudnorm's second pass with the measured values, at
 * the video's exact length, encoded to AAC.
 */
export function buildAudioArgs(mixPath: string, final: LoudnessMeasurement, durationS: number, outPath: string): string[] {
  return [
    "-i", mixPath,
    "-filter_complex", `[0:a]${normaliseChain(final, durationS)}[aout]`,
    "-map", "[aout]", "-vn", "-sn", "-dn",
    ...audioEncoderArgs(),
    "-map_metadata", "-1",
    "-f", "mp4",
    "-y", outPath,
  ];
}

/** Picture and sound into the published file: stream copies, the index moved to the front. */
export function buildMuxArgs(videoPath: string, audioPath: string, outPath: string): string[] {
  return [
    "-i", videoPath, "-i", audioPath,
    "-map", "0:v:0", "-map", "1:a:0", "-c", "copy",
    "-map_metadata", "-1",
    "-movflags", "+faststart",
    "-f", "mp4",
    "-y", outPath,
  ];
}

/**
 * Niceness of the sound's processes. The picture is the render's critical path and keeps the
 * cores; the sound (a tenth of the work) runs in the gaps x264's threads leave, which are enough
 * for it on 2 cores (render bench: about a second of wall time saved against equal priority).
 * When another render fills those gaps, the sound finishes after its picture instead of slowing it.
 */
export const SOUND_NICENESS = 19;

/**
 * Runs the render as two FFmpeg processes side by side, then a stream copy. The picture (decode,
 * scale, captions, x264 on every core) starts at once; the sound (the audio-only measuring passes,
 * which keep the mix they measured, then that mix normalised and encoded) is a fraction of that
 * work and runs beside it instead of ahead of it, at a lower priority, on whatever the encoder
 * leaves of the cores. Progress reports follow the picture.
 * Either failing stops the other; the intermediate files are removed in every case.
 */
export async function renderVideo(
  plan: RenderPlan,
  options: { signal?: AbortSignal; ffmpegPath?: string; onProgress?: (progress: FfmpegProgress & { fraction: number }) => void } = {},
): Promise<RenderAudioReport> {
  const totalMs = (planFrames(plan) / RENDER_FORMAT.fps) * 1000;
  const parts = renderPartPaths(plan.outPath);
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const run = { signal: stop.signal, ffmpegPath: options.ffmpegPath };
  const failFast = <T>(work: Promise<T>): Promise<T> =>
    work.catch((error) => {
      stop.abort(error);
      throw error;
    });
  try {
    const picture = failFast(runFfmpeg(buildVideoArgs(plan, parts.video), {
      ...run,
      onProgress: (p) => options.onProgress?.({ ...p, done: false, fraction: Math.min(0.99, p.out_time_ms / totalMs) }),
    }));
    const sound = failFast((async () => {
      const background = { ...run, niceness: SOUND_NICENESS };
      const audio = await measureRenderAudio(
        { voicePath: plan.audioPath, musicPath: plan.music?.path ?? null, durationS: totalMs / 1000 },
        plan.music?.mix ?? null,
        { ...background, mixPath: parts.mix },
      );
      await runFfmpeg(buildAudioArgs(parts.mix, audio.final, totalMs / 1000, parts.audio), background);
      return audio;
    })());
    const [audio] = await Promise.all([sound, picture]);
    await runFfmpeg(buildMuxArgs(parts.video, parts.audio, plan.outPath), run);
    options.onProgress?.({ frame: planFrames(plan), fps: null, out_time_ms: totalMs, speed: null, done: true, fraction: 1 });
    return { ...audio, linear: isLinear(audio.final) };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await Promise.all([parts.video, parts.mix, parts.audio].map((path) => rm(path, { force: true })));
  }
}
