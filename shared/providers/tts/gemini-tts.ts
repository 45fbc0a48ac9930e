/**
 * Gemini TTS through `@google/genai`: `generateContent` on a TTS model with
 * `responseModalities: ["AUDIO"]` and a prebuilt voice. The answer is base64 PCM (16-bit
 * little-endian, mono, 24 kHz, `audio/L16;codec=pcm;rate=24000`) in `inlineData`, with no word
 * timings: the words are aligned to the audio here (word-alignment.ts), and the PCM is wrapped
 * as WAV for storage and the render. Runs in Deno (Edge Functions) and Bun.
 *
 * Failures: 429, 5xx, network errors and an answer without audio are retried (bounded: `attempts`
 * calls in all, exponential backoff, a 429's RetryInfo honoured up to a cap), then thrown as
 * `ProviderUnavailableError`. An unknown voice (400 naming the voice) and a safety block throw
 * `VoiceRefusedError` at once; any other 4xx throws `ProviderRejectedError`.
 */
import { ApiError, GoogleGenAI } from "@google/genai";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";
import { type SynthesizedSpeech, VoiceRefusedError } from "./speech.ts";
import { pcmToWav } from "./wav.ts";
import { alignWords } from "./word-alignment.ts";

const PROVIDER = "gemini-tts";
const DEFAULT_GEMINI_TTS_MODEL = "gemini-2.5-flash-preview-tts";
const PCM_RATE = 24_000;
/** Finish and block reasons that mean the content was refused, not that the call failed. */
const SAFETY_REASONS = new Set(["SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION", "OTHER_BLOCKED"]);
const MAX_RETRY_DELAY_MS = 5_000;

/** A 429, with the delay the server asked for when it gave one. */
class RateLimitedError extends ProviderUnavailableError {
  readonly retryAfterMs?: number;

  constructor(message: string, retryAfterMs: number | undefined, cause: unknown) {
    super(PROVIDER, message, { status: 429, cause });
    this.retryAfterMs = retryAfterMs;
  }
}

interface GeminiTtsRequest {
  apiKey: string;
  /** Another endpoint for the Gemini API (the local emulator); defaults to Google's. */
  baseUrl?: string;
  /** A TTS model, e.g. `gemini-2.5-flash-preview-tts`. */
  model?: string;
  text: string;
  /** A prebuilt voice name, e.g. `Kore`. */
  voice: string;
  /** BCP-47, e.g. `en-US`; optional (the model detects the language). */
  languageCode?: string;
  /** Per-request limit; default 90 s (a minute of speech takes a while to generate). */
  timeoutMs?: number;
  /** Calls in all for retriable failures; default 3. */
  attempts?: number;
  /** First retry delay; default 1 s, doubling. */
  backoffMs?: number;
}

function decodeBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A 429's `RetryInfo.retryDelay` ("7s", "1.5s") in ms, when the error body carries one. */
function retryDelayMs(error: ApiError): number | undefined {
  const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(error.message);
  return match ? Number(match[1]) * 1000 : undefined;
}

interface Candidate {
  finishReason?: string;
  content?: { parts?: Array<{ inlineData?: { mimeType?: string; data?: string } }> };
}

/** PCM bytes and sample rate of the answer's audio parts. */
function audioOf(candidate: Candidate | undefined): { pcm: Uint8Array; sampleRate: number } | undefined {
  const parts = (candidate?.content?.parts ?? []).filter((p) => p.inlineData?.data && /^audio\//i.test(p.inlineData.mimeType ?? ""));
  if (parts.length === 0) return undefined;
  const mimeType = parts[0].inlineData!.mimeType!;
  if (!/^audio\/(L16|pcm)\b/i.test(mimeType)) {
    throw new ProviderUnavailableError(PROVIDER, `Gemini TTS answered audio as ${mimeType}, not 16-bit PCM`);
  }
  const chunks = parts.map((p) => decodeBase64(p.inlineData!.data!));
  const pcm = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    pcm.set(chunk, at);
    at += chunk.length;
  }
  const sampleRate = Number(/rate=(\d+)/i.exec(mimeType)?.[1] ?? PCM_RATE);
  return { pcm, sampleRate };
}

async function attempt(ai: GoogleGenAI, request: GeminiTtsRequest): Promise<SynthesizedSpeech> {
  let response;
  try {
    response = await ai.models.generateContent({
      model: request.model ?? DEFAULT_GEMINI_TTS_MODEL,
      contents: [{ role: "user", parts: [{ text: request.text }] }],
      config: {
        responseModalities: ["AUDIO"],
        speechConfig: {
          voiceConfig: { prebuiltVoiceConfig: { voiceName: request.voice } },
          ...(request.languageCode ? { languageCode: request.languageCode } : {}),
        },
      },
    });
  } catch (error) {
    if (error instanceof ApiError) {
      const message = `Gemini TTS answered ${error.status}: ${error.message.slice(0, 300)}`;
      if (error.status === 400 && /voice/i.test(error.message)) {
        throw new VoiceRefusedError(PROVIDER, "invalid_voice", `Gemini TTS refused voice ${request.voice}: ${error.message.slice(0, 300)}`, {
          status: 400,
          cause: error,
        });
      }
      if (error.status === 429) throw new RateLimitedError(message, retryDelayMs(error), error);
      throw errorForStatus(PROVIDER, error.status, message, error);
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new ProviderUnavailableError(PROVIDER, `Gemini TTS request failed: ${message}`, { cause: error });
  }
  const blocked = response.promptFeedback?.blockReason;
  const candidate = response.candidates?.[0] as Candidate | undefined;
  const finish = candidate?.finishReason;
  if (blocked || (finish && SAFETY_REASONS.has(finish))) {
    throw new VoiceRefusedError(PROVIDER, "safety", `Gemini TTS blocked the narration (${blocked ?? finish})`);
  }
  const audio = audioOf(candidate);
  if (!audio || audio.pcm.length < 2) {
    throw new ProviderUnavailableError(PROVIDER, `Gemini TTS answered without audio (finishReason ${finish ?? "none"})`);
  }
  const samples = new Int16Array(audio.pcm.buffer, audio.pcm.byteOffset, audio.pcm.length >> 1);
  let words;
  try {
    words = alignWords(samples, audio.sampleRate, request.text);
  } catch (error) {
    throw new ProviderUnavailableError(PROVIDER, `Gemini TTS audio could not be aligned: ${(error as Error).message}`, { cause: error });
  }
  return {
    audio: pcmToWav(audio.pcm, audio.sampleRate),
    contentType: "audio/wav",
    extension: "wav",
    words,
    durationMs: Math.round((samples.length / audio.sampleRate) * 1000),
  };
}

/** Speaks `text` with a prebuilt Gemini voice; returns WAV audio with aligned word timings. */
export async function synthesizeWithGeminiTts(request: GeminiTtsRequest): Promise<SynthesizedSpeech> {
  if (!/[\p{L}\p{N}]/u.test(request.text)) throw new VoiceRefusedError(PROVIDER, "nothing_to_speak", "text has nothing to speak");
  const ai = new GoogleGenAI({
    apiKey: request.apiKey,
    httpOptions: { baseUrl: request.baseUrl, apiVersion: "v1beta", timeout: request.timeoutMs ?? 90_000 },
  });
  const attempts = Math.max(1, request.attempts ?? 3);
  let delay = request.backoffMs ?? 1_000;
  for (let i = 1;; i++) {
    try {
      return await attempt(ai, request);
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError) || i >= attempts) {
        if (error instanceof ProviderUnavailableError && attempts > 1) {
          throw new ProviderUnavailableError(PROVIDER, `${error.message} (after ${attempts} attempts)`, { status: error.status, cause: error });
        }
        throw error;
      }
      const hinted = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
      await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_RETRY_DELAY_MS, Math.max(delay, hinted ?? 0))));
      delay *= 2;
    }
  }
}
