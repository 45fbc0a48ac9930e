import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import type { CaptionBox } from "../contracts/captions.ts";
import { type QualityCheck, type QualityCheckName, QualityReport } from "../contracts/quality.ts";
import { resolveFfmpegBinaries } from "./ffmpeg.ts";
import { TRUE_PEAK_LIMIT_DBTP } from "./loudness.ts";
import { type MediaInfo, probeMedia } from "./ffprobe.ts";

/**
 * The quality gate every render passes before it is stored and published: the published format,
 * the length, loudness for the platforms' players (-14 LUFS, peaks clear of clipping after their
 * own transcode), no black or frozen stretch, and captions inside the safe zone. One ffprobe, one
 * read of the MP4's top-level boxes and one decoding pass of FFmpeg (ebur128 + blackdetect +
 * freezedetect) measure everything.
 */
/** Changes whenever a bound does, so renders measured under older bounds are not reused. */
export const QUALITY_GATE_VERSION = 1;

const QUALITY_BOUNDS = {
  width: 1080,
  height: 1920,
  videoCodec: "h264",
  videoProfile: "High",
  audioCodec: "aac",
  audioProfile: "LC",
  sampleRate: 48_000,
  durationToleranceS: 0.5,
  targetLufs: -14,
  lufsTolerance: 1,
  maxTruePeakDbtp: TRUE_PEAK_LIMIT_DBTP,
  maxBlackS: 1,
  maxFrozenS: 1,
} as const;

/** Stretches shorter than this are not even reported by the detectors. */
const DETECT_MIN_S = 0.5;
/** blackdetect: a pixel is black under 10% luma, a frame when 98% of its pixels are. */
const BLACK_PIXEL_THRESHOLD = 0.1;
/** freezedetect: frames closer than -60 dB of noise count as the same picture. */
const FREEZE_NOISE = "-60dB";

/** A rectangle of the frame captions must stay inside, with the name it is reported by. */
export interface CaptionZone {
  name: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface QualityGateInput {
  path: string;
  /** What the video is meant to last: the narration plus its tail. */
  expectedDurationS: number;
  /** Boxes of the burned-in captions and the zone they must lie in; null for a video without captions. */
  captions: { zone: CaptionZone; boxes: readonly CaptionBox[] } | null;
}

export interface QualityGateOptions {
  ffmpegPath?: string;
  ffprobePath?: string;
  signal?: AbortSignal;
}

/** Which edges of a box lie outside the zone, as phrases; empty when it is inside. */
function boxOverflow(box: Pick<CaptionBox, "left" | "right" | "top" | "bottom">, zone: CaptionZone): string[] {
  const out: string[] = [];
  if (box.left < zone.left) out.push(`left edge ${Math.floor(box.left)} < ${zone.left}`);
  if (box.right > zone.right) out.push(`right edge ${Math.ceil(box.right)} > ${zone.right}`);
  if (box.top < zone.top) out.push(`top edge ${Math.floor(box.top)} < ${zone.top}`);
  if (box.bottom > zone.bottom) out.push(`bottom edge ${Math.ceil(box.bottom)} > ${zone.bottom}`);
  return out;
}

/** One sentence per caption box outside the zone, naming its cue. */
export function captionBoxViolations(boxes: readonly CaptionBox[], zone: CaptionZone): string[] {
  return boxes.flatMap((box) => {
    const out = boxOverflow(box, zone);
    if (out.length === 0) return [];
    return [
      `caption cue ${box.cue} "${box.text}" at ${
        (box.start_ms / 1000).toFixed(2)
      } s lies outside the ${zone.name} (x ${zone.left}-${zone.right}, y ${zone.top}-${zone.bottom}): ${out.join(", ")}`,
    ];
  });
}

/** Top-level MP4 box types in file order, read from their headers only (a few bytes each). */
export async function topLevelBoxes(path: string, maxBoxes = 64): Promise<string[]> {
  const file = await open(path, "r");
  try {
    const { size: fileSize } = await file.stat();
    const header = Buffer.alloc(16);
    const types: string[] = [];
    let at = 0;
    while (at + 8 <= fileSize && types.length < maxBoxes) {
      const { bytesRead } = await file.read(header, 0, 16, at);
      if (bytesRead < 8) break;
      let size = header.readUInt32BE(0);
      types.push(header.toString("latin1", 4, 8));
      if (size === 1 && bytesRead >= 16) size = Number(header.readBigUInt64BE(8));
      else if (size === 0) size = fileSize - at;
      if (size < 8) break;
      at += size;
    }
    return types;
  } finally {
    await file.close();
  }
}

/** What the decoding pass found. */
interface SignalMeasures {
  integrated_lufs: number | null;
  true_peak_dbtp: number | null;
  longest_black_s: number;
  longest_frozen_s: number;
}

const finiteOrNull = (text: string | undefined): number | null => {
  const n = text === undefined ? Number.NaN : Number.parseFloat(text);
  return Number.isFinite(n) ? n : null;
};

/**
 * Reads ebur128's last summary (its integrated loudness and true peak) and the longest black and
 * frozen stretches from FFmpeg's log. A freeze still open when the file ends lasts until `durationS`.
 */
function parseSignalLog(log: string, durationS: number): SignalMeasures {
  const summary = log.slice(log.lastIndexOf("Summary:"));
  const hasSummary = log.includes("Summary:");
  let longestBlack = 0;
  for (const m of log.matchAll(/black_start:\s*([\d.]+)\s+black_end:\s*([\d.]+)\s+black_duration:\s*([\d.]+)/g)) {
    longestBlack = Math.max(longestBlack, Number(m[3]));
  }
  let longestFrozen = 0;
  let openFreeze: number | null = null;
  for (const m of log.matchAll(/lavfi\.freezedetect\.freeze_(start|duration|end):\s*([\d.]+)/g)) {
    const value = Number(m[2]);
    if (m[1] === "start") openFreeze = value;
    else if (m[1] === "duration") longestFrozen = Math.max(longestFrozen, value);
    else openFreeze = null;
  }
  if (openFreeze !== null) longestFrozen = Math.max(longestFrozen, durationS - openFreeze);
  return {
    integrated_lufs: hasSummary ? finiteOrNull(/\bI:\s+(-?[\d.]+|-inf) LUFS/.exec(summary)?.[1]) : null,
    true_peak_dbtp: hasSummary ? finiteOrNull(/Peak:\s+(-?[\d.]+|-inf) dBFS/.exec(summary)?.[1]) : null,
    longest_black_s: Math.round(longestBlack * 1000) / 1000,
    longest_frozen_s: Math.round(longestFrozen * 1000) / 1000,
  };
}

/** The decoding pass: ebur128 on the first audio stream, blackdetect and freezedetect on the first video stream. */
async function measureSignal(path: string, info: MediaInfo, options: QualityGateOptions): Promise<SignalMeasures> {
  const chains: string[] = [];
  const maps: string[] = [];
  if (info.audio) {
    chains.push("[0:a:0]ebur128=peak=true:framelog=verbose[aq]");
    maps.push("-map", "[aq]");
  }
  if (info.video) {
    chains.push(`[0:v:0]blackdetect=d=${DETECT_MIN_S}:pix_th=${BLACK_PIXEL_THRESHOLD},freezedetect=n=${FREEZE_NOISE}:d=${DETECT_MIN_S}[vq]`);
    maps.push("-map", "[vq]");
  }
  if (chains.length === 0) return { integrated_lufs: null, true_peak_dbtp: null, longest_black_s: 0, longest_frozen_s: 0 };
  const binary = options.ffmpegPath ?? (await resolveFfmpegBinaries()).ffmpeg;
  const args = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "info", "-i", path, "-filter_complex", chains.join(";"), ...maps, "-f", "null", "-"];
  const log = await new Promise<string>((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"], signal: options.signal });
    // The log is a few lines per detected stretch plus the summary; the cap only guards memory.
    let text = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      text = (text + chunk).slice(-4 * 1024 * 1024);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(text);
      else reject(new Error(`quality analysis of ${path} failed (ffmpeg exited ${code}): ${text.trim().split("\n").slice(-3).join(" | ")}`));
    });
  });
  return parseSignalLog(log, info.duration_s);
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function check(name: QualityCheckName, passed: boolean, value: QualityCheck["value"], unit: string | null, bound: string, reason: string): QualityCheck {
  return { check: name, passed, value, unit, bound, reason: passed ? null : reason };
}

/** Judges measured figures against QUALITY_BOUNDS; pure, for tests. */
function judgeQuality(
  input: Pick<QualityGateInput, "expectedDurationS" | "captions">,
  info: MediaInfo,
  boxes: readonly string[],
  signal: SignalMeasures,
): QualityReport {
  const b = QUALITY_BOUNDS;
  const checks: QualityCheck[] = [];
  const size = info.video ? `${info.video.width}x${info.video.height}` : "no video stream";
  checks.push(
    check(
      "resolution",
      info.video?.width === b.width && info.video?.height === b.height,
      size,
      null,
      `${b.width}x${b.height}`,
      `resolution ${size}, not ${b.width}x${b.height}`,
    ),
  );
  const video = info.video ? `${info.video.codec_name} ${info.video.profile ?? "(no profile)"}` : "no video stream";
  checks.push(
    check(
      "video_codec",
      info.video?.codec_name === b.videoCodec && info.video.profile === b.videoProfile,
      video,
      null,
      `${b.videoCodec} ${b.videoProfile}`,
      `video codec ${video}, not ${b.videoCodec} ${b.videoProfile}`,
    ),
  );
  const audio = info.audio ? `${info.audio.codec_name} ${info.audio.profile ?? "(no profile)"} ${info.audio.sample_rate} Hz` : "no audio stream";
  checks.push(check(
    "audio_codec",
    info.audio?.codec_name === b.audioCodec && info.audio.profile === b.audioProfile && info.audio.sample_rate === b.sampleRate,
    audio,
    null,
    `${b.audioCodec} ${b.audioProfile} ${b.sampleRate} Hz`,
    `audio codec ${audio}, not ${b.audioCodec} ${b.audioProfile} ${b.sampleRate} Hz`,
  ));
  const moov = boxes.indexOf("moov");
  const mdat = boxes.indexOf("mdat");
  const order = moov < 0 ? "no moov box" : mdat < 0 ? "no mdat box" : moov < mdat ? "moov before mdat" : "mdat before moov";
  checks.push(check("faststart", order === "moov before mdat", order, null, "moov before mdat", `not faststart: ${order}`));
  const duration = round(info.duration_s, 3);
  const expected = round(input.expectedDurationS, 3);
  const dB = (n: number) => n.toFixed(1);
  checks.push(check(
    "duration",
    Math.abs(info.duration_s - input.expectedDurationS) <= b.durationToleranceS,
    duration,
    "s",
    `${expected.toFixed(2)} +-${b.durationToleranceS} s`,
    `duration ${duration.toFixed(2)} s, outside ${expected.toFixed(2)} +-${b.durationToleranceS} s`,
  ));
  const lufs = signal.integrated_lufs === null ? null : round(signal.integrated_lufs);
  checks.push(check(
    "integrated_loudness",
    lufs !== null && Math.abs(lufs - b.targetLufs) <= b.lufsTolerance,
    lufs,
    "LUFS",
    `${b.targetLufs} +-${b.lufsTolerance} LUFS`,
    lufs === null
      ? "integrated loudness not measurable (no audio or silence)"
      : `integrated loudness ${dB(lufs)} LUFS, outside ${b.targetLufs} +-${b.lufsTolerance}`,
  ));
  const peak = signal.true_peak_dbtp === null ? null : round(signal.true_peak_dbtp);
  checks.push(check(
    "true_peak",
    peak !== null && peak <= b.maxTruePeakDbtp,
    peak,
    "dBTP",
    `<= ${b.maxTruePeakDbtp} dBTP`,
    peak === null ? "true peak not measurable (no audio)" : `true peak ${dB(peak)} dBTP, above ${b.maxTruePeakDbtp} dBTP`,
  ));
  // The longest black, then frozen, stretch of the picture: failed when longer than its bound, or when there is no picture.
  const stretch = (name: "black_frames" | "frozen_frames", what: "black" | "frozen", longest: number, max: number) =>
    check(
      name,
      info.video !== null && longest <= max,
      longest,
      "s",
      `<= ${max} s`,
      info.video ? `${what} picture for ${longest.toFixed(2)} s, longer than ${max} s` : `no video stream to check for ${what} frames`,
    );
  checks.push(stretch("black_frames", "black", signal.longest_black_s, b.maxBlackS));
  checks.push(stretch("frozen_frames", "frozen", signal.longest_frozen_s, b.maxFrozenS));
  if (input.captions) {
    const violations = captionBoxViolations(input.captions.boxes, input.captions.zone);
    const z = input.captions.zone;
    checks.push(check(
      "captions_safe_zone",
      violations.length === 0,
      violations.length,
      "cues outside",
      `all ${input.captions.boxes.length} cues inside the ${z.name} (x ${z.left}-${z.right}, y ${z.top}-${z.bottom})`,
      violations.length > 3 ? `${violations.slice(0, 3).join("; ")} (and ${violations.length - 3} more)` : violations.join("; "),
    ));
  }
  const failures = checks.filter((c) => !c.passed).map((c) => c.reason!.slice(0, 500));
  return QualityReport.parse({
    passed: failures.length === 0,
    integrated_lufs: lufs,
    true_peak_dbtp: peak,
    duration_s: Math.max(0, duration),
    checks,
    failures,
  });
}

/**
 * Measures a finished video against QUALITY_BOUNDS. A video that breaks a bound is a report that
 * says so; only a file ffprobe or FFmpeg cannot read at all makes it throw.
 */
export async function measureQuality(input: QualityGateInput, options: QualityGateOptions = {}): Promise<QualityReport> {
  const info = await probeMedia(input.path, { ffprobePath: options.ffprobePath, signal: options.signal });
  const boxes = await topLevelBoxes(input.path);
  const signal = await measureSignal(input.path, info, options);
  return judgeQuality(input, info, boxes, signal);
}

/** The failures as one sentence, for a render.failed reason. */
export function describeFailures(report: QualityReport): string {
  return `quality gate failed: ${report.failures.join("; ")}`;
}
