import { rename, rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { escapeFilterValue, type FfmpegProgress, mp4OutputArgs, runFfmpeg } from "../shared/media/ffmpeg.ts";
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
interface RenderAudioReport {
  levels: SourceLevels;
  /** The final mix before normalisation (second pass input). */
  final: LoudnessMeasurement;
  /** Whether loudnorm normalised with one gain (true) or had to fall back to its dynamic mode. */
  linear: boolean;
}

/**
 * Scaler for the clips: bilinear upscaling of generated footage is indistinguishable from bicubic
 * after x264 at this bitrate, and costs about half as much, which is most of the render's own
 * filtering work (docs/reports/benchmarks.md, render throughput).
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
    "-c:v",
    "libx264",
    "-profile:v",
    RENDER_FORMAT.videoProfile,
    "-preset",
    options.preset ?? "veryfast",
    "-crf",
    String(options.crf ?? 21),
    ...(options.threads === undefined ? [] : ["-threads:v", String(options.threads)]),
    "-pix_fmt",
    "yuv420p",
    "-r",
    String(RENDER_FORMAT.fps),
    "-g",
    String(RENDER_FORMAT.fps * 2),
  ];
}

/** The audio encoder settings of every render: AAC stereo at 48 kHz. */
export function audioEncoderArgs(): string[] {
  return ["-c:a", "aac", "-b:a", RENDER_FORMAT.audioBitrate, "-ar", String(RENDER_FORMAT.audioSampleRate), "-ac", "2"];
}

/**
 * Lowers a finished render's sound by `gainDb` (below 0) and encodes it again with the render's
 * own audio settings, the picture copied: the correction of a render whose encoded true peak came
 * out over the limit, the AAC encoder having overshot the headroom the mix leaves it. Written
 * beside the file and moved over it, so the file is whole at every moment.
 */
export async function attenuateAudio(path: string, gainDb: number, options: { ffmpegPath?: string; signal?: AbortSignal } = {}): Promise<void> {
  if (!(gainDb < 0) || gainDb < -20) throw new RangeError(`an attenuation is -20..0 dB, not ${gainDb}`);
  const partial = `${path}.attenuated.mp4`;
  try {
    await runFfmpeg([
      "-i",
      path,
      "-map",
      "0:v:0",
      "-map",
      "0:a:0",
      "-c:v",
      "copy",
      "-af",
      `volume=${gainDb.toFixed(2)}dB`,
      ...audioEncoderArgs(),
      ...mp4OutputArgs(partial, { faststart: true }),
    ], options);
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

/** Total frames of a plan: the sum of its clips' slots. */
export function planFrames(plan: Pick<RenderPlan, "clips">): number {
  return plan.clips.reduce((sum, c) => sum + c.frames, 0);
}

/** Intermediate files of a render, beside its output; removed when the render ends. */
function renderPartPaths(outPath: string, segments = 1): { videos: string[]; list: string; mix: string; audio: string } {
  const videos = segments === 1 ? [`${outPath}.video.mp4`] : Array.from({ length: segments }, (_, i) => `${outPath}.video-${i}.mp4`);
  return { videos, list: `${outPath}.segments.txt`, mix: `${outPath}.mix.wav`, audio: `${outPath}.audio.m4a` };
}

/** Frames `[start, end)` of a render's timeline, encoded by one FFmpeg process with `threads` threads. */
export interface PictureSegment {
  start: number;
  end: number;
  threads?: number;
}

/** A segment shorter than this is not worth its own encoder (start-up and lookahead are per process). */
export const MIN_SEGMENT_FRAMES = 10 * RENDER_FORMAT.fps;

/**
 * How the picture is cut to be encoded side by side: as many segments as the render has threads
 * (`plan.threads`, else every core) and at least `MIN_SEGMENT_FRAMES` long, each encoded by its
 * own FFmpeg with its share of the threads (one each when there are as many segments as threads),
 * the segments joined by a stream copy. On 2 cores two single-threaded encoders keep both cores busy
 * to the end, where one encoder with frame threads leaves them idle part of the time (waiting on
 * reference rows, filling and draining its pipeline): the render bench measured 1.01-1.04x the
 * lower bound cut in two against 1.05-1.07x in one piece (docs/reports/benchmarks.md). A render given
 * one thread (several renders sharing the machine, render-concurrency.ts) stays one segment, and
 * so does a video under twice `MIN_SEGMENT_FRAMES`. The cuts go to the scene boundary nearest to
 * equal shares when one is within a quarter of a share (nothing is decoded twice); otherwise
 * inside a scene, whose frames before the cut the later segment decodes and drops. Each segment
 * starts with a key frame.
 */
export function pictureSegments(plan: Pick<RenderPlan, "clips" | "threads">, cores: number = availableParallelism()): PictureSegment[] {
  const total = planFrames(plan);
  const threads = plan.threads ?? cores;
  const count = Math.max(1, Math.min(threads, Math.floor(total / MIN_SEGMENT_FRAMES)));
  if (count === 1) return [wholePicture(plan)];
  const boundaries: number[] = [];
  let at = 0;
  for (const clip of plan.clips.slice(0, -1)) boundaries.push(at += clip.frames);
  const share = total / count;
  const cuts: number[] = [];
  for (let i = 1; i < count; i++) {
    const ideal = Math.round(i * share);
    const nearest = boundaries.reduce<number | null>((best, b) => (best === null || Math.abs(b - ideal) < Math.abs(best - ideal) ? b : best), null);
    const cut = nearest !== null && Math.abs(nearest - ideal) <= share / 4 ? nearest : ideal;
    if (cut > (cuts.at(-1) ?? 0) && cut < total) cuts.push(cut);
  }
  const edges = [0, ...cuts, total];
  const perSegment = Math.max(1, Math.floor(threads / (edges.length - 1)));
  return edges.slice(1).map((end, i) => ({ start: edges[i], end, threads: perSegment }));
}

/** The whole picture as one segment, with the render's own threads. */
function wholePicture(plan: Pick<RenderPlan, "clips" | "threads">): PictureSegment {
  return { start: 0, end: planFrames(plan), threads: plan.threads };
}

/**
 * The picture of a render (or of one segment of it), without sound. Each clip is looped
 * (`-stream_loop -1`), retimed to 30 fps, cut to its slot by frame count, scaled and cropped to
 * fill 1080x1920 (a clip already that size passes the scaler untouched); the clips are
 * concatenated and the captions burned in. The output lasts exactly its frames / fps seconds.
 */
export function buildVideoArgs(plan: RenderPlan, outPath: string, segment: PictureSegment = wholePicture(plan)): string[] {
  return [
    ...pictureFrameArgs(plan, segment),
    ...videoEncoderArgs({ ...plan, threads: segment.threads }),
    ...mp4OutputArgs(outPath, { faststart: false }),
  ];
}

/**
 * Inputs, filter graph and mapping of the picture (or of one segment) up to its encoder: what
 * follows these arguments receives exactly the frames the render encodes (the render benchmark
 * writes them out raw to time one encode of them). A segment takes only the clips it overlaps,
 * each trimmed to its part, and burns the captions at the segment's place in the timeline.
 */
export function pictureFrameArgs(plan: RenderPlan, segment: PictureSegment = wholePicture(plan)): string[] {
  const { width, height, fps } = RENDER_FORMAT;
  if (plan.clips.length === 0) throw new Error("a render needs at least one clip");
  for (const clip of plan.clips) {
    if (!Number.isInteger(clip.frames) || clip.frames < 1) throw new Error(`clip ${clip.path} has ${clip.frames} frames`);
  }
  const total = planFrames(plan);
  const { start, end, threads } = segment;
  if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && end <= total && start < end)) {
    throw new Error(`segment [${start}, ${end}) is not within the render's ${total} frames`);
  }
  // Each clip's part of the segment, in its own frame numbers.
  const parts: Array<{ path: string; from: number; to: number }> = [];
  let clipStart = 0;
  for (const clip of plan.clips) {
    const from = Math.max(start, clipStart) - clipStart;
    const to = Math.min(end, clipStart + clip.frames) - clipStart;
    if (from < to) parts.push({ path: clip.path, from, to });
    clipStart += clip.frames;
  }
  // One decoder thread per clip: the clips decode side by side anyway, and eight frame-threaded
  // decoders only add buffers and thread hand-offs (less memory, slightly less CPU, measured).
  const inputs = parts.flatMap((part) => ["-threads", "1", "-stream_loop", "-1", "-i", part.path]);
  const chains = parts.map((part, i) =>
    `[${i}:v]fps=${fps},trim=${part.from > 0 ? `start_frame=${part.from}:` : ""}end_frame=${part.to},setpts=PTS-STARTPTS,` +
    `scale=${width}:${height}:force_original_aspect_ratio=increase:flags=${SCALE_FLAGS},crop=${width}:${height},setsar=1,format=yuv420p[v${i}]`
  );
  const concatInputs = parts.map((_, i) => `[v${i}]`).join("");
  chains.push(`${concatInputs}concat=n=${parts.length}:v=1:a=0[vcat]`);
  if (plan.subtitlesPath) {
    const fontsDir = plan.fontsDir ? `:fontsdir=${escapeFilterValue(plan.fontsDir)}` : "";
    // The captions are timed on the whole video: a later segment's frames are moved to their
    // place in it for the captions, then back to start at 0.
    const ass = `ass=filename=${escapeFilterValue(plan.subtitlesPath)}${fontsDir}`;
    chains.push(start > 0 ? `[vcat]setpts=PTS+${start}/(${fps}*TB),${ass},setpts=PTS-STARTPTS[vout]` : `[vcat]${ass}[vout]`);
  } else {
    chains.push("[vcat]null[vout]");
  }
  return [
    ...(threads === undefined ? [] : ["-filter_complex_threads", String(threads)]),
    ...inputs,
    "-filter_complex",
    chains.join(";"),
    "-map",
    "[vout]",
    "-an",
    "-sn",
    "-dn",
    "-frames:v",
    String(end - start),
  ];
}

/**
 * The sound of a render: the measured mix (music-mix.ts: voice, optional ducked bed, limiter, as
 * the measuring pass wrote it) normalised by loudnorm's second pass with the measured values, at
 * the video's exact length, encoded to AAC.
 */
function buildAudioArgs(mixPath: string, final: LoudnessMeasurement, durationS: number, outPath: string): string[] {
  return [
    "-i",
    mixPath,
    "-filter_complex",
    `[0:a]${normaliseChain(final, durationS)}[aout]`,
    "-map",
    "[aout]",
    "-vn",
    "-sn",
    "-dn",
    ...audioEncoderArgs(),
    ...mp4OutputArgs(outPath, { faststart: false }),
  ];
}

/** Picture and sound into the published file: stream copies, the index moved to the front. */
function buildMuxArgs(videoPath: string, audioPath: string, outPath: string): string[] {
  return muxArgs(["-i", videoPath], audioPath, outPath);
}

/**
 * Picture segments and sound into the published file: the segments joined by FFmpeg's concat
 * demuxer (`listPath`, written from `segmentList`), everything copied, the index moved to the front.
 */
function buildSegmentMuxArgs(listPath: string, audioPath: string, outPath: string): string[] {
  return muxArgs(["-f", "concat", "-safe", "0", "-i", listPath], audioPath, outPath);
}

function muxArgs(videoInput: string[], audioPath: string, outPath: string): string[] {
  return [
    ...videoInput,
    "-i",
    audioPath,
    "-map",
    "0:v:0",
    "-map",
    "1:a:0",
    "-c",
    "copy",
    ...mp4OutputArgs(outPath, { faststart: true }),
  ];
}

/** The concat demuxer's list of segment files, in order (single quotes escaped as the format wants). */
export function segmentList(paths: string[]): string {
  return paths.map((p) => `file '${p.replaceAll("'", "'\\''")}'\n`).join("");
}

/**
 * Niceness of the sound's processes beside one encoder with frame threads: the picture is the
 * render's critical path and keeps the cores, and the sound (a tenth of the work) runs in the gaps
 * x264's frame threads leave (the render bench's short, interleaved with equal-priority runs:
 * 0.8-0.9 s sooner, within this machine's run-to-run noise). Single-threaded encoders (segments,
 * or a render given one thread) leave no gaps: beside them a niced sound would wait until a
 * picture ends, so it takes its fair share instead.
 */
export const SOUND_NICENESS = 19;

/** The niceness of a render's sound, given how its picture is encoded. */
export function soundNiceness(segments: PictureSegment[]): number {
  return segments.length === 1 && segments[0].threads !== 1 ? SOUND_NICENESS : 0;
}

/**
 * Runs the render as FFmpeg processes side by side, then a stream copy. The picture (decode,
 * scale, captions, x264), one process per segment (`pictureSegments`), starts at once; the sound
 * (the audio-only measuring passes, which keep the mix they measured, then that mix normalised and
 * encoded) is a fraction of that work and runs beside it instead of ahead of it. Progress reports
 * follow the picture: the segments' output time, summed.
 * Any process failing stops the others; the intermediate files are removed in every case.
 */
export async function renderVideo(
  plan: RenderPlan,
  options: { signal?: AbortSignal; ffmpegPath?: string; onProgress?: (progress: FfmpegProgress & { fraction: number }) => void } = {},
): Promise<RenderAudioReport> {
  const totalMs = (planFrames(plan) / RENDER_FORMAT.fps) * 1000;
  const segments = pictureSegments(plan);
  const parts = renderPartPaths(plan.outPath, segments.length);
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
    // Output time reached by each segment.
    const reached = segments.map(() => 0);
    const picture = failFast(Promise.all(segments.map((segment, i) =>
      runFfmpeg(buildVideoArgs(plan, parts.videos[i], segment), {
        ...run,
        onProgress: (p) => {
          reached[i] = Math.min(p.out_time_ms, ((segment.end - segment.start) / RENDER_FORMAT.fps) * 1000);
          const doneMs = reached.reduce((sum, ms) => sum + ms, 0);
          options.onProgress?.({ ...p, out_time_ms: doneMs, done: false, fraction: Math.min(0.99, doneMs / totalMs) });
        },
      })
    )));
    const sound = failFast((async () => {
      const background = { ...run, niceness: soundNiceness(segments) };
      const audio = await measureRenderAudio(
        { voicePath: plan.audioPath, musicPath: plan.music?.path ?? null, durationS: totalMs / 1000 },
        plan.music?.mix ?? null,
        { ...background, mixPath: parts.mix },
      );
      await runFfmpeg(buildAudioArgs(parts.mix, audio.final, totalMs / 1000, parts.audio), background);
      return audio;
    })());
    const [audio] = await Promise.all([sound, picture]);
    if (segments.length === 1) {
      await runFfmpeg(buildMuxArgs(parts.videos[0], parts.audio, plan.outPath), run);
    } else {
      await writeFile(parts.list, segmentList(parts.videos), "utf8");
      await runFfmpeg(buildSegmentMuxArgs(parts.list, parts.audio, plan.outPath), run);
    }
    options.onProgress?.({ frame: planFrames(plan), fps: null, out_time_ms: totalMs, speed: null, done: true, fraction: 1 });
    return { ...audio, linear: isLinear(audio.final) };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await Promise.all([...parts.videos, parts.list, parts.mix, parts.audio].map((path) => rm(path, { force: true })));
  }
}
