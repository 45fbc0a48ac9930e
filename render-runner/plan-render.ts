import { writeFile } from "node:fs/promises";
import type { RenderJob } from "../shared/contracts/queue.ts";
import type { QualityGateInput } from "../shared/media/quality-gate.ts";
import { captionFontFor } from "../shared/text/fonts.ts";
import { assertCaptionsInside, buildAssSubtitles, captionBoxes, type CaptionCue, layoutCaptions } from "./captions.ts";
import { type PictureSegment, pictureSegments, planFrames, RENDER_FORMAT, type RenderPlan } from "./ffmpeg-render.ts";
import { captionFontMetrics } from "./font-metrics.ts";
import type { MusicBedMix } from "./music-mix.ts";
import { captionZone, type SafeZone, safeZone } from "./safe-zones.ts";
import { computeTimeline, type Timeline } from "./timeline.ts";

/**
 * The one way a render job becomes FFmpeg's work, shared by the render task and the render
 * benchmark so the benchmark measures whatever the task renders. Two steps: `layoutRender` reads
 * the job alone (the task lays it out before fetching anything, so a job that cannot be laid out
 * fails before any download), `planRender` binds the layout to the fetched inputs.
 */

/** Everything a render job decides on its own: where the scenes fall and how the captions look. */
interface RenderLayout {
  timeline: Timeline;
  zone: SafeZone;
  /** The caption font libass draws (and the layout measured). */
  fontName: string;
  cues: CaptionCue[];
  /** The ASS script of the cues, burned into the picture. */
  subtitles: string;
}

/**
 * Lays a job out: its timeline at the render's frame rate, its captions measured in the font
 * libass will draw and checked against the safe zone, and their ASS script. Pure: the same job
 * always gives the same layout. Throws TimelineError or CaptionLayoutError (both non-retriable).
 */
export function layoutRender(job: RenderJob): RenderLayout {
  const timeline = computeTimeline(job.words, job.scenes, job.audio_duration_ms, { fps: RENDER_FORMAT.fps });
  const zone = safeZone(job.caption_profile);
  // The configured font, unless the words are in a script it does not cover: the layout measures
  // the font libass will draw.
  const fontName = captionFontFor(job.words.map((w) => w.text).join(" "), job.caption_font);
  const cues = layoutCaptions(job.words, { zone, metrics: captionFontMetrics(fontName), endLimitMs: timeline.total_ms });
  assertCaptionsInside(cues, zone);
  return { timeline, zone, fontName, cues, subtitles: buildAssSubtitles(cues, { fontName, zone, title: job.title }) };
}

/** The scene clips a layout plays, each asset once, in the order they first appear. */
export function sceneClipKeys(layout: RenderLayout): string[] {
  return [...new Set(layout.timeline.scenes.map((slot) => slot.asset_key))];
}

/** What the quality gate expects of the video a layout renders to `path`. */
export function renderGateInput(layout: RenderLayout, path: string): QualityGateInput {
  return {
    path,
    expectedDurationS: layout.timeline.total_ms / 1000,
    captions: { zone: captionZone(layout.zone), boxes: captionBoxes(layout.cues) },
  };
}

/** A render's inputs, on local disk. */
export interface RenderInputs {
  /** The file of every scene clip the layout plays, by its asset key. */
  clips: ReadonlyMap<string, string>;
  voicePath: string;
  /** The bed under the voice and how it is mixed; null for the voice alone. */
  music: { path: string; mix: MusicBedMix } | null;
  /** Extra font directory for libass. */
  fontsDir?: string;
}

interface RenderPlanOptions {
  /** Where the ASS script is written. */
  subtitlesPath: string;
  outPath: string;
  /** x264 preset of the encode (ffmpeg-render.ts picks when absent). */
  preset?: string;
  /** FFmpeg threads of the render; absent: every core. */
  threads?: number;
}

/** A job ready for `renderVideo`: its layout, the plan the render runs, and how the picture is cut. */
export interface PlannedRender {
  layout: RenderLayout;
  plan: RenderPlan;
  /** Frames of the video (the timeline's, which the plan's clips add up to). */
  frames: number;
  /** The picture's segments, as renderVideo cuts them on this machine. */
  segments: PictureSegment[];
}

/**
 * Binds a layout to its inputs: writes the captions' ASS script to `options.subtitlesPath` and
 * returns the RenderPlan (one clip per scene slot, in play order) with its frames and segments.
 * Throws when a scene's clip is missing from `inputs.clips`.
 */
export async function planRender(layout: RenderLayout, inputs: RenderInputs, options: RenderPlanOptions): Promise<PlannedRender> {
  const clips = layout.timeline.scenes.map((slot) => {
    const path = inputs.clips.get(slot.asset_key);
    if (path === undefined) throw new Error(`no local clip for scene ${slot.index} (${slot.asset_key})`);
    return { path, frames: slot.frames };
  });
  await writeFile(options.subtitlesPath, layout.subtitles, "utf8");
  const plan: RenderPlan = {
    clips,
    audioPath: inputs.voicePath,
    music: inputs.music,
    threads: options.threads,
    subtitlesPath: options.subtitlesPath,
    fontsDir: inputs.fontsDir,
    outPath: options.outPath,
    preset: options.preset,
  };
  return { layout, plan, frames: planFrames(plan), segments: pictureSegments(plan) };
}
