import { rm } from "node:fs/promises";
import { extname, join } from "node:path";
import { QUEUES, RenderJob } from "../shared/contracts/queue.ts";
import { canonicalJson, sha256Hex } from "../shared/hashing.ts";
import { type MediaInfo, probeMedia } from "../shared/media/ffprobe.ts";
import { AssetNotFoundError, type AssetStore } from "../shared/storage/asset-store.ts";
import { makeScratchDir } from "../shared/storage/scratch-dirs.ts";
import { coerceError, NonRetriableError } from "../shared/errors.ts";
import { failpoint } from "../shared/failpoints.ts";
import { type QueueTaskDefinition, type TaskContext, type TaskOutcome, unitJobLogFields, uuidField } from "../shared/worker/pull-worker.ts";
import { type MusicTrackRecord, renderCoverKey } from "../shared/contracts/callbacks.ts";
import type { QualityReport } from "../shared/contracts/quality.ts";
import { describeFailures, measureQuality, QUALITY_GATE_VERSION, type QualityGateInput, type QualityGateOptions } from "../shared/media/quality-gate.ts";
import { makeCover } from "./cover.ts";
import { attenuateAudio, RENDER_FORMAT, RENDER_RECIPE, renderVideo } from "./ffmpeg-render.ts";
import { TRUE_PEAK_LIMIT_DBTP } from "../shared/media/loudness.ts";
import { musicBedForJob } from "./music-library.ts";
import { layoutRender, planRender, renderGateInput, sceneClipKeys } from "./plan-render.ts";

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
  /** Runs a planned render; FFmpeg (ffmpeg-render.ts renderVideo) unless a test stands in. */
  render?: typeof renderVideo;
  /** Lowers a render's sound (ffmpeg-render.ts attenuateAudio) unless a test stands in. */
  attenuate?: typeof attenuateAudio;
  /** Makes a render's cover; FFmpeg (cover.ts makeCover) unless a test stands in. */
  cover?: typeof makeCover;
}

/** Longest a cover may take before the render is reported without one. */
const COVER_TIMEOUT_MS = 60_000;

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

function completed(
  job: RenderJob,
  key: string,
  info: MediaInfo,
  renderMs: number | null,
  quality: QualityReport,
  music: MusicTrackRecord | null,
  coverKey: string | null,
): TaskOutcome {
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
    ...(coverKey ? { cover_key: coverKey } : {}),
  };
}

/**
 * The key of the render's cover (renderCoverKey): the stored one, else one made from the render
 * (`video`, stored at `video.key` and on disk at `video.path`) and stored. A cover never fails a
 * render: when it cannot be made or stored (or takes over COVER_TIMEOUT_MS), the reason is logged
 * and the render is reported without one (null). Only the task's own abort (the worker stopping)
 * is thrown on.
 */
async function storeCover(
  deps: RenderTaskDeps,
  job: RenderJob,
  video: { key: string; path: string; info: MediaInfo },
  ctx: TaskContext,
): Promise<string | null> {
  const videoKey = video.key;
  const coverKey = renderCoverKey(videoKey);
  try {
    if (await deps.store.exists(coverKey)) {
      ctx.logger.info({ video_key: videoKey, cover_key: coverKey, status: "skipped" }, "cover already stored");
      return coverKey;
    }
    await ctx.heartbeat();
    const cover = await (deps.cover ?? makeCover)(
      { videoPath: video.path, durationS: video.info.duration_s, title: job.title, captionFont: job.caption_font, captionProfile: job.caption_profile },
      {
        outPath: `${video.path}.cover.jpg`,
        fontsDir: deps.fontsDir,
        ffmpegPath: deps.ffmpegPath,
        threads: deps.threads,
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(COVER_TIMEOUT_MS)]),
      },
    );
    await deps.store.putFile(coverKey, cover.path, "image/jpeg");
    ctx.logger.info({
      video_key: videoKey,
      cover_key: coverKey,
      size_bytes: cover.size_bytes,
      frame_s: cover.frame_s,
      frame_source: cover.frame_source,
      title_lines: cover.title?.lines.length ?? 0,
      title_em_px: cover.title?.em_px ?? null,
      title_shortened: cover.title?.shortened ?? false,
      status: "succeeded",
    }, "cover stored");
    return coverKey;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    ctx.logger.warn(
      { video_key: videoKey, cover_key: coverKey, reason: coerceError(error).message, status: "failed" },
      "cover not made; reporting the render without one",
    );
    return null;
  }
}

/**
 * Decibels a sound whose encoded true peak overshot the limit is lowered under it, beyond the
 * overshoot itself: room for the second encode's own overshoot.
 */
export const PEAK_CORRECTION_MARGIN_DB = 0.5;

/**
 * By how many dB the true peak is over the gate's limit when that is the report's only failure;
 * null otherwise (a render that failed anything else, or passed).
 */
export function peakOvershootOnly(report: QualityReport): number | null {
  const failed = report.checks.filter((c) => !c.passed);
  if (failed.length !== 1 || failed[0]!.check !== "true_peak" || report.true_peak_dbtp === null) return null;
  return report.true_peak_dbtp - TRUE_PEAK_LIMIT_DBTP;
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
    const layout = layoutRender(job);
    const gateInput = renderGateInput(layout, outPath);

    if (await deps.store.exists(key)) {
      // Only renders that passed the gate are stored; measuring again gives the report to send.
      await deps.store.getFile(key, outPath);
      const info = await probeMedia(outPath, { ffprobePath: deps.ffprobePath, signal: ctx.signal });
      checkOutput(info);
      const quality = await gate(gateInput, gateOptions);
      if (!quality.passed) throw new QualityGateError(`stored render ${key}: ${describeFailures(quality)}`, quality);
      ctx.logger.info({ video_key: key, status: "skipped" }, "render already stored; reporting it");
      const music = await musicBedForJob(deps.store, job, dir, ctx.logger, { fetch: false });
      const coverKey = await storeCover(deps, job, { key, path: outPath, info }, ctx);
      return completed(job, key, info, null, quality, music?.record ?? null, coverKey);
    }

    const voicePath = join(dir, `voice${extname(job.audio_key) || ".audio"}`);
    await fetchInput(deps.store, job.audio_key, voicePath);
    const clips = new Map<string, string>();
    for (const assetKey of sceneClipKeys(layout)) {
      const path = join(dir, `scene-${clips.size}.mp4`);
      await fetchInput(deps.store, assetKey, path);
      clips.set(assetKey, path);
    }
    const music = await musicBedForJob(deps.store, job, dir, ctx.logger, { fetch: true });
    const { plan } = await planRender(layout, { clips, voicePath, music: music && { path: music.path!, mix: music.mix }, fontsDir: deps.fontsDir }, {
      subtitlesPath: join(dir, "captions.ass"),
      outPath,
      preset: deps.preset,
      threads: deps.threads,
    });

    let report: QualityReport | null = null;
    for (let attempt = 1; attempt <= RENDER_ATTEMPTS; attempt++) {
      const intervalMs = (deps.progressLogIntervalS ?? 5) * 1000;
      let lastLog = 0;
      const startedAt = performance.now();
      ctx.logger.info({
        video_key: key,
        scenes: layout.timeline.scenes.length,
        cues: layout.cues.length,
        total_ms: layout.timeline.total_ms,
        attempt,
        status: "started",
      }, "render started");
      const audio = await (deps.render ?? renderVideo)(plan, {
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
      const overshoot = peakOvershootOnly(report);
      if (overshoot !== null) {
        // Rendering again would give the same peaks: the sound alone is lowered under the limit and measured again.
        const gainDb = -(overshoot + PEAK_CORRECTION_MARGIN_DB);
        ctx.logger.warn(
          { video_key: key, attempt, true_peak_dbtp: report.true_peak_dbtp, gain_db: Number(gainDb.toFixed(2)), status: "correcting" },
          "render's true peak over the limit after encoding; lowering its sound and measuring again",
        );
        await (deps.attenuate ?? attenuateAudio)(outPath, gainDb, { ffmpegPath: deps.ffmpegPath, signal: ctx.signal });
        report = await gate(gateInput, gateOptions);
        ctx.signal.throwIfAborted();
      }
      if (!report.passed) {
        ctx.logger.warn(
          { video_key: key, attempt, failures: report.failures, status: attempt < RENDER_ATTEMPTS ? "retrying" : "failed" },
          attempt < RENDER_ATTEMPTS ? "render failed the quality gate; rendering again" : "render failed the quality gate",
        );
        continue;
      }
      await ctx.heartbeat();
      await deps.store.putFile(key, outPath, "video/mp4");
      ctx.logger.info({
        video_key: key,
        render_ms: renderMs,
        duration_s: info.duration_s,
        size_bytes: info.size_bytes,
        integrated_lufs: report.integrated_lufs,
        true_peak_dbtp: report.true_peak_dbtp,
        loudness_in_lufs: audio.final.input_i,
        loudness_linear: audio.linear,
        music_track: music?.record.track_key ?? null,
        status: "succeeded",
      }, "render stored");
      failpoint("render.after-store-before-callback");
      const coverKey = await storeCover(deps, job, { key, path: outPath, info }, ctx);
      return completed(job, key, info, renderMs, report, music?.record ?? null, coverKey);
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
    logFields: (job) => unitJobLogFields(QUEUES.render, job),
    run: (job, ctx) => renderTask(deps, job, ctx),
    failed: ({ payload, raw, error }) => {
      const unitId = payload?.unit_id ?? uuidField(raw, "unit_id");
      return unitId ? { kind: "render.failed", unit_id: unitId, error } : null;
    },
  };
}
