/**
 * Near-duplicate titles across days and sources ("Northern lights tonight" / "Northern Lights
 * Tonight: where to look"). Titles are folded (Unicode NFKD, accents and punctuation dropped,
 * lower case), stop words of English and Indonesian are removed and a plural `s` is trimmed; the
 * similarity is the mean of the token Jaccard index and the cosine of character-trigram counts.
 * The threshold is calibrated on tests/fixtures/near-duplicates.jsonl (`npm run eval:near-dup`).
 */

/** Similarity at or above which two titles are the same topic (see docs/reference/sources.md for its calibration). */
export const NEAR_DUPLICATE_THRESHOLD = 0.5;

const STOP_WORDS = new Set([
  // English
  "a",
  "an",
  "the",
  "and",
  "or",
  "but",
  "of",
  "in",
  "on",
  "at",
  "to",
  "for",
  "from",
  "by",
  "with",
  "about",
  "as",
  "into",
  "is",
  "are",
  "was",
  "were",
  "be",
  "been",
  "it",
  "its",
  "this",
  "that",
  "these",
  "those",
  "what",
  "why",
  "how",
  "who",
  "when",
  "where",
  "which",
  "will",
  "can",
  "you",
  "your",
  "we",
  "our",
  "they",
  "their",
  "he",
  "she",
  "his",
  "her",
  "new",
  "after",
  "over",
  "up",
  "out",
  "says",
  "vs",
  "just",
  "now",
  "here",
  "all",
  "more",
  "most",
  // Indonesian
  "yang",
  "dan",
  "di",
  "ke",
  "dari",
  "untuk",
  "dengan",
  "pada",
  "ini",
  "itu",
  "atau",
  "juga",
  "dalam",
  "akan",
  "ada",
  "tidak",
  "bisa",
  "sudah",
  "oleh",
  "sebagai",
  "karena",
  "para",
  "lebih",
  "agar",
  "saat",
  "bagi",
  "kata",
  "apa",
  "ini",
  "begini",
  "berikut",
  "cara",
  "hari",
]);

/** The title folded to plain lower-case words (no stop words removed). */
export function foldText(text: string): string[] {
  return text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim().split(" ").filter(Boolean);
}

/** A word as compared: an English plural `s` trimmed ("lights" = "light"), other words as they are. */
export function stem(word: string): string {
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") ? word.slice(0, -1) : word;
}

/** The title's content words: folded, stop words dropped, stemmed. */
export function titleTokens(title: string): string[] {
  const words = foldText(title);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return (content.length > 0 ? content : words).map(stem);
}

/** The exact Jaccard index of two sets (1 for two empty sets): here of two titles' tokens, and the guard's scene hashes. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const item of a) if (b.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

function trigrams(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  const text = ` ${[...tokens].sort().join(" ")} `;
  for (let i = 0; i + 3 <= text.length; i++) {
    const gram = text.slice(i, i + 3);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

function trigramCosine(a: readonly string[], b: readonly string[]): number {
  const left = trigrams(a);
  const right = trigrams(b);
  let dot = 0;
  for (const [gram, n] of left) dot += n * (right.get(gram) ?? 0);
  const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((sum, n) => sum + n * n, 0));
  const denominator = norm(left) * norm(right);
  return denominator === 0 ? 0 : dot / denominator;
}

/** Similarity of two titles in [0, 1]. */
export function titleSimilarity(a: string, b: string): number {
  const left = titleTokens(a);
  const right = titleTokens(b);
  return Math.round(((jaccard(new Set(left), new Set(right)) + trigramCosine(left, right)) / 2) * 1e4) / 1e4;
}

/** The most similar of `others` to `title`, if any. */
export function closestTitle(title: string, others: Iterable<string>): { title: string; similarity: number } | undefined {
  let best: { title: string; similarity: number } | undefined;
  for (const other of others) {
    const similarity = titleSimilarity(title, other);
    if (!best || similarity > best.similarity) best = { title: other, similarity };
  }
  return best;
}
