/**
 * Gemini image generation: `generateContent` whose `generationConfig.responseModalities` asks
 * for IMAGE answers, as the API documents, with a candidate whose parts carry the picture as
 * `inlineData` (`mimeType: image/png`, base64 `data`). The picture is deterministic: drawn from a
 * hash of the model and prompt, in the palette the prompt names, with the prompt's subject
 * written on it (see media-draw.ts). Sizes follow `imageConfig.aspectRatio` as Gemini's do.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { jsonResponse } from "../context.ts";
import type { EmulatorContext } from "../context.ts";
import { drawPng } from "../media-draw.ts";

/** Output sizes of Gemini 2.5 Flash Image per aspect ratio. */
const SIZES: Record<string, [number, number]> = {
  "1:1": [1024, 1024],
  "9:16": [768, 1344],
  "16:9": [1344, 768],
  "3:4": [864, 1184],
  "4:3": [1184, 864],
  "2:3": [832, 1248],
  "3:2": [1248, 832],
};

export interface ImageGenerationConfig {
  responseModalities?: string[];
  imageConfig?: { aspectRatio?: string };
}

/** Whether a generateContent call asks for an image. */
export function wantsImage(config: ImageGenerationConfig | undefined): boolean {
  return (config?.responseModalities ?? []).some((m) => String(m).toUpperCase() === "IMAGE");
}

/** The subject of a scene prompt: what follows "showing:", else its first sentence. */
function promptSubject(prompt: string): string {
  const at = prompt.lastIndexOf("showing:");
  const subject = at >= 0 ? prompt.slice(at + "showing:".length) : prompt;
  return subject.split(/[.;\n]/)[0]!.trim().slice(0, 80);
}

export async function answerImage(ctx: EmulatorContext, model: string, prompt: string, config: ImageGenerationConfig): Promise<Response> {
  const ratio = config.imageConfig?.aspectRatio ?? "1:1";
  const size = SIZES[ratio];
  if (!size) {
    return jsonResponse({
      error: { code: 400, message: `* GenerationConfig.image_config.aspect_ratio: unsupported value ${ratio}`, status: "INVALID_ARGUMENT" },
    }, 400);
  }
  const palette = prompt.match(/#[0-9a-fA-F]{6}\b/g) ?? undefined;
  const png = await drawPng(ctx.dataDir, { seed: `${model}\n${prompt}`, caption: promptSubject(prompt), width: size[0], height: size[1], palette });
  const data = Buffer.from(png).toString("base64");
  const promptTokenCount = Math.max(1, Math.ceil(prompt.length / 4));
  return jsonResponse({
    candidates: [{ content: { role: "model", parts: [{ inlineData: { mimeType: "image/png", data } }] }, finishReason: "STOP", index: 0 }],
    // Gemini bills an image as 1290 output tokens.
    usageMetadata: { promptTokenCount, candidatesTokenCount: 1290, totalTokenCount: promptTokenCount + 1290 },
    modelVersion: model,
    responseId: createHash("sha256").update(data).digest("base64url").slice(0, 22),
  });
}
