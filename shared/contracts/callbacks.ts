import { z } from "zod";
import { QualityReport } from "./quality.ts";
import { oneLine } from "./text.ts";
import { SceneHash, SceneStatus, WorkUnitStage } from "./work-unit.ts";

/**
 * Asset keys exactly as the workers produce them: content-addressed by a sha256, under the
 * worker's own prefix (gpu-worker/visual-task.ts sceneAssetKey, render-runner/render-task.ts
 * renderAssetKey). Anything else (a path with `..`, another prefix) is refused before it is stored.
 */
export const SceneAssetKey = z.string().regex(/^scenes\/[0-9a-f]{64}\.mp4$/, "a scene asset key is scenes/<sha256>.mp4");
const RenderVideoKey = z.string().regex(/^renders\/[0-9a-f]{64}\.mp4$/, "a video key is renders/<sha256>.mp4");

/** Where a render's cover image (the Shorts thumbnail) is stored: beside its video, `renders/<sha256>.cover.jpg`. */
export function renderCoverKey(videoKey: string): string {
  return videoKey.replace(/\.mp4$/, ".cover.jpg");
}
const RenderCoverKey = z.string().regex(/^renders\/[0-9a-f]{64}\.cover\.jpg$/, "a cover key is renders/<sha256>.cover.jpg");

/**
 * A key in the asset store under a music library: '/'-separated names, none empty, '.' or '..',
 * without a backslash or a control character. Which library it must be under is the unit's
 * dimension's to say, and is checked where the render is recorded (mdame.complete_render_job).
 */
const musicKey = (what: string) =>
  z.string().min(1).max(300).refine(
    (key) => key.split("/").every((name) => name !== "" && name !== "." && name !== ".." && !/[\\\u0000-\u001f\u007f-\u009f]/.test(name)),
    `${what} must be a storage key like music/calm/dawn.mp3 (no '..', empty folder, backslash or control character)`,
  );

/** The licence sidecar of a track key: `music/calm/dawn.mp3` -> `music/calm/dawn.license.json`. */
export function musicLicenseKeyOf(trackKey: string): string {
  const name = trackKey.slice(trackKey.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? trackKey.slice(0, trackKey.length - (name.length - dot)) : trackKey;
  return `${stem}.license.json`;
}

/** Where a track came from: a web page, never a local file or another scheme. */
export const HttpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2000, "must be at most 2000 characters");

/** The music bed a video carries and its licence, as the track's sidecar states it. */
export const MusicTrackRecord = z.object({
  track_key: musicKey("track_key"),
  license_key: musicKey("license_key"),
  title: z.string().min(1).max(300),
  author: z.string().min(1).max(300),
  license: z.string().min(1).max(300),
  source_url: HttpUrl,
}).strict().refine(
  (track) => track.license_key === musicLicenseKeyOf(track.track_key),
  { message: "license_key must be the track's sidecar (<track name>.license.json)", path: ["license_key"] },
);
export type MusicTrackRecord = z.infer<typeof MusicTrackRecord>;

const workerId = z.string().min(1).max(200);

/** A worker's failure: one line of plain text (shared/worker/pull-worker.ts oneLineMessage writes it so), stored and shown as sent. */
const failure = z.object({
  message: oneLine(z.string().min(1).max(2000)),
  retriable: z.boolean(),
}).strict();

/** One kind of callback: its literal, the worker job's message id, the kind's own fields, then the worker that sent it. */
function callback<K extends string, F extends z.ZodRawShape>(kind: K, fields: F) {
  return z.object({
    kind: z.literal(kind),
    msg_id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    ...fields,
    worker_id: workerId,
  }).strict();
}

/** Worker -> `worker-callback` bodies, signed with Standard Webhooks. */
export const WorkerCallback = z.discriminatedUnion("kind", [
  callback("visual_generation.completed", {
    scene_id: z.string().uuid(),
    scene_hash: SceneHash,
    asset_key: SceneAssetKey,
    backend: z.string().min(1).max(100),
    cache_hit: z.boolean(),
  }),
  callback("visual_generation.failed", {
    scene_id: z.string().uuid(),
    error: failure,
  }),
  callback("render.completed", {
    unit_id: z.string().uuid(),
    video_key: RenderVideoKey,
    duration_s: z.number().positive().max(3600),
    width: z.number().int().positive().max(8192),
    height: z.number().int().positive().max(8192),
    size_bytes: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    /** Time FFmpeg took; null when the video was already stored and only reported again. */
    render_ms: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullable(),
    /** What the quality gate measured on the video (it passed, or the render would have failed). */
    quality: QualityReport,
    /** The music bed under the voice; null or absent for voice only. */
    music: MusicTrackRecord.nullable().optional(),
    /** The cover image stored beside the video (renderCoverKey); absent when none could be made (a cover never fails a render). */
    cover_key: RenderCoverKey.optional(),
  }),
  callback("render.failed", {
    unit_id: z.string().uuid(),
    error: failure,
  }),
]);
export type WorkerCallback = z.infer<typeof WorkerCallback>;

/**
 * Answer of `worker-callback` to a delivery it accepted (replays included): the scene's status, the
 * unit's stage, or what became of a failed job (`retry`, `dead_letter`, `duplicate`, `gone`).
 */
export const WorkerCallbackAnswer = z.union([
  z.object({ ok: z.literal(true), scene_status: SceneStatus }).strict(),
  z.object({ ok: z.literal(true), unit_stage: WorkUnitStage }).strict(),
  z.object({ ok: z.literal(true), outcome: z.enum(["retry", "dead_letter", "duplicate", "gone"]) }).strict(),
]);
export type WorkerCallbackAnswer = z.infer<typeof WorkerCallbackAnswer>;
