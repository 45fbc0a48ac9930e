/**
 * How alike two videos of a channel are (docs/reference/similarity.md): the title, the hook and the
 * script each compared as the Jaccard index of their word shingles, estimated from MinHash
 * signatures (minhash.ts), and the visuals as the Jaccard index of the scenes' content hashes; the
 * combined score is the larger of the texts' weighted sum and the scenes' overlap.
 */
import type { ContentSignature, SimilarityFigures, StoredSignature } from "../contracts/similarity.ts";
import { titleTokens } from "../topics/near-duplicate.ts";
import { jaccard } from "../topics/near-duplicate.ts";
import { comparableWords, estimateJaccard, minhash, shingles } from "./minhash.ts";

/** Words per shingle: a title's content words one by one, a hook's in pairs, a script's in threes. */
export const SHINGLE_WORDS = { title: 1, hook: 2, script: 3 } as const;
/** Weights of the texts in the combined score; they sum to 1. */
export const TEXT_WEIGHTS = { script: 0.7, hook: 0.15, title: 0.15 } as const;

/** What the guard compares of a unit: its accepted script's texts and its scenes' content hashes. */
export interface ComparableContent {
  title: string;
  hook: string;
  narration: string;
  sceneHashes: readonly string[];
}

/** The unit's signature, as stored once it passes the guard. */
export function contentSignature(content: ComparableContent): ContentSignature {
  return {
    title: minhash(shingles(titleTokens(content.title), SHINGLE_WORDS.title)),
    hook: minhash(shingles(comparableWords(content.hook), SHINGLE_WORDS.hook)),
    script: minhash(shingles(comparableWords(content.narration), SHINGLE_WORDS.script)),
    scene_hashes: [...new Set(content.sceneHashes)],
  };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** Scenes overlap only where both videos have scenes. */
function sceneOverlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  return jaccard(new Set(a), new Set(b));
}

/** The figures of two signatures: each part's estimate and the combined score (docs/reference/similarity.md). */
export function compareSignatures(a: ContentSignature, b: ContentSignature): SimilarityFigures {
  const title = estimateJaccard(a.title, b.title);
  const hook = estimateJaccard(a.hook, b.hook);
  const script = estimateJaccard(a.script, b.script);
  const scenes = sceneOverlap(a.scene_hashes, b.scene_hashes);
  const text = TEXT_WEIGHTS.script * script + TEXT_WEIGHTS.hook * hook + TEXT_WEIGHTS.title * title;
  return { title: round4(title), hook: round4(hook), script: round4(script), scenes: round4(scenes), combined: round4(Math.max(text, scenes)) };
}

/** The stored signature closest to `signature` by combined score, with its figures; undefined when there is none. */
export function closestSignature(
  signature: ContentSignature,
  published: readonly StoredSignature[],
): { unit_id: string; title: string; figures: SimilarityFigures } | undefined {
  let best: { unit_id: string; title: string; figures: SimilarityFigures } | undefined;
  for (const other of published) {
    const figures = compareSignatures(signature, other.signature);
    if (!best || figures.combined > best.figures.combined) best = { unit_id: other.unit_id, title: other.title, figures };
  }
  return best;
}
