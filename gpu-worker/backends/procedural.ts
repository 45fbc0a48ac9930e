import type { VisualJob } from "../../shared/contracts/queue.ts";
import { NonRetriableError } from "../../shared/errors.ts";
import { mp4OutputArgs, runFfmpeg } from "../../shared/media/ffmpeg.ts";
import type { VisualBackend, VisualBackendContext } from "./visual-backend.ts";
import { PROCEDURAL_BACKEND_VERSION } from "../../shared/contracts/visual-backends.ts";

export { PROCEDURAL_BACKEND_VERSION };

/**
 * The development backend: an animated gradient drawn by FFmpeg's lavfi sources, every choice
 * (gradient kind, colour order, geometry, pattern, speeds) taken from the bytes of scene_hash, so
 * the same hash always gives a byte-identical file on the same FFmpeg build.
 */

const GRADIENT_TYPES = ["linear", "radial", "circular", "spiral"] as const;
const PATTERNS = ["none", "grid", "bands", "vignette"] as const;

/** Everything the clip is drawn from, derived from the job alone. */
interface ProceduralRecipe {
  width: number;
  height: number;
  fps: number;
  frames: number;
  motion: VisualJob["style"]["motion"];
  gradient: (typeof GRADIENT_TYPES)[number];
  colors: string[];
  /** Gradient rotation per frame (lavfi `gradients` speed). */
  speed: number;
  /** Gradient line, as fractions of the frame. */
  line: [number, number, number, number];
  seed: number;
  pattern: (typeof PATTERNS)[number];
  /** Pattern cell size, in source pixels (a quarter of the output scale). */
  cell: number;
  /** Motion period in seconds, and phase. */
  period: number;
  phase: number;
  /** Drift: second-axis period. Zoom: total zoom amount; negative zooms out. */
  secondary: number;
}

function hashBytes(sceneHash: string): number[] {
  if (!/^[0-9a-f]{64}$/.test(sceneHash)) throw new Error(`scene_hash must be 64 hex digits: ${sceneHash}`);
  return Array.from({ length: 32 }, (_, i) => Number.parseInt(sceneHash.slice(2 * i, 2 * i + 2), 16));
}

/** A number in [lo, hi) from one byte, rounded to 3 decimals so the filter text is stable. */
function pick(byte: number, lo: number, hi: number): number {
  return Math.round((lo + ((hi - lo) * byte) / 256) * 1000) / 1000;
}

function even(n: number): number {
  return Math.max(2, 2 * Math.round(n / 2));
}

/** The recipe of a job's clip. Pure: same job, same recipe. */
export function proceduralRecipe(job: VisualJob): ProceduralRecipe {
  const b = hashBytes(job.scene_hash);
  const palette = job.style.palette;
  const rotate = b[1] % palette.length;
  const colors = [...palette.slice(rotate), ...palette.slice(0, rotate)];
  if (b[2] & 1) colors.reverse();
  const zoomAmount = pick(b[18], 0.12, 0.3);
  return {
    width: job.width,
    height: job.height,
    fps: job.fps,
    frames: Math.max(1, Math.round(job.duration_s * job.fps)),
    motion: job.style.motion,
    gradient: GRADIENT_TYPES[b[0] % GRADIENT_TYPES.length],
    colors,
    speed: pick(b[3], 0.004, 0.03),
    line: [pick(b[4], 0, 0.5), pick(b[5], 0, 0.5), pick(b[6], 0.5, 1), pick(b[7], 0.5, 1)],
    seed: ((b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23]) >>> 0,
    pattern: PATTERNS[b[12] % PATTERNS.length],
    cell: 12 + (b[13] % 28),
    period: pick(b[14], 2, 8),
    phase: pick(b[16], 0, 6.283),
    secondary: job.style.motion === "zoom" ? (b[17] & 1 ? zoomAmount : -zoomAmount) : pick(b[15], 3, 11),
  };
}

/**
 * The lavfi graph of a recipe. The gradient is drawn at a quarter of the size and upscaled (it is
 * smooth, and drawing it at full size costs most of the time); the pattern is drawn at that size
 * too, so it moves with the gradient and comes out soft.
 */
function proceduralFilter(r: ProceduralRecipe): string {
  const margin = r.motion === "drift" ? 1.25 : 1;
  const canvasW = even(r.width * margin);
  const canvasH = even(r.height * margin);
  const srcW = even(canvasW / 4);
  const srcH = even(canvasH / 4);
  const colorOpts = r.colors.map((c, i) => `c${i}=0x${c.slice(1).toLowerCase()}`).join(":");
  const [x0, y0, x1, y1] = r.line;
  const steps: string[] = [
    `gradients=s=${srcW}x${srcH}:r=${r.fps}:n=${r.colors.length}:${colorOpts}` +
    `:x0=${Math.round(x0 * srcW)}:y0=${Math.round(y0 * srcH)}:x1=${Math.round(x1 * srcW)}:y1=${Math.round(y1 * srcH)}` +
    `:seed=${r.seed}:speed=${r.speed}:type=${r.gradient}`,
  ];
  if (r.pattern === "grid") steps.push(`drawgrid=w=${r.cell}:h=${r.cell}:t=1:c=white@0.22`);
  if (r.pattern === "bands") steps.push(`drawgrid=w=iw:h=${r.cell * 2}:t=${Math.max(2, Math.round(r.cell / 3))}:c=black@0.16`);
  if (r.pattern === "vignette") steps.push(`vignette=angle=${(0.5 + r.cell / 80).toFixed(3)}`);
  steps.push(`scale=${canvasW}:${canvasH}:flags=bicubic`, "format=yuv420p");

  const tau = `2*PI*t/${r.period}`;
  if (r.motion === "drift") {
    steps.push(
      `crop=${r.width}:${r.height}` +
        `:x='(iw-ow)/2*(1+sin(${tau}+${r.phase}))'` +
        `:y='(ih-oh)/2*(1+sin(2*PI*t/${r.secondary}))'`,
    );
  } else if (r.motion === "pulse") {
    steps.push(`eq=brightness='0.07*sin(${tau})':saturation='1+0.25*sin(${tau}+${r.phase})':eval=frame`);
  } else {
    const progress = `on/${r.frames}`;
    const z = r.secondary >= 0 ? `1+${r.secondary}*${progress}` : `${1 - r.secondary}-${-r.secondary}*${progress}`;
    steps.push(`zoompan=z='${z}':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=1:s=${r.width}x${r.height}:fps=${r.fps}`);
  }
  steps.push("setsar=1", "format=yuv420p");
  return steps.join(",");
}

/**
 * FFmpeg arguments for a recipe. Determinism: bitexact muxing and encoding (no version strings),
 * no metadata, and a fixed x264 thread count so the bitstream does not depend on the machine.
 * `ultrafast` by default: a clip is an intermediate that the render encodes again.
 */
/**
 * The x264 encode of every generated scene clip (procedural, and the still and stock-footage
 * motions of clip-motion.ts): H.264 high, `frames` frames at `fps`, deterministic as above.
 */
export function clipEncoderArgs(fps: number, frames: number, outPath: string, preset: string): string[] {
  return [
    "-frames:v",
    String(frames),
    "-an",
    "-c:v",
    "libx264",
    "-preset",
    preset,
    "-crf",
    "20",
    "-profile:v",
    "high",
    "-pix_fmt",
    "yuv420p",
    "-threads",
    "2",
    "-g",
    String(fps * 2),
    "-r",
    String(fps),
    "-flags:v",
    "+bitexact",
    "-fflags",
    "+bitexact",
    "-map_chapters",
    "-1",
    ...mp4OutputArgs(outPath, { faststart: true }),
  ];
}

function proceduralArgs(r: ProceduralRecipe, outPath: string, preset = "ultrafast"): string[] {
  return ["-f", "lavfi", "-i", proceduralFilter(r), ...clipEncoderArgs(r.fps, r.frames, outPath, preset)];
}

export class ProceduralBackend implements VisualBackend {
  readonly name = "procedural" as const;
  readonly version = PROCEDURAL_BACKEND_VERSION;

  constructor(private readonly options: { ffmpegPath?: string; preset?: string } = {}) {}

  async generate(job: VisualJob, outPath: string, ctx: VisualBackendContext): Promise<void> {
    // yuv420p needs even sizes; the plan asks for 720x1280, anything else is a contract mistake.
    if (job.width % 2 !== 0 || job.height % 2 !== 0) throw new NonRetriableError(`frame size must be even: ${job.width}x${job.height}`);
    const recipe = proceduralRecipe(job);
    ctx.logger.debug({ recipe }, "procedural recipe");
    await runFfmpeg(proceduralArgs(recipe, outPath, this.options.preset), { signal: ctx.signal, ffmpegPath: this.options.ffmpegPath });
  }
}
