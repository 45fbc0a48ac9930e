/**
 * Evaluates the channel-standing guard's similarity (shared/similarity/content.ts) on the labelled
 * pairs of tests/fixtures/similarity-pairs.jsonl (written by scripts/eval/similarity-corpus.ts):
 * near-copies (title only, reordered, synonym-swapped, reworded) against honest variations (other
 * videos of the same niche). Prints a threshold sweep, the figures at the default threshold
 * (DEFAULT_SIMILARITY.threshold), each kind's recall or false-positive rate, the misjudged pairs,
 * and as its last line `precision=P recall=R f1=F n=N`.
 *
 *   npm run eval:similarity [-- --file <pairs.jsonl>]
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import process from "node:process";
import { DEFAULT_SIMILARITY, type SimilarityFigures } from "../../shared/contracts/similarity.ts";
import { compareSignatures, contentSignature } from "../../shared/similarity/content.ts";
import { LabelledPair, PAIR_KINDS, type PairUnit } from "./similarity-corpus.ts";
import { measure } from "./near-dup.ts";

export type ScoredPair = LabelledPair & { figures: SimilarityFigures; similarity: number; duplicate: boolean };

/** A scene prompt stands for its scene_hash: the same prompt in the same style hashes the same. */
const sceneHashOf = (prompt: string) => createHash("sha256").update(prompt).digest("hex");

function signatureOf(unit: PairUnit) {
  return contentSignature({ title: unit.title, hook: unit.hook, narration: unit.narration, sceneHashes: unit.scenes.map(sceneHashOf) });
}

export function loadScoredPairs(file: string): ScoredPair[] {
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line, i) => {
    const parsed = LabelledPair.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join(".")} ${x.message}`).join("; ")}`);
    const figures = compareSignatures(signatureOf(parsed.data.a), signatureOf(parsed.data.b));
    return { ...parsed.data, figures, similarity: figures.combined, duplicate: parsed.data.near_copy };
  });
}

export const DEFAULT_PAIRS_FILE = new URL("../../tests/fixtures/similarity-pairs.jsonl", import.meta.url).pathname;

if (import.meta.main) {
  const at = process.argv.indexOf("--file");
  const file = at > 0 ? process.argv[at + 1] : DEFAULT_PAIRS_FILE;
  const pairs = loadScoredPairs(file);
  const threshold = DEFAULT_SIMILARITY.threshold;
  const f = (x: number) => x.toFixed(3);
  console.log(`channel similarity: ${pairs.length} labelled pairs (${pairs.filter((p) => p.near_copy).length} near-copies) from ${file}`);
  console.log("threshold precision recall f1     tp  fp  fn");
  for (let t = 0.1; t <= 0.901; t += 0.05) {
    const m = measure(pairs, Math.round(t * 100) / 100);
    const mark = Math.abs(m.threshold - threshold) < 1e-9 ? "  <- default" : "";
    console.log(
      `${m.threshold.toFixed(2).padEnd(9)} ${f(m.precision).padEnd(9)} ${f(m.recall).padEnd(6)} ${f(m.f1)}  ${String(m.tp).padStart(3)} ${
        String(m.fp).padStart(3)
      } ${String(m.fn).padStart(3)}${mark}`,
    );
  }
  for (const kind of PAIR_KINDS) {
    const of = pairs.filter((p) => p.kind === kind);
    const flagged = of.filter((p) => p.similarity >= threshold).length;
    const scores = of.map((p) => p.similarity).sort((a, b) => a - b);
    console.log(
      `${kind.padEnd(16)} n=${String(of.length).padStart(3)} flagged=${f(flagged / of.length)} min=${f(scores[0])} max=${f(scores[scores.length - 1])}`,
    );
  }
  for (const e of pairs.filter((p) => (p.similarity >= threshold) !== p.near_copy)) {
    const { title, hook, script, scenes } = e.figures;
    console.log(
      `  ${e.near_copy ? "missed" : "false "} ${
        f(e.similarity)
      } ${e.kind} (title ${title} hook ${hook} script ${script} scenes ${scenes}) "${e.a.title}" / "${e.b.title}"`,
    );
  }
  const chosen = measure(pairs, threshold);
  console.log(`precision=${f(chosen.precision)} recall=${f(chosen.recall)} f1=${f(chosen.f1)} n=${chosen.n}`);
}
