/**
 * Gemini TTS through `@google/genai` against the emulator (real espeak-ng speech, no word
 * timings), and the word alignment measured against espeak-ng's own word starts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { synthesizeWithGeminiTts } from "../../shared/providers/tts/gemini-tts.ts";
import { VoiceRefusedError } from "../../shared/providers/tts/speech.ts";
import { readWav } from "../../shared/providers/tts/wav.ts";
import { alignWords } from "../../shared/providers/tts/word-alignment.ts";
import { PCM_RATE, renderSample, startErrors } from "../../scripts/eval/alignment-corpus.ts";
import { quantile } from "../../shared/stats.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.stop();
}, 60_000);

const call = (overrides: Partial<Parameters<typeof synthesizeWithGeminiTts>[0]> = {}) =>
  synthesizeWithGeminiTts({
    apiKey: "test-key",
    baseUrl: emulator.url,
    text: "Kopi susu gula aren sedang populer di mana-mana.",
    voice: "Aoede",
    languageCode: "id-ID",
    backoffMs: 50,
    ...overrides,
  });

describe("Gemini TTS", () => {
  test("speaks the text as 24 kHz WAV with a timing for every word", async () => {
    const speech = await call();
    const wav = readWav(speech.audio)!;
    expect(wav.sampleRate).toBe(24_000);
    expect(speech.durationMs).toBe(wav.durationMs);
    expect(speech.words.map((w) => w.text)).toEqual(["Kopi", "susu", "gula", "aren", "sedang", "populer", "di", "mana-mana"]);
    expect(speech.words.at(-1)!.offset_ms + speech.words.at(-1)!.duration_ms).toBeLessThanOrEqual(speech.durationMs);
  }, 30_000);

  test("an unknown voice is refused at once as a voice refusal", async () => {
    const error = await call({ voice: "Nobody" }).catch((e) => e);
    expect(error).toBeInstanceOf(VoiceRefusedError);
    expect(error.reason).toBe("invalid_voice");
  });

  test("outages are retried a bounded number of times, then reported as unavailable", async () => {
    await emulator.armFault({ service: "gemini-tts", kind: "unavailable", count: 2 });
    expect((await call({ attempts: 3 })).words.length).toBe(8);
    await emulator.armFault({ service: "gemini-tts", kind: "unavailable", count: 2 });
    const error = await call({ attempts: 2 }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toContain("after 2 attempts");
  }, 30_000);

  test("a safety block is a refusal, not an outage", async () => {
    await emulator.armFault({ service: "gemini-tts", kind: "refusal", count: 1 });
    const error = await call().catch((e) => e);
    expect(error).toBeInstanceOf(VoiceRefusedError);
    expect(error.reason).toBe("safety");
  });
});

test("word starts aligned from the audio fall near espeak-ng's own, in both languages", async () => {
  const items = [
    {
      language: "en" as const,
      rate: "+0%",
      text: "Honey never spoils. Archaeologists found jars in Egyptian tombs, over 3,000 years old, and the honey inside was still edible!",
    },
    {
      language: "id" as const,
      rate: "+10%",
      text: "Candi Borobudur dibangun sekitar abad kesembilan. Candi ini punya lebih dari dua ribu panel relief, dan semuanya bercerita tentang kehidupan!",
    },
  ];
  for (const item of items) {
    for (const sample of await renderSample(item)) {
      const errors = startErrors(alignWords(sample.pcm, PCM_RATE, sample.text), sample.starts);
      // Generous bounds: the figures themselves are measured by `npm run eval:alignment`.
      expect(quantile(errors, 0.5)).toBeLessThan(100);
      expect(quantile(errors, 0.9)).toBeLessThan(300);
    }
  }
}, 60_000);
