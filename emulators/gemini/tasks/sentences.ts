/** Sentence and word handling shared by the script and scene-plan tasks. */

const ABBREVIATIONS = new Set(["e.g.", "i.e.", "mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "vs.", "no.", "dll.", "dsb.", "sdr."]);

/** Collapses every whitespace run to one space and trims. */
export function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Splits text into sentences at `.`, `!`, `?` or `…` (optionally followed by closing quotes or
 * brackets) that are followed by a space, except after a few common abbreviations. Returns the
 * sentences of the whitespace-normalised text, so `split(...).join(" ")` equals it.
 */
export function splitSentences(text: string): string[] {
  const words = normalizeSpace(text).split(" ").filter(Boolean);
  const sentences: string[] = [];
  let current: string[] = [];
  for (const word of words) {
    current.push(word);
    if (/[.!?…]["'”’)\]]*$/.test(word) && !ABBREVIATIONS.has(word.toLowerCase())) {
      sentences.push(current.join(" "));
      current = [];
    }
  }
  if (current.length > 0) sentences.push(current.join(" "));
  return sentences;
}

/** Words as a listener hears them: whitespace-separated tokens with a letter or digit. */
export function countWords(text: string): number {
  return normalizeSpace(text).split(" ").filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
}

/** Upper-cases the first letter (for a topic that opens a sentence). */
export function capitalize(text: string): string {
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}
