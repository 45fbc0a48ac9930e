/**
 * FFmpeg arguments that turn source media into a scene clip of the job's exact size, rate and
 * length: a still with slow camera motion (Ken Burns), or a video (or frame sequence) cut,
 * looped and scaled to fill the frame. Frames are always filled by cropping, never letterboxed.
 */
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { clipEncoderArgs } from "./procedural.ts";

/** Camera motion over a still: zoom and the crop window's centre, from start to end of the clip. */
interface StillMotion {
  z0: number;
  z1: number;
  /** Crop window position as a fraction of the free space (0 = left/top, 1 = right/bottom). */
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** What of the job a scene clip is made to: its frame size, rate and length. */
type ClipJob = Pick<VisualJob, "width" | "height" | "fps" | "duration_s">;

/** Frames in a clip of the job. */
function clipFrames(job: Pick<VisualJob, "duration_s" | "fps">): number {
  return Math.max(1, Math.round(job.duration_s * job.fps));
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The motion a still gets, chosen from the style's motion and a seed byte (so one scene always
 * moves the same way): `zoom` pushes in or pulls out, `drift` pans across a slightly enlarged
 * frame, `pulse` breathes in slowly around the centre.
 */
export function stillMotion(motion: VisualJob["style"]["motion"], seed: number): StillMotion {
  const flip = (seed & 1) === 1;
  if (motion === "drift") {
    const across = (seed & 2) === 2;
    const [a, b] = flip ? [0.9, 0.1] : [0.1, 0.9];
    return across ? { z0: 1.18, z1: 1.18, x0: a, x1: b, y0: 0.5, y1: 0.5 } : { z0: 1.18, z1: 1.18, x0: 0.5, x1: 0.5, y0: a, y1: b };
  }
  if (motion === "pulse") return { z0: 1, z1: 1.08, x0: 0.5, x1: flip ? 0.45 : 0.55, y0: 0.5, y1: 0.48 };
  return flip ? { z0: 1.2, z1: 1, x0: 0.5, x1: 0.5, y0: 0.45, y1: 0.5 } : { z0: 1, z1: 1.2, x0: 0.5, x1: 0.5, y0: 0.5, y1: 0.45 };
}

/**
 * A still image moved by `motion` over the clip. The image is first scaled to cover twice the
 * frame (so zoompan's whole-pixel steps are half-pixels in the output: no visible judder), then
 * zoompan draws every frame from that one picture.
 */
export function stillToClipArgs(job: ClipJob, imagePath: string, motion: StillMotion, outPath: string, preset = "ultrafast"): string[] {
  const frames = clipFrames(job);
  const w2 = job.width * 2;
  const h2 = job.height * 2;
  const t = `on/${Math.max(1, frames - 1)}`;
  const lerp = (a: number, b: number) => (a === b ? `${round3(a)}` : `(${round3(a)}+${round3(b - a)}*${t})`);
  const filter = [
    `scale=${w2}:${h2}:force_original_aspect_ratio=increase:flags=bicubic`,
    `crop=${w2}:${h2}`,
    `zoompan=z='${lerp(motion.z0, motion.z1)}':x='(iw-iw/zoom)*${lerp(motion.x0, motion.x1)}':y='(ih-ih/zoom)*${lerp(motion.y0, motion.y1)}'` +
    `:d=${frames}:s=${job.width}x${job.height}:fps=${job.fps}`,
    "setsar=1",
    "format=yuv420p",
  ].join(",");
  return ["-i", imagePath, "-vf", filter, ...clipEncoderArgs(job.fps, frames, outPath, preset)];
}

/**
 * A source video cut to the clip's length (looped when shorter), converted to the job's rate and
 * scaled to cover the frame, the overflow cropped around the centre.
 */
export function videoToClipArgs(job: ClipJob, videoPath: string, outPath: string, preset = "ultrafast"): string[] {
  return ["-stream_loop", "-1", "-i", videoPath, ...filledClipArgs(job, outPath, preset)];
}

/**
 * A numbered PNG sequence (`pattern` like `/dir/frame_%05d.png`) played at `sourceFps`, looped to
 * fill the clip, converted to the job's rate and scaled to cover the frame.
 */
export function framesToClipArgs(job: ClipJob, pattern: string, sourceFps: number, outPath: string, preset = "ultrafast"): string[] {
  return ["-f", "image2", "-loop", "1", "-framerate", String(round3(sourceFps)), "-i", pattern, ...filledClipArgs(job, outPath, preset)];
}

/** A moving source, cut to the clip's length, converted to the job's rate, filled and encoded. */
function filledClipArgs(job: ClipJob, outPath: string, preset: string): string[] {
  return ["-t", String(job.duration_s), "-vf", fillFilter(job), ...clipEncoderArgs(job.fps, clipFrames(job), outPath, preset)];
}

function fillFilter(job: Pick<VisualJob, "width" | "height" | "fps">): string {
  return [
    `fps=${job.fps}`,
    `scale=${job.width}:${job.height}:force_original_aspect_ratio=increase:flags=bicubic`,
    `crop=${job.width}:${job.height}`,
    "setsar=1",
    "format=yuv420p",
  ].join(",");
}
