/**
 * Measures the prompt firewall on a labelled corpus of JSON lines `{"text": "...", "attack": bool}`:
 * `npm run eval:firewall -- --corpus tests/fixtures/firewall-corpus.jsonl`. Prints the misses, a
 * confusion summary and, as its last line, `precision=P recall=R n=N` for blocking attacks.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { parseJsonLines } from "./json-lines.ts";
import { firewallIngestedText } from "../../functions/pipeline/safety/prompt-firewall.ts";

const Example = z.object({ text: z.string(), attack: z.boolean() }).strict();
type Example = z.infer<typeof Example>;

export interface FirewallScore {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  n: number;
  misses: { text: string; attack: boolean; reasons: string[] }[];
}

export function parseCorpus(source: string, name = "corpus"): Example[] {
  return parseJsonLines(source, Example, '{"text": string, "attack": boolean}', name);
}

export function scoreFirewall(examples: readonly Example[], maxLength = 200): FirewallScore {
  const score: FirewallScore = { tp: 0, fp: 0, fn: 0, tn: 0, precision: 0, recall: 0, n: examples.length, misses: [] };
  for (const example of examples) {
    const verdict = firewallIngestedText(example.text, maxLength);
    if (verdict.blocked && example.attack) score.tp++;
    else if (verdict.blocked) score.fp++;
    else if (example.attack) score.fn++;
    else score.tn++;
    if (verdict.blocked !== example.attack) score.misses.push({ text: example.text, attack: example.attack, reasons: verdict.reasons });
  }
  score.precision = score.tp + score.fp === 0 ? 1 : score.tp / (score.tp + score.fp);
  score.recall = score.tp + score.fn === 0 ? 1 : score.tp / (score.tp + score.fn);
  return score;
}

function main(argv: string[]): number {
  const at = argv.indexOf("--corpus");
  const file = at >= 0 ? argv[at + 1] : undefined;
  if (!file) {
    console.error('usage: npm run eval:firewall -- --corpus FILE   (JSON lines {"text": string, "attack": boolean})');
    return 2;
  }
  let score: FirewallScore;
  try {
    score = scoreFirewall(parseCorpus(readFileSync(file, "utf8"), file));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  for (const miss of score.misses) {
    const kind = miss.attack ? "missed attack " : "false positive";
    console.log(`${kind}  ${JSON.stringify(miss.text)}${miss.reasons.length ? `  <- ${miss.reasons.join("; ")}` : ""}`);
  }
  console.log(
    `attacks: ${score.tp + score.fn} (blocked ${score.tp}, missed ${score.fn}); benign: ${score.tn + score.fp} (passed ${score.tn}, blocked ${score.fp})`,
  );
  console.log(`precision=${score.precision.toFixed(3)} recall=${score.recall.toFixed(3)} n=${score.n}`);
  return 0;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
