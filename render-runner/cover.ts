import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import type { CaptionProfile } from "../shared/contracts/captions.ts";
import { escapeFilterValue, runFfmpeg } from "../shared/media/ffmpeg.ts";
import { coverTitleAss, type CoverTitleLayout, layoutCoverTitle } from "./cover-layout.ts";
import { captionBoxViolations, safeZone } from "./safe-zones.ts";

/**
 * A render's cover: one frame of the video with its title drawn over it, as a 1080x1920 JPEG the
 * engine sets as the Shorts thumbnail. Made with FFmpeg from the finished video, in two decoding
 * passes when the video's opening has a usable frame (the first measures the samples, the second
 * picks one and draws the title):
 *
 * - Samples: `COVER_FRAME.samples` frames spread evenly over the first `windowS` seconds (the
 *   opening the title speaks for), at full resolution.
 * - Usable: a sample is dropped when it is black (the 90th-percentile luma, signalstats' YHIGH, is at
 *   most `blackYHigh`: nine tenths of it near black, a caption on black included), washed out (the
 *   10th percentile, YLOW, is at least `whiteYLow`) or blank (normalised luma entropy at most
 *   `minEntropy`: one flat tone, a fade).
 * - Chosen: of the usable samples, the one FFmpeg's `thumbnail` filter picks, whose colour histogram
 *   is closest to the samples' mean: the most typical picture of the opening, not a transition or
 *   a flash. Its batch is exactly the usable samples, counted by the measuring pass: a batch left
 *   short is picked from only when FFmpeg flushes the filter at the end of its input, which it
 *   does not always do (one run in a few under load gave no frame at all).
 * - Fallbacks: no usable sample in the opening, the same over the whole video; none there either
 *   (every frame is black or blank), the opening's most typical sample as it is.
 *
 * The title is drawn on the chosen frame by libass in the same pass (cover-layout.ts), and the
 * frame written as a JPEG at `quality` (FFmpeg's mjpeg scale: a 1080x1920 frame of footage is
 * 100-500 KB); a cover over `maxBytes` (a frame of grain or noise) is encoded again, coarser.
 */
export const COVER_FRAME = {
  windowS: 10,
  samples: 20,
  blackYHigh: 40,
  whiteYLow: 225,
  minEntropy: 0.25,
  /** mjpeg -q:v: 2 is finest, 31 coarsest. */
  quality: 3,
  coarserQualities: [6, 10, 16],
  maxBytes: 1_000_000,
} as const;

export interface CoverInput {
  /** The rendered video (1080x1920). */
  videoPath: string;
  /** Its length as probed; bounds the frames looked at. */
  durationS: number;
  title: string;
  /** The dimension's caption font (RenderJob.caption_font). */
  captionFont: string;
  captionProfile: CaptionProfile;
}

export interface CoverOptions {
  /** Where the JPEG is written; its script and frame report go beside it and are removed. */
  outPath: string;
  /** Extra font directory for libass. */
  fontsDir?: string;
  ffmpegPath?: string;
  /** FFmpeg threads; absent: every core. */
  threads?: number;
  signal?: AbortSignal;
  /** Seconds from the start the frame is looked for first (COVER_FRAME.windowS). */
  windowS?: number;
}

/** Which samples the chosen frame came from. */
type FrameSource = "opening" | "whole_video" | "unfiltered";

export interface Cover {
  path: string;
  size_bytes: number;
  /** Where in the video the frame is, in seconds. */
  frame_s: number;
  frame_source: FrameSource;
  /** The chosen frame's measures (signalstats' YAVG, YHIGH, YLOW, SATAVG; normalised luma entropy). */
  frame_stats: Record<string, number>;
  /** mjpeg -q:v the JPEG was written at. */
  quality: number;
  /** The title as drawn; null when nothing was left to draw (a title of emoji only). */
  title: CoverTitleLayout | null;
}

/** The frame report's keys that are kept, by the name they are reported under. */
const STATS: Record<string, string> = {
  "lavfi.signalstats.YAVG": "yavg",
  "lavfi.signalstats.YLOW": "ylow",
  "lavfi.signalstats.YHIGH": "yhigh",
  "lavfi.signalstats.SATAVG": "satavg",
  "lavfi.entropy.normalized_entropy.normal.Y": "entropy",
};

interface Pass {
  source: FrameSource;
  spanS: number;
  usableOnly: boolean;
}

/** The sampling and measuring every pass starts with: the samples spread over the span, each measured. */
function measuredSamples(pass: Pass): string[] {
  return [`fps=${(COVER_FRAME.samples / pass.spanS).toFixed(6)}`, "signalstats", "entropy"];
}

/** Whether a sample's measures make it usable (COVER_FRAME): not black, not washed out, not blank. */
function usable(stats: Record<string, number>): boolean {
  return stats.yhigh! > COVER_FRAME.blackYHigh && stats.ylow! < COVER_FRAME.whiteYLow && stats.entropy! > COVER_FRAME.minEntropy;
}

/**
 * The measuring pass: how many of the pass's samples the picking pass will keep (all of them for a
 * pass that keeps every sample). FFmpeg's measures of the same frames are the same every time.
 */
async function keptSamples(
  input: CoverInput,
  pass: Pass,
  report: string,
  run: { signal?: AbortSignal; ffmpegPath?: string },
  threads: string[],
): Promise<number> {
  await rm(report, { force: true });
  await runFfmpeg([
    ...threads,
    "-t",
    pass.spanS.toFixed(3),
    "-i",
    input.videoPath,
    "-an",
    "-sn",
    "-dn",
    "-vf",
    [...measuredSamples(pass), `metadata=mode=print:file=${escapeFilterValue(report)}`].join(","),
    "-f",
    "null",
    "-",
  ], run);
  const samples = parseFrames(await readFile(report, "utf8").catch(() => ""));
  return pass.usableOnly ? samples.filter((s) => usable(s.stats)).length : samples.length;
}

/** The filter chain of the picking pass: sample, measure, drop unusable samples, pick among `kept`, report, draw the title. */
function coverFilter(pass: Pass, kept: number, paths: { report: string; ass: string | null }, fontsDir: string | undefined): string {
  const { blackYHigh, whiteYLow, minEntropy } = COVER_FRAME;
  const keep = (key: string, value: number, fn: "greater" | "less") => `metadata=mode=select:key=${key}:value=${value}:function=${fn}`;
  const filters = [
    ...measuredSamples(pass),
    ...(pass.usableOnly
      ? [
        keep("lavfi.signalstats.YHIGH", blackYHigh, "greater"),
        keep("lavfi.signalstats.YLOW", whiteYLow, "less"),
        keep("lavfi.entropy.normalized_entropy.normal.Y", minEntropy, "greater"),
      ]
      : []),
    // A batch of exactly the kept samples: the pick is made as the last of them arrives. One kept sample is the pick.
    ...(kept >= 2 ? [`thumbnail=n=${kept}`] : []),
    `metadata=mode=print:file=${escapeFilterValue(paths.report)}`,
  ];
  if (paths.ass) filters.push(`ass=filename=${escapeFilterValue(paths.ass)}${fontsDir ? `:fontsdir=${escapeFilterValue(fontsDir)}` : ""}`);
  return filters.join(",");
}

/** FFmpeg's metadata report, frame by frame: each frame's time and measures. */
function parseFrames(report: string): Array<{ frame_s: number; stats: Record<string, number> }> {
  const frames: Array<{ frame_s: number; stats: Record<string, number> }> = [];
  for (const line of report.split("\n")) {
    const time = /pts_time:\s*(-?[\d.]+)/.exec(line);
    if (time) {
      frames.push({ frame_s: Number(time[1]), stats: {} });
      continue;
    }
    const eq = line.indexOf("=");
    const name = eq > 0 ? STATS[line.slice(0, eq)] : undefined;
    if (name && frames.length > 0) frames.at(-1)!.stats[name] = Number(line.slice(eq + 1));
  }
  return frames;
}

/** The picked frame in the picking pass's report: its time and measures. */
function parseReport(report: string): { frame_s: number; stats: Record<string, number> } | null {
  return parseFrames(report)[0] ?? null;
}

/** Makes the cover of a rendered video (see COVER_FRAME); throws when FFmpeg fails or no frame can be read. */
export async function makeCover(input: CoverInput, options: CoverOptions): Promise<Cover> {
  const zone = safeZone(input.captionProfile);
  const title = layoutCoverTitle(input.title, { zone, captionFont: input.captionFont });
  const violations = title ? captionBoxViolations([title.box], zone) : [];
  if (violations.length > 0) throw new Error(`cover title: ${violations.join("; ")}`);

  const { outPath } = options;
  const paths = { ass: title ? `${outPath}.ass` : null, report: `${outPath}.frame.txt` };
  const run = { signal: options.signal, ffmpegPath: options.ffmpegPath };
  const threads = options.threads === undefined ? [] : ["-threads", String(options.threads), "-filter_threads", String(options.threads)];
  const duration = input.durationS > 0 ? input.durationS : Number.POSITIVE_INFINITY;
  const opening = Math.min(options.windowS ?? COVER_FRAME.windowS, duration);
  const passes: Pass[] = [
    { source: "opening", spanS: opening, usableOnly: true },
    ...(duration > opening && Number.isFinite(duration) ? [{ source: "whole_video" as const, spanS: duration, usableOnly: true }] : []),
    { source: "unfiltered", spanS: opening, usableOnly: false },
  ];
  try {
    if (title && paths.ass) await writeFile(paths.ass, coverTitleAss(title, zone), "utf8");
    for (const pass of passes) {
      await rm(outPath, { force: true });
      const kept = await keptSamples(input, pass, paths.report, run, threads);
      if (kept === 0) continue;
      await rm(paths.report, { force: true });
      await runFfmpeg([
        ...threads,
        "-t",
        pass.spanS.toFixed(3),
        "-i",
        input.videoPath,
        "-an",
        "-sn",
        "-dn",
        "-vf",
        coverFilter(pass, kept, paths, options.fontsDir),
        ...jpegOutputArgs(COVER_FRAME.quality, outPath),
      ], run);
      // No sample passed: FFmpeg ends without writing anything.
      const picked = parseReport(await readFile(paths.report, "utf8").catch(() => ""));
      if (!picked || !(await exists(outPath))) continue;
      const { quality, size_bytes } = await keepUnder(outPath, COVER_FRAME.maxBytes, run);
      return { path: outPath, size_bytes, frame_s: picked.frame_s, frame_source: pass.source, frame_stats: picked.stats, quality, title };
    }
    throw new Error("no frame of the video could be read for its cover");
  } finally {
    await Promise.all([paths.ass, paths.report].map((path) => path && rm(path, { force: true })));
  }
}

/** The end of every cover FFmpeg writes: one frame as a JPEG at `quality`, no metadata, over `path`. */
function jpegOutputArgs(quality: number, path: string): string[] {
  return ["-frames:v", "1", "-update", "1", "-c:v", "mjpeg", "-q:v", String(quality), "-map_metadata", "-1", "-f", "image2", "-y", path];
}

async function exists(path: string): Promise<boolean> {
  return await stat(path).then((s) => s.isFile() && s.size > 0, () => false);
}

/** The JPEG at `path`, encoded again from itself at each coarser quality in turn until it is at most `maxBytes`; throws when none is. */
async function keepUnder(path: string, maxBytes: number, run: { signal?: AbortSignal; ffmpegPath?: string }): Promise<{ quality: number; size_bytes: number }> {
  const size = (await stat(path)).size;
  if (size <= maxBytes) return { quality: COVER_FRAME.quality, size_bytes: size };
  const fine = `${path}.fine.jpg`;
  await rename(path, fine);
  try {
    for (const quality of COVER_FRAME.coarserQualities) {
      await runFfmpeg(["-i", fine, ...jpegOutputArgs(quality, path)], run);
      const coarse = (await stat(path)).size;
      if (coarse <= maxBytes) return { quality, size_bytes: coarse };
    }
  } finally {
    await rm(fine, { force: true });
  }
  await rm(path, { force: true });
  throw new Error(`cover is over ${maxBytes} bytes even at mjpeg quality ${COVER_FRAME.coarserQualities.at(-1)}`);
}
