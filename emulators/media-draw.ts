/**
 * Deterministic pictures and clips for the visual emulators (Gemini image, Pexels, ComfyUI),
 * drawn by FFmpeg from a seed and a caption: a gradient in colours taken from the seed (or the
 * palette the prompt names), the caption's words written large, so a frame shows what was asked.
 * Same inputs, same bytes (bitexact encoders, fixed threads). Results are kept on disk under the
 * emulator's data dir, so a repeat request costs a file read.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import process from "node:process";
import { mp4OutputArgs, runFfmpeg } from "../shared/media/ffmpeg.ts";

const GRADIENT_TYPES = ["linear", "radial", "circular", "spiral"];
/**
 * Where the caption's words go: in the upper part of the picture, a fifth of the free height down,
 * clear of the band a vertical video's burned captions take (the lower middle, above the
 * platforms' bottom overlays), so a rendered frame shows both.
 */
export const LABEL_Y = "(h-text_h)/5";
/** Names the drawing: part of every cached file's key, so a change of look is not served from old files. */
const DRAWING_VERSION = 2;
const FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

interface DrawSpec {
  /** Anything that identifies the picture; hashed into the seed. */
  seed: string;
  caption: string;
  width: number;
  height: number;
  /** `#rrggbb` colours to draw with; taken from the seed when fewer than two. */
  palette?: string[];
}

function seedBytes(seed: string): Buffer {
  return createHash("sha256").update(seed).digest();
}

/** Up to 4 lines of at most ~12 characters, upper-cased: readable at a glance on a phone. */
export function wrapCaption(caption: string): string {
  const words = caption.replace(/[^\p{L}\p{N}' -]+/gu, " ").split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.at(-1);
    if (last !== undefined && (last + " " + word).length <= 12) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.slice(0, 4).join("\n").toUpperCase();
}

function colours(spec: DrawSpec, b: Buffer): string[] {
  if (spec.palette && spec.palette.length >= 2) return spec.palette.slice(0, 4).map((c) => `0x${c.slice(1).toLowerCase()}`);
  return [0, 3, 6].map((i) => `0x${b.subarray(i, i + 3).toString("hex")}`);
}

/** The lavfi source graph of one picture (`frames` > 1 animates the gradient). */
function sourceGraph(spec: DrawSpec, textFile: string, rate: number): string {
  const b = seedBytes(spec.seed);
  const cs = colours(spec, b);
  // The gradient is smooth: drawn at a quarter of the size and scaled up, it costs a sixteenth.
  const small = (n: number) => Math.max(2, 2 * Math.round(n / 8));
  const gradient = `gradients=s=${small(spec.width)}x${small(spec.height)}:r=${rate}:n=${cs.length}:${cs.map((c, i) => `c${i}=${c}`).join(":")}` +
    `:seed=${b.readUInt32BE(12)}:speed=0.02:type=${GRADIENT_TYPES[b[16]! % GRADIENT_TYPES.length]}`;
  const size = Math.round(Math.min(spec.width, spec.height) / 13);
  const text = `drawtext=fontfile=${FONT}:textfile=${textFile}:fontsize=${size}:fontcolor=white:line_spacing=${Math.round(size / 4)}` +
    `:box=1:boxcolor=black@0.45:boxborderw=${Math.round(size / 3)}:x=(w-text_w)/2:y=${LABEL_Y}`;
  return `${gradient},scale=${spec.width}:${spec.height}:flags=bilinear,drawgrid=w=${Math.round(spec.width / 6)}:h=${
    Math.round(spec.width / 6)
  }:t=2:c=white@0.12,${text},format=yuv420p`;
}

async function cached(dataDir: string, key: string, ext: string, make: (tmpOut: string, work: string) => Promise<void>): Promise<Uint8Array> {
  const dir = path.join(dataDir, "visual-media");
  const file = path.join(dir, `${key}.${ext}`);
  if (existsSync(file)) return new Uint8Array(await readFile(file));
  await mkdir(dir, { recursive: true });
  const work = path.join(dir, `${key}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  await mkdir(work, { recursive: true });
  try {
    const out = path.join(work, `out.${ext}`);
    await make(out, work);
    await rename(out, file);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return new Uint8Array(await readFile(file));
}

const keyOf = (kind: string, spec: DrawSpec, extra: unknown) =>
  createHash("sha256").update(JSON.stringify([kind, DRAWING_VERSION, spec, extra])).digest("hex").slice(0, 32);

/**
 * A drawing kept on disk: the lavfi source graph of `spec` at `rate` frames a second, written to
 * the output file by `outputArgs` (frames, encoder, muxer).
 */
function drawn(
  dataDir: string,
  spec: DrawSpec,
  ext: "png" | "mp4",
  extra: unknown,
  rate: number,
  outputArgs: (out: string) => string[],
): Promise<Uint8Array> {
  return cached(dataDir, keyOf(ext, spec, extra), ext, async (out, work) => {
    const textFile = path.join(work, "caption.txt");
    await writeFile(textFile, wrapCaption(spec.caption) || " ");
    await runFfmpeg(["-f", "lavfi", "-i", sourceGraph(spec, textFile, rate), ...outputArgs(out)]);
  });
}

/** One PNG picture. */
export function drawPng(dataDir: string, spec: DrawSpec): Promise<Uint8Array> {
  return drawn(dataDir, spec, "png", null, 1, (out) => [
    "-frames:v",
    "1",
    "-pix_fmt",
    "rgb24",
    "-flags",
    "+bitexact",
    "-fflags",
    "+bitexact",
    "-f",
    "image2",
    "-c:v",
    "png",
    "-y",
    out,
  ]);
}

/** An H.264 MP4 of `seconds` at `fps`, the gradient moving under the caption. */
export function drawMp4(dataDir: string, spec: DrawSpec, seconds: number, fps: number): Promise<Uint8Array> {
  return drawn(dataDir, spec, "mp4", [seconds, fps], fps, (out) => [
    "-frames:v",
    String(Math.round(seconds * fps)),
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-crf",
    "28",
    "-pix_fmt",
    "yuv420p",
    "-threads",
    "2",
    "-flags:v",
    "+bitexact",
    "-fflags",
    "+bitexact",
    ...mp4OutputArgs(out, { faststart: true }),
  ]);
}
