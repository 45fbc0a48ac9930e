import { describe, expect, test } from "bun:test";
import { pcmToWav, readWav } from "../../shared/providers/tts/wav.ts";
import { alignWords, scriptWords } from "../../shared/providers/tts/word-alignment.ts";

const RATE = 24_000;

/** Synthetic "speech": a voiced burst per word (length from its expected weight), silences between. */
function speak(text: string, gapMs: (pause: string) => number) {
  const words = scriptWords(text);
  const samples: number[] = [];
  const starts: number[] = [];
  const silence = (ms: number) => samples.push(...new Array(Math.round((RATE * ms) / 1000)).fill(0));
  silence(150);
  for (const [i, word] of words.entries()) {
    starts.push((samples.length / RATE) * 1000);
    const n = Math.round((RATE * word.weight * 45) / 1000);
    for (let k = 0; k < n; k++) {
      // A tone whose loudness rises and falls over the word, as a syllable's does.
      const envelope = Math.sin((Math.PI * k) / n) ** 0.5;
      samples.push(Math.round(12_000 * envelope * Math.sin((2 * Math.PI * 180 * k) / RATE)));
    }
    if (i < words.length - 1) silence(gapMs(word.pause));
  }
  silence(300);
  return { pcm: Int16Array.from(samples), starts };
}

describe("scriptWords", () => {
  test("strips punctuation from the words and keeps it as the pause after them", () => {
    const words = scriptWords("Wait, what?! It's 2026 — really.");
    expect(words.map((w) => [w.text, w.pause])).toEqual([
      ["Wait", "clause"],
      ["what", "sentence"],
      ["It's", "none"],
      ["2026", "clause"],
      ["really", "sentence"],
    ]);
    // A number is read out: it weighs more than a short word.
    expect(words[3].weight).toBeGreaterThan(words[2].weight);
  });
});

describe("alignWords", () => {
  const text = "Octopuses have three hearts. Two pump blood to the gills, one to the body. Follow for more!";

  test("finds each word's start where every word is followed by a pause", () => {
    const { pcm, starts } = speak(text, (p) => (p === "sentence" ? 400 : p === "clause" ? 200 : 50));
    const words = alignWords(pcm, RATE, text);
    expect(words.map((w) => w.text)).toEqual(scriptWords(text).map((w) => w.text));
    for (const [i, word] of words.entries()) expect(Math.abs(word.offset_ms - starts[i])).toBeLessThan(30);
  });

  test("places words run together between the punctuation pauses", () => {
    const { pcm, starts } = speak(text, (p) => (p === "sentence" ? 400 : p === "clause" ? 200 : 0));
    const words = alignWords(pcm, RATE, text);
    const errors = words.map((w, i) => Math.abs(w.offset_ms - starts[i]));
    // Words after a punctuation pause start exactly; the others within a generous bound.
    for (const i of [4, 10, 14]) expect(errors[i]).toBeLessThan(30);
    expect(Math.max(...errors)).toBeLessThan(250);
  });

  test("refuses silence and a text without words", () => {
    expect(() => alignWords(new Int16Array(RATE), RATE, text)).toThrow("no audible speech");
    expect(() => alignWords(speak(text, () => 50).pcm, RATE, "… !")).toThrow("no word");
  });
});

describe("WAV", () => {
  test("PCM wrapped as WAV reads back with its rate, samples and duration", () => {
    const pcm = Int16Array.from({ length: 36_000 }, (_, i) => (i * 37) % 2000 - 1000);
    const wav = pcmToWav(new Uint8Array(pcm.buffer), RATE);
    const info = readWav(wav)!;
    expect(info.sampleRate).toBe(RATE);
    expect(info.channels).toBe(1);
    expect(info.durationMs).toBe(1500);
    expect(Array.from(info.samples.subarray(0, 5))).toEqual(Array.from(pcm.subarray(0, 5)));
    expect(readWav(new TextEncoder().encode("not a wav file at all"))).toBeUndefined();
  });
});
