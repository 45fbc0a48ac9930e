/**
 * MinHash signatures of word shingles: a fixed-size summary of a text from which the Jaccard index
 * of two texts' shingle sets is estimated without the texts (docs/reference/similarity.md).
 *
 * A text is folded as the topic de-duplication folds titles (shared/topics/near-duplicate.ts:
 * Unicode NFKD, accents and punctuation dropped, lower case, a plural `s` trimmed); its shingles are
 * the runs of `n` consecutive words. Each shingle is hashed once to 32 bits (FNV-1a over its UTF-8
 * bytes), and the signature holds, for each of MINHASH_SIZE seeded 32-bit mixers (murmur3's
 * finaliser over the hash xor a seed), the smallest mixed value over the shingles. The seeds come
 * from a fixed seed, so a signature stored today compares with one computed next year.
 */
import { MINHASH_SIZE } from "../contracts/similarity.ts";
import { foldText, stem } from "../topics/near-duplicate.ts";

/** The seed of the mixers' seeds; changing it (or MINHASH_SIZE) makes every stored signature incomparable. */
export const MINHASH_SEED = 0x5eed_34;
/** A signature of MINHASH_SIZE signed 32-bit integers (as Postgres `integer[]` stores them). */
export type MinHashSignature = number[];

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const SEEDS: readonly number[] = (() => {
  const next = mulberry32(MINHASH_SEED);
  return Array.from({ length: MINHASH_SIZE }, () => next());
})();

const encoder = new TextEncoder();

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The text's words as compared: folded and stemmed. */
export function comparableWords(text: string): string[] {
  return foldText(text).map(stem);
}

/** The set of runs of `n` consecutive words (all the words as one shingle when there are fewer than `n`). */
export function shingles(words: readonly string[], n: number): Set<string> {
  const out = new Set<string>();
  if (words.length === 0) return out;
  if (words.length <= n) {
    out.add(words.join(" "));
    return out;
  }
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(" "));
  return out;
}

/** The MinHash signature of a set of shingles; an empty set has the signature of one empty shingle. */
export function minhash(set: ReadonlySet<string>): MinHashSignature {
  const hashes = set.size === 0 ? [fnv1a("")] : [...set].map(fnv1a);
  return SEEDS.map((seed) => {
    let min = 0xffffffff;
    for (const hash of hashes) {
      const mixed = mix(hash ^ seed);
      if (mixed < min) min = mixed;
    }
    return min | 0;
  });
}

/** The estimated Jaccard index of the two signatures' sets: the share of positions where they agree. */
export function estimateJaccard(a: MinHashSignature, b: MinHashSignature): number {
  if (a.length !== b.length || a.length === 0) throw new Error(`signatures of ${a.length} and ${b.length} values cannot be compared`);
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}
