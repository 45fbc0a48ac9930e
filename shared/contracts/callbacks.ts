import { z } from "zod";

const failure = z.object({
  message: z.string().min(1).max(2000),
  retriable: z.boolean(),
}).strict();

/** Worker -> `worker-callback` bodies, signed with Standard Webhooks. */
export const WorkerCallback = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("visual_generation.completed"),
    msg_id: z.number().int().positive(),
    scene_id: z.string().uuid(),
    scene_hash: z.string().regex(/^[0-9a-f]{64}$/),
    asset_key: z.string().min(1),
    backend: z.string().min(1),
    cache_hit: z.boolean(),
    worker_id: z.string().min(1),
  }).strict(),
  z.object({
    kind: z.literal("visual_generation.failed"),
    msg_id: z.number().int().positive(),
    scene_id: z.string().uuid(),
    error: failure,
    worker_id: z.string().min(1),
  }).strict(),
  z.object({
    kind: z.literal("render.completed"),
    msg_id: z.number().int().positive(),
    unit_id: z.string().uuid(),
    video_key: z.string().min(1),
    duration_s: z.number().positive(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    size_bytes: z.number().int().positive(),
    /** Time FFmpeg took; null when the video was already stored and only reported again. */
    render_ms: z.number().int().nonnegative().nullable(),
    worker_id: z.string().min(1),
  }).strict(),
  z.object({
    kind: z.literal("render.failed"),
    msg_id: z.number().int().positive(),
    unit_id: z.string().uuid(),
    error: failure,
    worker_id: z.string().min(1),
  }).strict(),
]);
export type WorkerCallback = z.infer<typeof WorkerCallback>;
