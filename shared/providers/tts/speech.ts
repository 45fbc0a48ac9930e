/**
 * What every TTS provider of the voice chain returns, and how it says no.
 */
import type { WordTiming } from "../../contracts/media.ts";
import { ProviderRejectedError } from "../errors.ts";

/** A synthesised narration, ready to store: its audio, the audio's type, and per-word timings. */
export interface SynthesizedSpeech {
  audio: Uint8Array;
  contentType: "audio/mpeg" | "audio/wav";
  /** File extension of the stored track. */
  extension: "mp3" | "wav";
  words: WordTiming[];
  /** Measured from the audio itself. */
  durationMs: number;
}

/**
 * The provider refused this narration itself: its voice does not exist, or its safety filter
 * blocked the text. Another provider would either hide a broken configuration behind a different
 * voice or speak what a safety filter refused, so the voice chain halts on it at once.
 */
export class VoiceRefusedError extends ProviderRejectedError {
  readonly reason: "invalid_voice" | "safety" | "nothing_to_speak";

  constructor(provider: string, reason: VoiceRefusedError["reason"], message: string, options: { status?: number; cause?: unknown } = {}) {
    super(provider, message, options);
    this.name = "VoiceRefusedError";
    this.reason = reason;
  }
}
