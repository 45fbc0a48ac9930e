/**
 * Speech with known word timings for measuring word alignment: espeak-ng speech from the Edge TTS
 * emulator (every word's offset known to the sample), resampled to Gemini TTS's PCM format
 * (24 kHz s16le mono) with FFmpeg, as the Gemini TTS emulator sends it.
 *
 * Two renditions of each script: `emulator` (the speech exactly as the emulators make it: a short
 * gap after every word) and `connected` (the gaps between words without punctuation removed, so
 * words run into each other as in natural speech and only punctuation leaves pauses).
 */
import { createHash } from "node:crypto";
import { synthesizePcm } from "../../emulators/edge-tts/speech.ts";
import { writeScript } from "../../emulators/gemini/tasks/script.ts";
import { Variant } from "../../emulators/gemini/tasks/prompt.ts";
import { convertPcm } from "../../emulators/edge-tts/speech.ts";

export const PCM_RATE = 24_000;

export interface CorpusItem {
  language: "en" | "id";
  rate: string;
  text: string;
}

export interface AlignmentSample extends CorpusItem {
  rendition: "emulator" | "connected";
  pcm: Int16Array;
  /** Ground truth: start of each spoken word, in ms. */
  starts: number[];
}

const HAND_WRITTEN: CorpusItem[] = [
  {
    language: "en",
    rate: "+0%",
    text:
      "Octopuses have three hearts. Two pump blood to the gills, one to the body. When an octopus swims, the heart that feeds its body stops beating, which is why they prefer crawling.",
  },
  {
    language: "en",
    rate: "+10%",
    text: "In 1969, two people walked on the Moon for about 21 hours. The footprints they left are still there, because nothing on the Moon blows them away.",
  },
  {
    language: "en",
    rate: "-10%",
    text:
      "Honey never spoils. Archaeologists found jars in Egyptian tombs, over 3,000 years old, and the honey inside was still edible! Low water and high acidity keep microbes out.",
  },
  {
    language: "en",
    rate: "+0%",
    text:
      "Your phone's battery hates heat more than anything else; charging it in a hot car, day after day, wears it out faster than any app ever could. Keep it cool, and it lasts longer.",
  },
  {
    language: "en",
    rate: "+5%",
    text:
      "Why is the sky blue? Sunlight holds every colour, but the air scatters short blue waves far more than red ones, so blue light reaches your eyes from every direction. At sunset, the light travels through more air, and the reds win.",
  },
  {
    language: "id",
    rate: "+0%",
    text: "Komodo adalah kadal terbesar di dunia. Panjangnya bisa mencapai tiga meter, dan gigitannya mengandung racun yang membuat mangsanya lemah.",
  },
  {
    language: "id",
    rate: "+10%",
    text: "Candi Borobudur dibangun sekitar abad kesembilan. Candi ini punya lebih dari dua ribu panel relief, dan semuanya bercerita tentang kehidupan!",
  },
  {
    language: "id",
    rate: "-10%",
    text: "Kopi susu gula aren sedang populer di mana-mana. Rasanya manis, gurih, dan sedikit pahit; harganya pun terjangkau, jadi anak muda suka sekali.",
  },
  {
    language: "id",
    rate: "+0%",
    text: "Kenapa bulan bisa berwarna merah saat gerhana? Cahaya matahari dibelokkan oleh atmosfer bumi, dan hanya warna merah yang sampai ke permukaan bulan.",
  },
  {
    language: "id",
    rate: "+5%",
    text:
      "Batik ditetapkan sebagai warisan budaya dunia pada tahun 2009. Sejak itu, setiap tanggal dua Oktober kita merayakan Hari Batik Nasional dengan memakai batik ke sekolah dan kantor.",
  },
];

const TOPICS: Record<"en" | "id", string[]> = {
  en: ["james webb telescope", "northern lights forecast", "sourdough starter", "quantum computing", "electric bikes", "honeybees"],
  id: ["gerhana bulan", "resep rendang", "Candi Borobudur", "mobil listrik", "Pulau Komodo", "kereta cepat"],
};

/** Hand-written scripts, then narrations the Gemini emulator writes for the trend fixtures' topics. */
export function corpus(): CorpusItem[] {
  const items = [...HAND_WRITTEN];
  const rates = ["+0%", "+10%", "-5%"];
  for (const language of ["en", "id"] as const) {
    TOPICS[language].forEach((topic, i) => {
      const digest = createHash("sha256").update(`alignment-corpus:${language}:${topic}`).digest();
      const draft = writeScript({ LANGUAGE: language, TOPIC: topic }, new Variant(new Uint8Array(digest))) as { narration?: string };
      if (draft.narration) items.push({ language, rate: rates[i % rates.length], text: draft.narration });
    });
  }
  return items;
}

/** Mono 16-bit PCM resampled to PCM_RATE, through the emulator's own FFmpeg call. */
async function resample(pcm: Int16Array, fromRate: number): Promise<Int16Array> {
  const bytes = await convertPcm(pcm, fromRate, PCM_RATE, ["-f", "s16le"]);
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1)));
}

const VOICES = { en: "en-US-AriaNeural", id: "id-ID-GadisNeural" } as const;

/** Both renditions of one script, with the true start of every word. */
export async function renderSample(item: CorpusItem): Promise<AlignmentSample[]> {
  const speech = await synthesizePcm({ text: item.text, voice: VOICES[item.language], rate: item.rate });
  const toSamples = (ticks: number) => Math.round((ticks / 1e7) * speech.sampleRate);
  const emulatorStarts = speech.words.map((w) => w.offsetTicks / 1e4);

  // Connected speech: drop the gap after each word that is followed by no punctuation pause.
  const pieces: Int16Array[] = [];
  const connectedStarts: number[] = [];
  let kept = 0;
  let cursor = 0;
  speech.words.forEach((word, i) => {
    const start = toSamples(word.offsetTicks);
    const end = start + toSamples(word.durationTicks);
    const next = i + 1 < speech.words.length ? toSamples(speech.words[i + 1].offsetTicks) : speech.pcm.length;
    pieces.push(speech.pcm.subarray(cursor, start));
    kept += start - cursor;
    connectedStarts.push((kept / speech.sampleRate) * 1000);
    pieces.push(speech.pcm.subarray(start, end));
    kept += end - start;
    // A gap under 100 ms is the emulator's plain word gap; longer ones follow punctuation.
    cursor = (next - end) / speech.sampleRate < 0.1 ? next : end;
  });
  pieces.push(speech.pcm.subarray(cursor));
  const connected = new Int16Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    connected.set(piece, at);
    at += piece.length;
  }
  return [
    { ...item, rendition: "emulator", pcm: await resample(speech.pcm, speech.sampleRate), starts: emulatorStarts },
    { ...item, rendition: "connected", pcm: await resample(connected, speech.sampleRate), starts: connectedStarts },
  ];
}

/** Absolute start-time errors (ms) of aligned words against the truth, word by word. */
export function startErrors(aligned: { offset_ms: number }[], truth: number[]): number[] {
  if (aligned.length !== truth.length) throw new Error(`aligned ${aligned.length} words, the speech has ${truth.length}`);
  return aligned.map((w, i) => Math.abs(w.offset_ms - truth[i]));
}
