/**
 * Evaluates the near-duplicate title test on the labelled pairs of tests/fixtures/near-duplicates.jsonl
 * (`{"a","b","duplicate","lang"}` per line): precision and recall over a sweep of thresholds, per
 * language at the chosen one, and as its last line `precision=P recall=R n=N` at the threshold the
 * ingest stage uses (NEAR_DUPLICATE_THRESHOLD).
 *
 *   npm run eval:near-dup [-- --file <pairs.jsonl>]
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { z } from "zod";
import { NEAR_DUPLICATE_THRESHOLD, titleSimilarity } from "../../shared/topics/near-duplicate.ts";

const Pair = z.object({ a: z.string().min(1), b: z.string().min(1), duplicate: z.boolean(), lang: z.enum(["en", "id"]) }).strict();
type Scored = z.infer<typeof Pair> & { similarity: number };

export function loadPairs(file: string): Scored[] {
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line, i) => {
    const parsed = Pair.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join(".")} ${x.message}`).join("; ")}`);
    return { ...parsed.data, similarity: titleSimilarity(parsed.data.a, parsed.data.b) };
  });
}

export function measure(pairs: readonly { similarity: number; duplicate: boolean }[], threshold: number) {
  let tp = 0, fp = 0, fn = 0;
  for (const pair of pairs) {
    const predicted = pair.similarity >= threshold;
    if (predicted && pair.duplicate) tp++;
    else if (predicted) fp++;
    else if (pair.duplicate) fn++;
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { threshold, precision, recall, f1, tp, fp, fn, n: pairs.length };
}

if (import.meta.main) {
  const at = process.argv.indexOf("--file");
  const file = at > 0 ? process.argv[at + 1] : new URL("../../tests/fixtures/near-duplicates.jsonl", import.meta.url).pathname;
  const pairs = loadPairs(file);
  const f = (x: number) => x.toFixed(3);
  console.log(`near-duplicate titles: ${pairs.length} labelled pairs (${pairs.filter((p) => p.duplicate).length} duplicates) from ${file}`);
  console.log("threshold precision recall f1     tp  fp  fn");
  for (let t = 0.3; t <= 0.901; t += 0.05) {
    const m = measure(pairs, Math.round(t * 100) / 100);
    const mark = Math.abs(m.threshold - NEAR_DUPLICATE_THRESHOLD) < 1e-9 ? "  <- chosen" : "";
    console.log(
      `${m.threshold.toFixed(2).padEnd(9)} ${f(m.precision).padEnd(9)} ${f(m.recall).padEnd(6)} ${f(m.f1)}  ${String(m.tp).padStart(3)} ${
        String(m.fp).padStart(3)
      } ${String(m.fn).padStart(3)}${mark}`,
    );
  }
  for (const lang of ["en", "id"] as const) {
    const m = measure(pairs.filter((p) => p.lang === lang), NEAR_DUPLICATE_THRESHOLD);
    console.log(`${lang}: precision=${f(m.precision)} recall=${f(m.recall)} n=${m.n}`);
  }
  const errors = pairs.filter((p) => (p.similarity >= NEAR_DUPLICATE_THRESHOLD) !== p.duplicate);
  for (const e of errors) console.log(`  ${e.duplicate ? "missed" : "false "} ${e.similarity.toFixed(3)}  "${e.a}" / "${e.b}"`);
  const chosen = measure(pairs, NEAR_DUPLICATE_THRESHOLD);
  console.log(`precision=${f(chosen.precision)} recall=${f(chosen.recall)} n=${chosen.n}`);
}
