import { z } from "zod";
import { PROCEDURAL_BACKEND_VERSION } from "./visual-backends.ts";
import { oneLine } from "./text.ts";

/**
 * The visual backends a dimension can list, in the order it prefers them. A scene goes to the
 * first backend that is configured on the worker and gives a clip; `procedural` (FFmpeg only,
 * no network) is the last resort that never lacks a result, so every list ends with it.
 */
const VISUAL_BACKEND_NAMES = ["gemini-image", "pexels", "comfyui-svd", "comfyui-animatediff", "procedural"] as const;
export const VisualBackendName = z.enum(VISUAL_BACKEND_NAMES);
export type VisualBackendName = z.infer<typeof VisualBackendName>;

/**
 * What each backend draws, versioned. The chain of these is part of scene_hash, so a new
 * version (or a changed backend list) gives new hashes instead of stale cache hits. The worker
 * adds what it alone knows (the image model) to the cache key, never to the hash.
 */
export const VISUAL_BACKEND_VERSIONS: Record<VisualBackendName, string> = {
  "gemini-image": "gemini-image/1",
  pexels: "pexels/1",
  "comfyui-svd": "comfyui-svd/1",
  "comfyui-animatediff": "comfyui-animatediff/1",
  procedural: PROCEDURAL_BACKEND_VERSION,
};

const blocklistEntry = oneLine(z.string().trim().min(1, "must not be empty").max(60, "must be at most 60 characters"));

/** A dimension's `visuals`: backend order and the Pexels blocklist (terms, or video ids as digits). */
export const VisualsConfig = z.object({
  backends: z.array(VisualBackendName).min(1, "must list at least procedural").max(VISUAL_BACKEND_NAMES.length)
    .refine((list) => new Set(list).size === list.length, "must not list a backend twice")
    .refine((list) => list.at(-1) === "procedural", "must end with procedural, the last resort that never fails")
    .describe(`Visual backends in order of preference, each once, ending with procedural: ${VISUAL_BACKEND_NAMES.join(", ")}.`),
  pexels_blocklist: z.array(blocklistEntry).max(200, "must list at most 200 entries").default([])
    .describe("Pexels clips never used: search terms, or video ids as digits."),
}).strict();
export type VisualsConfig = z.infer<typeof VisualsConfig>;

/** What a dimension without a `visuals` setting gets: today's procedural clips. */
export const DEFAULT_VISUALS: VisualsConfig = { backends: ["procedural"], pexels_blocklist: [] };

/**
 * The backend part of scene_hash for a backend list. A procedural-only list keeps the procedural
 * version alone, so hashes (and cached clips) from before backend lists existed stay valid.
 */
export function visualChainVersion(backends: readonly VisualBackendName[]): string {
  if (backends.length === 1 && backends[0] === "procedural") return PROCEDURAL_BACKEND_VERSION;
  return backends.map((name) => VISUAL_BACKEND_VERSIONS[name]).join(">");
}

/** Attribution stored with a stock clip (Pexels asks for it; its licence needs none, but credit is due). */
export const SceneCredit = z.object({
  provider: z.string().min(1).max(40),
  author: z.string().min(1).max(200),
  author_url: z.string().url().max(500).optional(),
  page_url: z.string().url().max(500),
  licence: z.string().min(1).max(100),
  video_id: z.string().min(1).max(40).optional(),
}).strict();
export type SceneCredit = z.infer<typeof SceneCredit>;
