import { escapeFilterValue, type FfmpegProgress, runFfmpeg } from "../shared/media/ffmpeg.ts";

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
  outPath: string;
  /** x264 preset; veryfast keeps a 40-s video within about real time on 2 cores. */
  preset?: string;
  crf?: number;
}

/** Total frames of a plan: the sum of its clips' slots. */
export function planFrames(plan: Pick<RenderPlan, "clips">): number {
  return plan.clips.reduce((sum, c) => sum + c.frames, 0);
}

/**
 * The ffmpeg arguments of one render. Each clip is looped (`-stream_loop -1`), retimed to 30 fps,
 * cut to its slot by frame count, scaled and cropped to fill 1080x1920; the clips are
 * concatenated, the captions burned in, and the voice padded with silence or cut to the video's
 * exact length, so the output lasts exactly `planFrames / fps` seconds.
 */
export function buildRenderArgs(plan: RenderPlan): string[] {
  const { width, height, fps } = RENDER_FORMAT;
  if (plan.clips.length === 0) throw new Error("a render needs at least one clip");
  for (const clip of plan.clips) {
    if (!Number.isInteger(clip.frames) || clip.frames < 1) throw new Error(`clip ${clip.path} has ${clip.frames} frames`);
  }
  const totalFrames = planFrames(plan);
  const durationS = (totalFrames / fps).toFixed(6);

  const inputs = plan.clips.flatMap((clip) => ["-stream_loop", "-1", "-i", clip.path]);
  inputs.push("-i", plan.audioPath);
  const audioInput = plan.clips.length;

  const chains = plan.clips.map((clip, i) =>
    `[${i}:v]fps=${fps},trim=end_frame=${clip.frames},setpts=PTS-STARTPTS,` +
    `scale=${width}:${height}:force_original_aspect_ratio=increase:flags=bicubic,crop=${width}:${height},setsar=1,format=yuv420p[v${i}]`
  );
  const concatInputs = plan.clips.map((_, i) => `[v${i}]`).join("");
  chains.push(`${concatInputs}concat=n=${plan.clips.length}:v=1:a=0[vcat]`);
  if (plan.subtitlesPath) {
    const fontsDir = plan.fontsDir ? `:fontsdir=${escapeFilterValue(plan.fontsDir)}` : "";
    chains.push(`[vcat]ass=filename=${escapeFilterValue(plan.subtitlesPath)}${fontsDir}[vout]`);
  } else {
    chains.push("[vcat]null[vout]");
  }
  chains.push(
    `[${audioInput}:a]aresample=${RENDER_FORMAT.audioSampleRate},apad=whole_dur=${durationS},atrim=duration=${durationS},asetpts=PTS-STARTPTS[aout]`,
  );

  return [
    ...inputs,
    "-filter_complex", chains.join(";"),
    "-map", "[vout]",
    "-map", "[aout]",
    "-frames:v", String(totalFrames),
    "-c:v", "libx264",
    "-profile:v", RENDER_FORMAT.videoProfile,
    "-preset", plan.preset ?? "veryfast",
    "-crf", String(plan.crf ?? 21),
    "-pix_fmt", "yuv420p",
    "-r", String(fps),
    "-g", String(fps * 2),
    "-c:a", "aac",
    "-b:a", RENDER_FORMAT.audioBitrate,
    "-ar", String(RENDER_FORMAT.audioSampleRate),
    "-ac", "2",
    "-map_metadata", "-1",
    "-movflags", "+faststart",
    "-f", "mp4",
    "-y", plan.outPath,
  ];
}

/** Runs the render; progress reports carry the fraction done. */
export async function renderVideo(
  plan: RenderPlan,
  options: { signal?: AbortSignal; ffmpegPath?: string; onProgress?: (progress: FfmpegProgress & { fraction: number }) => void } = {},
): Promise<void> {
  const totalMs = (planFrames(plan) / RENDER_FORMAT.fps) * 1000;
  await runFfmpeg(buildRenderArgs(plan), {
    signal: options.signal,
    ffmpegPath: options.ffmpegPath,
    onProgress: (p) => options.onProgress?.({ ...p, fraction: p.done ? 1 : Math.min(1, p.out_time_ms / totalMs) }),
  });
}
