/**
 * Gemini TTS models (`models/<model>:generateContent` where the model name has `tts`), as the
 * Gemini API answers them: `generationConfig.responseModalities: ["AUDIO"]` and
 * `speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName` in; one candidate whose part carries
 * `inlineData: {mimeType: "audio/L16;codec=pcm;rate=24000", data: <base64 s16le mono PCM>}` out,
 * with no word timings. The speech is real espeak-ng speech (the Edge TTS emulator's, in the
 * language of `speechConfig.languageCode`, else guessed from the text), resampled to 24 kHz by
 * FFmpeg. An unknown voice is refused with 400 INVALID_ARGUMENT. Faults (service `gemini-tts`):
 * `unavailable` 503, `rate_limited` 429 with a RetryInfo, `refusal` 200 with
 * `promptFeedback.blockReason: PROHIBITED_CONTENT` and no candidates.
 */
import { createHash } from "node:crypto";
import type { EmulatorContext } from "../context.ts";
import { googleError, jsonResponse } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { convertPcm, synthesizePcm } from "../edge-tts/speech.ts";
import { GEMINI_TTS_VOICES } from "../../shared/contracts/gemini-voices.ts";

const PCM_RATE = 24_000;
/** Longest text accepted, in characters (the service limits a request's tokens; this is generous). */
const MAX_TEXT_CHARS = 5_000;

export function isTtsModel(model: string): boolean {
  return /(^|-)tts(-|$)/.test(model);
}

interface TtsRequest {
  contents?: Array<{ role?: string; parts?: Array<{ text?: string }> }>;
  generationConfig?: {
    responseModalities?: string[];
    speechConfig?: { languageCode?: string; voiceConfig?: { prebuiltVoiceConfig?: { voiceName?: string } } };
  };
}

const INDONESIAN_WORDS = new Set(["yang", "dan", "di", "ini", "itu", "untuk", "dengan", "adalah", "tidak", "dari", "kita", "bisa", "ke", "ada"]);

/** The espeak-ng voice (by its Edge name) for a language code, or for the text's look. */
function speakerFor(languageCode: string | undefined, text: string): string {
  if (languageCode) return /^id\b/i.test(languageCode) ? "id-ID-GadisNeural" : "en-US-AriaNeural";
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const indonesian = words.filter((w) => INDONESIAN_WORDS.has(w)).length;
  return indonesian * 10 >= words.length ? "id-ID-GadisNeural" : "en-US-AriaNeural";
}

function resampleTo24k(pcm: Int16Array, fromRate: number): Promise<Uint8Array> {
  return convertPcm(pcm, fromRate, PCM_RATE, ["-f", "s16le"]);
}

export async function handleGeminiTts(req: Request, model: string, ctx: EmulatorContext): Promise<Response> {
  await slowDown(ctx.faults, "gemini-tts");
  const fault = ctx.faults.take("gemini-tts");
  if (fault?.kind === "unavailable") return googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
  if (fault?.kind === "rate_limited") {
    return googleError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details.", {
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" }],
    });
  }
  let body: TtsRequest;
  try {
    body = await req.json() as TtsRequest;
  } catch {
    return googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
  }
  const config = body.generationConfig ?? {};
  if (!(config.responseModalities ?? []).some((m) => m.toUpperCase() === "AUDIO")) {
    return googleError(
      400,
      "INVALID_ARGUMENT",
      `The requested combination of response modalities is not supported by the model ${model}: it only answers AUDIO.`,
    );
  }
  const voice = config.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName ?? "Kore";
  if (!(GEMINI_TTS_VOICES as readonly string[]).includes(voice)) {
    return googleError(400, "INVALID_ARGUMENT", `Voice name ${voice} is not supported. Allowed voice names are: ${GEMINI_TTS_VOICES.join(", ")}.`);
  }
  const text = (body.contents ?? [])
    .filter((content) => (content.role ?? "user") === "user")
    .flatMap((content) => content.parts ?? [])
    .map((part) => part.text ?? "")
    .join("\n")
    .trim();
  if (text === "") return googleError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified");
  if (text.length > MAX_TEXT_CHARS) {
    return googleError(400, "INVALID_ARGUMENT", `The input text is too long (${text.length} characters; at most ${MAX_TEXT_CHARS}).`);
  }
  const promptTokenCount = Math.max(1, Math.ceil(text.length / 4));
  if (fault?.kind === "refusal") {
    return jsonResponse({
      promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
      usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
      modelVersion: model,
    });
  }

  const started = performance.now();
  const speech = await synthesizePcm({ text, voice: speakerFor(config.speechConfig?.languageCode, text) });
  if (speech.words.length === 0) return googleError(400, "INVALID_ARGUMENT", "The input text has nothing to speak.");
  const pcm = await resampleTo24k(speech.pcm, speech.sampleRate);
  const data = Buffer.from(pcm).toString("base64");
  // Audio tokens: 25 a second of audio, as Gemini counts them.
  const candidatesTokenCount = Math.ceil((pcm.length / 2 / PCM_RATE) * 25);
  ctx.log({
    ts: new Date().toISOString(),
    service: "gemini-tts",
    event: "speech",
    model,
    voice,
    words: speech.words.length,
    audio_ms: Math.round((pcm.length / 2 / PCM_RATE) * 1000),
    ms: Math.round(performance.now() - started),
  });
  return jsonResponse({
    candidates: [{
      content: { role: "model", parts: [{ inlineData: { mimeType: `audio/L16;codec=pcm;rate=${PCM_RATE}`, data } }] },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount },
    modelVersion: model,
    responseId: createHash("sha256").update(data).digest("base64url").slice(0, 22),
  });
}
