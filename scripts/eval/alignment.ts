/**
 * `npm run eval:alignment`: how far the word alignment used for Gemini TTS (which gives no word
 * timings) puts each word's start from the truth, over a corpus of English and Indonesian scripts
 * spoken by espeak-ng with known word boundaries (scripts/eval/alignment-corpus.ts). Prints median
 * and p95 absolute start-time error per language and rendition; `--write` also records them in
 * docs/reports/benchmarks.md (its "Word alignment" section).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, release, totalmem, type as osType } from "node:os";
import process from "node:process";
import { alignWords } from "../../shared/providers/tts/word-alignment.ts";
import { quantile } from "../../shared/stats.ts";
import { replaceBlock } from "../bench/doc-blocks.ts";
import { type AlignmentSample, corpus, PCM_RATE, renderSample, startErrors } from "./alignment-corpus.ts";
import { BENCHMARKS_DOC } from "../docs/doc-paths.ts";

const TARGET = { median: 80, p95: 200 };

function machine(): string {
  const cpu = cpus()[0]?.model?.trim() ?? "unknown cpu";
  const espeak = (spawnSync("espeak-ng", ["--version"], { encoding: "utf8" }).stdout ?? "").match(/[\d.]+/)?.[0] ?? "unknown";
  return `${osType()} ${release()}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Bun ${
    process.versions.bun ?? "-"
  }, espeak-ng ${espeak}`;
}

const items = corpus();
console.log(
  `eval: ${items.length} scripts (${items.filter((i) => i.language === "en").length} en, ${
    items.filter((i) => i.language === "id").length
  } id), two renditions each`,
);
const samples: AlignmentSample[] = [];
for (const item of items) samples.push(...await renderSample(item));

type Row = { group: string; words: number; median: number; p95: number; max: number; alignMs: number; audioS: number };
const errorsBy = new Map<string, number[]>();
const timeBy = new Map<string, { alignMs: number; audioS: number }>();
for (const sample of samples) {
  const t0 = performance.now();
  const aligned = alignWords(sample.pcm, PCM_RATE, sample.text);
  const alignMs = performance.now() - t0;
  const errors = startErrors(aligned, sample.starts);
  for (const group of [`${sample.rendition} ${sample.language}`, `${sample.rendition} all`]) {
    errorsBy.set(group, [...(errorsBy.get(group) ?? []), ...errors]);
    const t = timeBy.get(group) ?? { alignMs: 0, audioS: 0 };
    timeBy.set(group, { alignMs: t.alignMs + alignMs, audioS: t.audioS + sample.pcm.length / PCM_RATE });
  }
}
const rows: Row[] = [...errorsBy.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([group, errors]) => ({
  group,
  words: errors.length,
  median: quantile(errors, 0.5),
  p95: quantile(errors, 0.95),
  max: Math.max(...errors),
  ...timeBy.get(group)!,
}));

const table = [
  "| speech | words | median ms | p95 ms | max ms | align time / audio time |",
  "|---|---|---|---|---|---|",
  ...rows.map((r) =>
    `| ${r.group} | ${r.words} | ${r.median.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.max.toFixed(0)} | ${(r.alignMs / 1000 / r.audioS).toFixed(4)} |`
  ),
];
console.log(table.join("\n"));
const headline = rows.find((r) => r.group === "emulator all")!;
const connected = rows.find((r) => r.group === "connected all")!;
const met = headline.median <= TARGET.median && headline.p95 <= TARGET.p95;
console.log(
  `eval: emulator speech median ${headline.median.toFixed(0)} ms, p95 ${headline.p95.toFixed(0)} ms (target ${TARGET.median} / ${TARGET.p95}: ${
    met ? "met" : "NOT met"
  }); connected speech median ${connected.median.toFixed(0)} ms, p95 ${connected.p95.toFixed(0)} ms`,
);

if (process.argv.includes("--write")) {
  const path = BENCHMARKS_DOC;
  const now = new Date().toISOString().slice(0, 16).replace("T", " ");
  const section = [
    "<!-- alignment:start -->",
    "## Word alignment (Gemini TTS voice tracks)",
    "",
    `Measured ${now} UTC on ${machine()}.`,
    "Command: `npm run eval:alignment -- --write` (scripts/eval/alignment.ts).",
    "",
    `${items.length} scripts, English and Indonesian (hand-written ones with numbers and punctuation, and the Gemini emulator's narrations`,
    "for the trend fixtures' topics), at rates from -10% to +10%, spoken by espeak-ng through the Edge TTS emulator's speech code, which",
    "knows every word's start to the sample, and resampled to 24 kHz s16le as Gemini TTS sends it. The aligner sees only the PCM and",
    "the script. Error: |aligned start - true start| per word.",
    "",
    "- `emulator`: the speech exactly as both TTS emulators make it (a short gap, about 40 ms, after every word).",
    "- `connected`: the same speech with the gaps between words that have no punctuation removed, so words run into each other",
    "  as in natural speech and only punctuation leaves pauses: closer to what the real Gemini TTS sends.",
    "",
    ...table,
    "",
    `Target (median <= ${TARGET.median} ms, p95 <= ${TARGET.p95} ms on the emulator's speech): **${met ? "met" : "not met"}**` +
    ` (${headline.median.toFixed(0)} / ${headline.p95.toFixed(0)} ms). Connected speech: ${connected.median.toFixed(0)} / ${connected.p95.toFixed(0)} ms.`,
    "<!-- alignment:end -->",
    "",
  ].join("\n");
  const current = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n";
  writeFileSync(path, replaceBlock(current, "alignment", section));
  console.log("eval: written to docs/reports/benchmarks.md");
}
