import { rm, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { QUEUES, RenderJob } from "../shared/contracts/queue.ts";
import { canonicalJson, sha256Hex } from "../shared/hashing.ts";
import { captionFontFor } from "../shared/text/fonts.ts";
import { type MediaInfo, probeMedia } from "../shared/media/ffprobe.ts";
import { AssetNotFoundError, type AssetStore } from "../shared/storage/asset-store.ts";
import { makeScratchDir } from "../shared/storage/scratch-dirs.ts";
import { NonRetriableError } from "../shared/errors.ts";
import { failpoint } from "../shared/failpoints.ts";
import { type QueueTaskDefinition, type TaskContext, type TaskOutcome, uuidField } from "../shared/worker/pull-worker.ts";
import type { MusicTrackRecord } from "../shared/contracts/callbacks.ts";
import type { QualityReport } from "../shared/contracts/quality.ts";
import { describeFailures, measureQuality, QUALITY_GATE_VERSION, type QualityGateInput, type QualityGateOptions } from "../shared/media/quality-gate.ts";
import { assertCaptionsInside, buildAssSubtitles, captionBoxes, layoutCaptions } from "./captions.ts";
import { captionFontMetrics } from "./font-metrics.ts";
import { captionZone, safeZone } from "./safe-zones.ts";
import { RENDER_FORMAT, RENDER_RECIPE, renderVideo } from "./ffmpeg-render.ts";
import { musicBedForJob } from "./music-library.ts";
import { computeTimeline } from "./timeline.ts";

/**
 * Where a render is stored: content-addressed by the canonical job without its step token, so a
 * redo of the same job (a lost callback, a recovered run) finds the video instead of rendering again.
 */
export async function renderAssetKey(job: RenderJob): Promise<string> {
  const { step_token: _stepToken, ...content } = job;
  // The gate's version is part of the key: a render stored before the gate (or under other bounds)
  // is never reused as if it had passed.
  return `renders/${await sha256Hex(canonicalJson({ ...content, recipe: RENDER_RECIPE, quality_gate: QUALITY_GATE_VERSION }))}.mp4`;
}

export interface RenderTaskDeps {
  store: AssetStore;
  /** Scratch space for inputs and the output. Default: the OS temp dir. */
  workDir?: string;
  /** x264 preset of the final encode. */
  preset?: string;
  /** FFmpeg threads per render (render-concurrency.ts); absent: every core. */
  threads?: number;
  fontsDir?: string;
  ffmpegPath?: string;
  ffprobePath?: string;
  /** Seconds between progress log lines. */
  progressLogIntervalS?: number;
  /** Measures a finished render; the real gate unless a test stands in. */
  qualityGate?: (input: QualityGateInput, options: QualityGateOptions) => Promise<QualityReport>;
}

/** A render failed the quality gate on every attempt; rendering the same inputs again will not help. */
export class QualityGateError extends NonRetriableError {
  constructor(message: string, readonly report: QualityReport) {
    super(message);
    this.name = "QualityGateError";
  }
}

async function fetchInput(store: AssetStore, key: string, path: string): Promise<void> {
  try {
    await store.getFile(key, path);
  } catch (error) {
    // Render jobs are enqueued only after every input was stored: a missing one will not appear later.
    if (error instanceof AssetNotFoundError) throw new NonRetriableError(`render input missing from storage: ${key}`, { cause: error });
    throw error;
  }
}

function checkOutput(info: MediaInfo): void {
  if (!info.video || info.video.width !== RENDER_FORMAT.width || info.video.height !== RENDER_FORMAT.height) {
    throw new Error(`render output is not ${RENDER_FORMAT.width}x${RENDER_FORMAT.height}: ${JSON.stringify(info.video)}`);
  }
  if (!info.audio) throw new Error("render output has no audio stream");
  if (!(info.duration_s > 0) || !(info.size_bytes > 0)) throw new Error("render output is empty");
}

function completed(job: RenderJob, key: string, info: MediaInfo, renderMs: number | null, quality: QualityReport, music: MusicTrackRecord | null): TaskOutcome {
  return {
    kind: "render.completed",
    unit_id: job.unit_id,
    video_key: key,
    duration_s: Math.round(info.duration_s * 1000) / 1000,
    width: info.video?.width ?? 0,
    height: info.video?.height ?? 0,
    size_bytes: info.size_bytes,
    render_ms: renderMs,
    quality,
    ...(job.music ? { music } : {}),
  };
}

/** Renders attempted per job before a failing quality gate fails the unit. */
export const RENDER_ATTEMPTS = 2;

async function renderTask(deps: RenderTaskDeps, job: RenderJob, ctx: TaskContext): Promise<TaskOutcome> {
  const key = await renderAssetKey(job);
  const dir = await makeScratchDir("render", deps.workDir);
  const outPath = join(dir, "render.mp4");
  const gate = deps.qualityGate ?? measureQuality;
  const gateOptions = { ffmpegPath: deps.ffmpegPath, ffprobePath: deps.ffprobePath, signal: ctx.signal };
  try {
    const timeline = computeTimeline(job.words, job.scenes, job.audio_duration_ms, { fps: RENDER_FORMAT.fps });
    const zone = safeZone(job.caption_profile);
    // The configured font, unless the words are in a script it does not cover: the layout measures
    // the font libass will draw.
    const fontName = captionFontFor(job.words.map((w) => w.text).join(" "), job.caption_font);
    const cues = layoutCaptions(job.words, { zone, metrics: captionFontMetrics(fontName), endLimitMs: timeline.total_ms });
    assertCaptionsInside(cues, zone);
    const gateInput = { path: outPath, expectedDurationS: timeline.total_ms / 1000, captions: { zone: captionZone(zone), boxes: captionBoxes(cues) } };

    if (await deps.store.exists(key)) {
      // Only renders that passed the gate are stored; measuring again gives the report to send.
      await deps.store.getFile(key, outPath);
      const info = await probeMedia(outPath, { ffprobePath: deps.ffprobePath, signal: ctx.signal });
      checkOutput(info);
      const quality = await gate(gateInput, gateOptions);
      if (!quality.passed) throw new QualityGateError(`stored render ${key}: ${describeFailures(quality)}`, quality);
      ctx.logger.info({ video_key: key }, "render already stored; reporting it");
      const music = await musicBedForJob(deps.store, job, dir, ctx.logger, { fetch: false });
      return completed(job, key, info, null, quality, music?.record ?? null);
    }

    const audioPath = join(dir, `voice${extname(job.audio_key) || ".audio"}`);
    await fetchInput(deps.store, job.audio_key, audioPath);
    const clipPaths = new Map<string, string>();
    for (const slot of timeline.scenes) {
      if (clipPaths.has(slot.asset_key)) continue;
      const path = join(dir, `scene-${clipPaths.size}.mp4`);
      await fetchInput(deps.store, slot.asset_key, path);
      clipPaths.set(slot.asset_key, path);
    }
    const subtitlesPath = join(dir, "captions.ass");
    await writeFile(subtitlesPath, buildAssSubtitles(cues, { fontName, zone, title: job.title }), "utf8");

    const music = await musicBedForJob(deps.store, job, dir, ctx.logger, { fetch: true });

    let report: QualityReport | null = null;
    for (let attempt = 1; attempt <= RENDER_ATTEMPTS; attempt++) {
      const intervalMs = (deps.progressLogIntervalS ?? 5) * 1000;
      let lastLog = 0;
      const startedAt = performance.now();
      ctx.logger.info({ video_key: key, scenes: timeline.scenes.length, cues: cues.length, total_ms: timeline.total_ms, attempt }, "render started");
      const audio = await renderVideo({
        clips: timeline.scenes.map((s) => ({ path: clipPaths.get(s.asset_key)!, frames: s.frames })),
        audioPath,
        music: music && { path: music.path!, mix: music.mix },
        threads: deps.threads,
        subtitlesPath,
        fontsDir: deps.fontsDir,
        outPath,
        preset: deps.preset,
      }, {
        signal: ctx.signal,
        ffmpegPath: deps.ffmpegPath,
        onProgress: (p) => {
          if (p.fraction > 0.3 && !p.done) failpoint("render.mid-render");
          const now = performance.now();
          if (!p.done && now - lastLog < intervalMs) return;
          lastLog = now;
          ctx.logger.info({ progress_pct: Math.round(p.fraction * 100), out_time_ms: p.out_time_ms, speed: p.speed }, "render progress");
        },
      });
      const renderMs = Math.round(performance.now() - startedAt);

      const info = await probeMedia(outPath, { ffprobePath: deps.ffprobePath, signal: ctx.signal });
      checkOutput(info);
      await ctx.heartbeat();
      report = await gate(gateInput, gateOptions);
      ctx.signal.throwIfAborted();
      if (!report.passed) {
        ctx.logger.warn({ video_key: key, attempt, failures: report.failures }, attempt < RENDER_ATTEMPTS ? "render failed the quality gate; rendering again" : "render failed the quality gate");
        continue;
      }
      await ctx.heartbeat();
      await deps.store.putFile(key, outPath, "video/mp4");
      ctx.logger.info({
        video_key: key, render_ms: renderMs, duration_s: info.duration_s, size_bytes: info.size_bytes,
        integrated_lufs: report.integrated_lufs, true_peak_dbtp: report.true_peak_dbtp,
        loudness_in_lufs: audio.final.input_i, loudness_linear: audio.linear, music_track: music?.record.track_key ?? null,
      }, "render stored");
      failpoint("render.after-store-before-callback");
      return completed(job, key, info, renderMs, report, music?.record ?? null);
    }
    throw new QualityGateError(describeFailures(report!), report!);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The render-runner's queue definition for `render`. */
export function createRenderDefinition(deps: RenderTaskDeps): QueueTaskDefinition<RenderJob> {
  return {
    queue: QUEUES.render,
    parse: (raw) => RenderJob.parse(raw),
    logFields: (job) => ({
      execution_id: job.run_id,
      dimension: job.dimension_id,
      stage: QUEUES.render,
      step_token: job.step_token,
      unit_id: job.unit_id,
    }),
    run: (job, ctx) => renderTask(deps, job, ctx),
    failed: ({ payload, raw, error }) => {
      const unitId = payload?.unit_id ?? uuidField(raw, "unit_id");
      return unitId ? { kind: "render.failed", unit_id: unitId, error } : null;
    },
  };
}
