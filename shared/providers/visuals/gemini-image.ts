/**
 * Gemini image generation through `@google/genai`: `models.generateContent` with an IMAGE response
 * modality, the picture coming back as `inlineData` (base64) in the candidate's parts.
 */
import { Buffer } from "node:buffer";
import { ApiError, GoogleGenAI, Modality } from "@google/genai";
import type { VisualStyle } from "../../contracts/media.ts";
import { errorForStatus, ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";

const PROVIDER = "gemini-image";

/** Largest picture accepted from the API (decoded bytes). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export interface GeneratedImage {
  bytes: Uint8Array;
  mimeType: string;
}

interface GeminiImageOptions {
  apiKey: string;
  /** Another endpoint for the Gemini API (the local emulator); defaults to Google's. */
  baseUrl?: string;
  /** An image-capable model, e.g. `gemini-2.5-flash-image`. */
  model: string;
  timeoutMs?: number;
}

/** The request text: the scene as planned, the dimension's look, and what a vertical short needs. */
export function geminiImagePrompt(scenePrompt: string, style: Pick<VisualStyle, "palette" | "motion">): string {
  return [
    scenePrompt,
    `Colour palette: ${style.palette.join(", ")}.`,
    "A single vertical 9:16 frame with the subject clearly visible and room around it for slow camera motion;",
    "no text, captions, logos or watermarks.",
  ].join("\n");
}

/** The request body `generateContent` is called with (what the client sends, minus transport). */
export function geminiImageRequest(model: string, prompt: string) {
  return {
    model,
    contents: prompt,
    config: { responseModalities: [Modality.IMAGE], imageConfig: { aspectRatio: "9:16" }, candidateCount: 1 },
  };
}

export class GeminiImageClient {
  private readonly ai: GoogleGenAI;

  constructor(private readonly options: GeminiImageOptions) {
    this.ai = new GoogleGenAI({
      apiKey: options.apiKey,
      httpOptions: { baseUrl: options.baseUrl, apiVersion: "v1beta", timeout: options.timeoutMs ?? 120_000 },
    });
  }

  get model(): string {
    return this.options.model;
  }

  async generate(prompt: string, signal?: AbortSignal): Promise<GeneratedImage> {
    const request = geminiImageRequest(this.options.model, prompt);
    let response;
    try {
      response = await this.ai.models.generateContent({ ...request, config: { ...request.config, abortSignal: signal } });
    } catch (error) {
      signal?.throwIfAborted();
      if (error instanceof ApiError) throw errorForStatus(PROVIDER, error.status, `Gemini image answered ${error.status}: ${error.message}`, error);
      throw new ProviderUnavailableError(PROVIDER, `Gemini image request failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    const image = parts.find((part) => part.inlineData?.data && part.inlineData.mimeType?.startsWith("image/"))?.inlineData;
    if (!image?.data) {
      const reason = response.promptFeedback?.blockReason ?? response.candidates?.[0]?.finishReason ?? "no candidates";
      throw new ProviderRejectedError(PROVIDER, `Gemini returned no image (${reason})`);
    }
    if (image.data.length > (MAX_IMAGE_BYTES * 4) / 3 + 4) throw new ProviderRejectedError(PROVIDER, `Gemini image is larger than ${MAX_IMAGE_BYTES} bytes`);
    const bytes = Uint8Array.from(Buffer.from(image.data, "base64"));
    return { bytes, mimeType: image.mimeType ?? "image/png" };
  }
}
