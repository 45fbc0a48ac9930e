import { z } from "zod";

/**
 * What the quality gate (shared/media/quality-gate.ts) measured on a finished render, check by
 * check, each with its value and its bound. Carried by the render.completed callback, stored on
 * the work unit (mdame.work_units.quality) and shown by `mdame status`.
 */

export const QualityCheckName = z.enum([
  "resolution",
  "video_codec",
  "audio_codec",
  "faststart",
  "duration",
  "integrated_loudness",
  "true_peak",
  "black_frames",
  "frozen_frames",
  "captions_safe_zone",
]);
export type QualityCheckName = z.infer<typeof QualityCheckName>;

/** One measure: what was found, what it had to be, and a sentence when it was not. */
export const QualityCheck = z.object({
  check: QualityCheckName,
  passed: z.boolean(),
  /** The measured value: a number in `unit`, or a description ("h264 High", "mdat before moov"). */
  value: z.union([z.number(), z.string(), z.null()]),
  unit: z.string().max(20).nullable(),
  /** The bound, as people read it: "-14 +-1 LUFS", "<= -1 dBTP", "<= 1 s". */
  bound: z.string().max(200),
  /** Why it failed, e.g. "integrated loudness -21.8 LUFS, outside -14 +-1"; null when it passed. */
  reason: z.string().max(500).nullable(),
}).strict();
export type QualityCheck = z.infer<typeof QualityCheck>;

export const QualityReport = z.object({
  passed: z.boolean(),
  /** The figures `mdame status` shows; null when the file had no stream to measure them on. */
  integrated_lufs: z.number().nullable(),
  true_peak_dbtp: z.number().nullable(),
  duration_s: z.number().nonnegative(),
  checks: z.array(QualityCheck).max(20),
  /** The reasons of the failed checks, in check order. */
  failures: z.array(z.string().max(500)).max(20),
}).strict();
export type QualityReport = z.infer<typeof QualityReport>;
