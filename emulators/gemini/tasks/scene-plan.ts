/**
 * `TASK: scene_plan` — splits a narration into 5-8 scenes, each with a visual prompt and keywords.
 * Headers: `LANGUAGE`, `STYLE: <free text>`, then `NARRATION:` followed by the narration (up to
 * the next blank line). The scenes' narration fields, joined by single spaces, equal the
 * narration with its whitespace normalised: nothing is reworded, dropped or reordered.
 */
import type { Variant } from "./prompt.ts";
import { countWords, normalizeSpace, splitSentences } from "./sentences.ts";

const MIN_SCENES = 5;
const MAX_SCENES = 8;

const SHOTS = [
  "wide establishing shot",
  "slow push-in close-up",
  "overhead shot",
  "medium shot with shallow depth of field",
  "macro detail shot",
  "smooth tracking shot",
  "silhouette against the sky",
  "low-angle shot",
];
const LIGHT = [
  "soft morning light",
  "warm golden-hour light",
  "cool blue tones",
  "high-contrast studio lighting",
  "gentle diffused daylight",
  "moody evening light",
];
const STOPWORDS = new Set([
  "about",
  "after",
  "again",
  "also",
  "because",
  "before",
  "being",
  "could",
  "every",
  "from",
  "have",
  "here",
  "into",
  "just",
  "more",
  "most",
  "much",
  "only",
  "other",
  "over",
  "really",
  "same",
  "should",
  "some",
  "still",
  "than",
  "that",
  "their",
  "them",
  "then",
  "there",
  "these",
  "they",
  "thing",
  "things",
  "this",
  "those",
  "through",
  "very",
  "what",
  "when",
  "where",
  "which",
  "while",
  "will",
  "with",
  "would",
  "your",
  "you're",
  "people",
  "story",
  "yang",
  "dan",
  "dari",
  "untuk",
  "dengan",
  "adalah",
  "akan",
  "atau",
  "juga",
  "karena",
  "kita",
  "kamu",
  "mereka",
  "sudah",
  "tentang",
  "tetapi",
  "tapi",
  "dalam",
  "pada",
  "sebelum",
  "sesuatu",
  "bagi",
  "hanya",
  "lebih",
  "masih",
  "semua",
  "orang",
  "banyak",
  "begini",
  "biasanya",
  "ternyata",
  "padahal",
  "menjadi",
  "sebenarnya",
  "sampai",
  "supaya",
]);

/** Splits `segment` in two near its middle: at a comma if one is close, else between words. */
function splitSegment(segment: string): [string, string] {
  const words = segment.split(" ");
  const middle = words.length / 2;
  let cut = Math.round(middle);
  let best = Infinity;
  words.forEach((word, i) => {
    const distance = Math.abs(i + 1 - middle);
    if (/[,;:]$/.test(word) && i + 1 < words.length && distance < best && distance <= words.length * 0.3) {
      best = distance;
      cut = i + 1;
    }
  });
  cut = Math.min(Math.max(cut, 1), words.length - 1);
  return [words.slice(0, cut).join(" "), words.slice(cut).join(" ")];
}

/** The narration in 5-8 pieces, in order: sentences, merged or split at their middles as needed. */
function segmentNarration(narration: string): string[] | undefined {
  const segments = splitSentences(narration);
  while (segments.length > MAX_SCENES) {
    let best = 0;
    for (let i = 1; i < segments.length - 1; i++) {
      if (countWords(segments[i] + " " + segments[i + 1]) < countWords(segments[best] + " " + segments[best + 1])) best = i;
    }
    segments.splice(best, 2, `${segments[best]} ${segments[best + 1]}`);
  }
  while (segments.length < MIN_SCENES) {
    let longest = -1;
    segments.forEach((segment, i) => {
      const n = segment.split(" ").length;
      if (n >= 2 && (longest < 0 || n > segments[longest].split(" ").length)) longest = i;
    });
    if (longest < 0) return undefined;
    segments.splice(longest, 1, ...splitSegment(segments[longest]));
  }
  return segments;
}

function keywords(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.split(" ")) {
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    const key = word.toLowerCase();
    if (word.length >= 4 && !STOPWORDS.has(key) && !seen.has(key)) seen.add(key);
    if (seen.size >= 6) break;
  }
  return [...seen];
}

export function planScenes(headers: Record<string, string>, variant: Variant): unknown {
  const narration = normalizeSpace(headers.NARRATION ?? "");
  if (narration === "") return { error: "missing NARRATION" };
  const segments = segmentNarration(narration);
  if (!segments) return { error: "narration too short for 5 scenes" };
  const style = normalizeSpace(headers.STYLE ?? "clean modern explainer look").slice(0, 160);
  const shots = variant.shuffle(SHOTS);
  const scenes = segments.map((segment, i) => {
    const words = keywords(segment);
    const subject = words.join(", ") || "an abstract visual motif";
    const prompt = `Vertical 9:16 ${shots[i % shots.length]}, ${variant.pick(LIGHT)}, ${style}; showing: ${subject}`;
    // The strongest few subject words double as stock-search keywords.
    return { prompt: prompt.slice(0, 400), narration: segment, keywords: words.slice(0, 3) };
  });
  return { scenes };
}
