/**
 * Visual backend versions. The version is part of scene_hash, so the planner (which computes the
 * hash) and the gpu-worker (which draws it) must name the same one: a new backend or model means
 * new hashes and no stale cache hits.
 */
export const PROCEDURAL_BACKEND_VERSION = "procedural-ffmpeg/1";

/** Size and rate of generated scene clips; the render scales them to 1080x1920. */
export const VISUAL_FORMAT = { width: 720, height: 1280, fps: 30 } as const;
