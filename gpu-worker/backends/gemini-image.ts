import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { VISUAL_BACKEND_VERSIONS } from "../../shared/contracts/visuals.ts";
import { type GeminiImageClient, geminiImagePrompt, type GeneratedImage } from "../../shared/providers/visuals/gemini-image.ts";
import { paidCall } from "../../shared/spend/metered.ts";
import { stillMotion, stillToClipArgs } from "./clip-motion.ts";
import type { VisualBackend, VisualBackendContext } from "./visual-backend.ts";

/** One Gemini still, checked against the dimension's budget and recorded as one image (shared/spend/metered.ts). */
export function generateStill(client: GeminiImageClient, prompt: string, signal: AbortSignal): Promise<GeneratedImage> {
  return paidCall({ provider: "gemini-image", model: client.model, estimate: { images: 1 } }, async () => ({
    value: await client.generate(prompt, signal),
    used: { images: 1 },
  }));
}

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

/**
 * A still from Gemini image generation (the scene prompt in the dimension's palette), given slow
 * camera motion by FFmpeg. The model is part of the version, so another model means other clips.
 */
export class GeminiImageBackend implements VisualBackend {
  readonly name = "gemini-image" as const;
  readonly version: string;
  readonly spend = { provider: "gemini-image", kind: "images" } as const;

  constructor(private readonly options: { client: GeminiImageClient; ffmpegPath?: string; preset?: string }) {
    this.version = `${VISUAL_BACKEND_VERSIONS["gemini-image"]}:${options.client.model}`;
  }

  async generate(job: VisualJob, outPath: string, ctx: VisualBackendContext): Promise<void> {
    const image = await generateStill(this.options.client, geminiImagePrompt(job.prompt, job.style), ctx.signal);
    ctx.progress?.();
    const imagePath = join(dirname(outPath), `still.${EXTENSIONS[image.mimeType] ?? "png"}`);
    await writeFile(imagePath, image.bytes);
    const motion = stillMotion(job.style.motion, Number.parseInt(job.scene_hash.slice(0, 2), 16));
    ctx.logger.debug({ motion, image_bytes: image.bytes.length }, "gemini still received");
    await runFfmpeg(stillToClipArgs(job, imagePath, motion, outPath, this.options.preset), { signal: ctx.signal, ffmpegPath: this.options.ffmpegPath });
  }
}
