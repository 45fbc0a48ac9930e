import { execFile } from "node:child_process";
import { z } from "zod";
import { resolveFfmpegBinaries } from "./ffmpeg.ts";

/** What the engine needs to know about a media file. */
export interface MediaInfo {
  format_name: string;
  duration_s: number;
  size_bytes: number;
  video: {
    codec_name: string;
    profile: string | null;
    width: number;
    height: number;
    pix_fmt: string | null;
    /** Average frame rate, frames per second. */
    fps: number;
    nb_frames: number | null;
  } | null;
  audio: {
    codec_name: string;
    /** AAC profile as ffprobe names it ("LC", "HE-AAC"), null for codecs without one. */
    profile: string | null;
    sample_rate: number;
    channels: number;
    bit_rate: number | null;
  } | null;
}

const numeric = z.union([z.string(), z.number()]).transform((v) => Number(v)).pipe(z.number().finite());

/** ffprobe's JSON, only the fields read here (ffprobe adds many more, which are dropped). */
const ProbeOutput = z.object({
  streams: z.array(z.object({
    codec_type: z.string(),
    codec_name: z.string().default("unknown"),
    profile: z.string().optional(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    pix_fmt: z.string().optional(),
    avg_frame_rate: z.string().optional(),
    r_frame_rate: z.string().optional(),
    nb_frames: numeric.optional(),
    sample_rate: numeric.optional(),
    channels: z.number().int().optional(),
    bit_rate: numeric.optional(),
  })).default([]),
  format: z.object({
    format_name: z.string(),
    duration: numeric.optional(),
    size: numeric.optional(),
  }),
});

function parseRate(rate: string | undefined): number | null {
  if (!rate) return null;
  const [num, den] = rate.split("/").map(Number);
  if (!Number.isFinite(num) || !den) return null;
  const fps = num / den;
  return fps > 0 ? fps : null;
}

/** Turns ffprobe's `-show_format -show_streams` JSON into MediaInfo. */
function parseProbeJson(json: string): MediaInfo {
  const probe = ProbeOutput.parse(JSON.parse(json));
  const v = probe.streams.find((s) => s.codec_type === "video");
  const a = probe.streams.find((s) => s.codec_type === "audio");
  return {
    format_name: probe.format.format_name,
    duration_s: probe.format.duration ?? 0,
    size_bytes: probe.format.size ?? 0,
    video: v && v.width && v.height
      ? {
        codec_name: v.codec_name,
        profile: v.profile ?? null,
        width: v.width,
        height: v.height,
        pix_fmt: v.pix_fmt ?? null,
        fps: parseRate(v.avg_frame_rate) ?? parseRate(v.r_frame_rate) ?? 0,
        nb_frames: v.nb_frames ?? null,
      }
      : null,
    audio: a
      ? {
        codec_name: a.codec_name,
        profile: a.profile ?? null,
        sample_rate: a.sample_rate ?? 0,
        channels: a.channels ?? 0,
        bit_rate: a.bit_rate ?? null,
      }
      : null,
  };
}

/** Probes a local media file with ffprobe (JSON output). */
export async function probeMedia(path: string, options: { ffprobePath?: string; signal?: AbortSignal } = {}): Promise<MediaInfo> {
  const binary = options.ffprobePath ?? (await resolveFfmpegBinaries()).ffprobe;
  const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(binary, args, { maxBuffer: 16 * 1024 * 1024, signal: options.signal }, (error, out, err) => {
      if (error) reject(new Error(`ffprobe failed on ${path}: ${String(err).trim() || error.message}`));
      else resolve(out);
    });
  });
  return parseProbeJson(stdout);
}
