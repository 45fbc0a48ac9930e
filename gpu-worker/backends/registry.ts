import process from "node:process";
import { loadEnv } from "../../shared/config/env.ts";
import type { Logger } from "../../shared/logging/logger.ts";
import type { VisualBackendName } from "../../shared/contracts/visuals.ts";
import { GeminiImageClient } from "../../shared/providers/visuals/gemini-image.ts";
import { PexelsClient } from "../../shared/providers/visuals/pexels.ts";
import { ComfyUiBackend } from "./comfyui.ts";
import { ComfyUiClient } from "../../shared/providers/visuals/comfyui.ts";
import { GeminiImageBackend } from "./gemini-image.ts";
import { PexelsBackend } from "./pexels.ts";
import { ProceduralBackend } from "./procedural.ts";
import type { VisualBackend } from "./visual-backend.ts";

const present = (value: string | undefined) => value !== undefined && value.trim() !== "";

/**
 * The backends this worker can run, from its environment: each one whose key or URL is set, and
 * procedural always. The rest are named with the reason, for the start-up log.
 */
export function createVisualBackends(
  options: { ffmpegPath?: string; logger?: Logger },
  source: Record<string, string | undefined> = process.env,
): { backends: Map<VisualBackendName, VisualBackend>; skipped: Partial<Record<VisualBackendName, string>> } {
  const env = loadEnv(["ENV", "GEMINI_BASE_URL", "GEMINI_IMAGE_MODEL", "PEXELS_API_KEY", "PEXELS_BASE_URL", "COMFYUI_URL"], source);
  const backends = new Map<VisualBackendName, VisualBackend>();
  const skipped: Partial<Record<VisualBackendName, string>> = {};
  const ffmpegPath = options.ffmpegPath;

  let gemini: GeminiImageClient | undefined;
  if (present(source.GEMINI_API_KEY)) {
    gemini = new GeminiImageClient({ apiKey: source.GEMINI_API_KEY!, baseUrl: env.GEMINI_BASE_URL, model: env.GEMINI_IMAGE_MODEL });
    backends.set("gemini-image", new GeminiImageBackend({ client: gemini, ffmpegPath }));
  } else {
    skipped["gemini-image"] = "GEMINI_API_KEY is not set";
  }

  if (env.PEXELS_API_KEY) {
    backends.set("pexels", new PexelsBackend({ client: new PexelsClient({ apiKey: env.PEXELS_API_KEY, baseUrl: env.PEXELS_BASE_URL }), ffmpegPath }));
  } else {
    skipped.pexels = "PEXELS_API_KEY is not set";
  }

  if (env.COMFYUI_URL) {
    const client = new ComfyUiClient({ baseUrl: env.COMFYUI_URL });
    backends.set("comfyui-animatediff", new ComfyUiBackend({ workflow: "animatediff", client, ffmpegPath }));
    if (gemini) backends.set("comfyui-svd", new ComfyUiBackend({ workflow: "svd", client, stills: gemini, ffmpegPath }));
    else skipped["comfyui-svd"] = "SVD animates a Gemini still: GEMINI_API_KEY is not set";
  } else {
    skipped["comfyui-svd"] = "COMFYUI_URL is not set";
    skipped["comfyui-animatediff"] = "COMFYUI_URL is not set";
  }

  backends.set("procedural", new ProceduralBackend({ ffmpegPath }));
  for (const [name, reason] of Object.entries(skipped)) {
    options.logger?.info({ backend: name, reason }, "visual backend not configured; dimensions listing it skip it on this worker");
  }
  return { backends, skipped };
}
