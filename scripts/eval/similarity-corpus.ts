/**
 * Writes the labelled pairs of the similarity eval (tests/fixtures/similarity-pairs.jsonl) from
 * the hand-written videos of tests/fixtures/similarity-units.json (six niches, five videos each):
 *
 * - near-copies of each video: `title_only` (a new title, the same script and scenes), `reordered`
 *   (the body's sentences in another order, the same scenes in another order), `synonym_swapped`
 *   (words swapped for synonyms in every text and scene prompt), `reworded` (synonyms, one body
 *   sentence dropped, two swapped, a new title, one scene dropped);
 * - honest variations: every pair of different videos of the same niche.
 *
 * A scene stands for its content hash by its prompt (the same prompt in the same style has the same
 * scene_hash). Deterministic: running it again writes the same file.
 *
 *   bun scripts/eval/similarity-corpus.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";

const BaseUnit = z.object({
  niche: z.string(),
  title: z.string(),
  alt_title: z.string(),
  sentences: z.array(z.string()).min(5),
  scenes: z.array(z.string()).min(3),
}).strict();
type BaseUnit = z.infer<typeof BaseUnit>;

/** A video of a pair: its title, hook (the narration's first sentence), narration and scene prompts. */
export const PairUnit = z.object({ title: z.string(), hook: z.string(), narration: z.string(), scenes: z.array(z.string()) }).strict();
export type PairUnit = z.infer<typeof PairUnit>;
export const PAIR_KINDS = ["title_only", "reordered", "synonym_swapped", "reworded", "same_niche"] as const;
export const LabelledPair = z.object({ kind: z.enum(PAIR_KINDS), near_copy: z.boolean(), niche: z.string(), a: PairUnit, b: PairUnit }).strict();
export type LabelledPair = z.infer<typeof LabelledPair>;

const SYNONYMS: Record<string, string> = {
  reason: "cause",
  changed: "shifted",
  planet: "world",
  slowly: "gradually",
  made: "created",
  whole: "entire",
  really: "truly",
  image: "picture",
  fast: "quickly",
  large: "huge",
  collects: "gathers",
  wider: "broader",
  keeps: "holds",
  colder: "chillier",
  literally: "actually",
  nothing: "no thing",
  edge: "border",
  boundary: "limit",
  every: "each",
  stretch: "pull",
  predicts: "expects",
  understand: "grasp",
  best: "finest",
  only: "just",
  long: "far",
  faster: "quicker",
  raised: "lifted",
  acted: "worked",
  simply: "just",
  always: "forever",
  strange: "odd",
  wall: "side",
  essential: "vital",
  careful: "thorough",
  needs: "requires",
  crispy: "crunchy",
  skip: "miss",
  soft: "tender",
  tiny: "little",
  hot: "scorching",
  secret: "trick",
  fastest: "quickest",
  ruin: "spoil",
  releases: "lets out",
  deeper: "richer",
  cheapest: "least costly",
  almost: "nearly",
  break: "burst",
  mild: "weak",
  sharp: "keen",
  slows: "delays",
  perfect: "ideal",
  trick: "knack",
  constantly: "nonstop",
  small: "little",
  smooth: "even",
  better: "nicer",
  absorbs: "soaks up",
  pleasantly: "nicely",
  loosen: "thin",
  finished: "complete",
  built: "constructed",
  different: "various",
  wanted: "hoped",
  control: "limit",
  warn: "alert",
  distant: "faraway",
  communication: "messaging",
  copied: "duplicated",
  fortune: "lot",
  spread: "carried",
  stop: "halt",
  climbed: "rose",
  cheaper: "less costly",
  sailing: "travelling",
  several: "multiple",
  unusually: "oddly",
  disaster: "catastrophe",
  quickly: "rapidly",
  exactly: "precisely",
  travellers: "voyagers",
  routes: "paths",
  judge: "gauge",
  hinted: "suggested",
  near: "close",
  light: "nimble",
  big: "large",
  ache: "pain",
  harder: "tougher",
  grows: "gets",
  stronger: "tougher",
  fades: "eases",
  helps: "aids",
  started: "began",
  recent: "new",
  benefits: "gains",
  drop: "fall",
  steadily: "consistently",
  beats: "tops",
  useful: "helpful",
  briefly: "shortly",
  prepare: "ready",
  raises: "lifts",
  main: "chief",
  steady: "stable",
  repeated: "constant",
  variety: "range",
  strain: "stress",
  builds: "grows",
  speeds: "hurries",
  recover: "heal",
  listen: "hear",
  creates: "generates",
  opposite: "inverse",
  works: "functions",
  wears: "runs",
  damage: "harm",
  leaves: "drops",
  longer: "further",
  tells: "shows",
  stores: "holds",
  damaged: "harmed",
  ordinary: "plain",
  thin: "fine",
  shiny: "glossy",
  draws: "etches",
  hiding: "concealed",
  masks: "hides",
  shorten: "shrink",
  show: "appear",
  sip: "drink",
  patiently: "slowly",
  solve: "crack",
  escape: "flee",
  hidden: "secret",
  connected: "linked",
  flow: "move",
  feed: "nourish",
  happy: "content",
  hurt: "injured",
  comes: "arises",
  help: "aid",
  fine: "well",
  picture: "image",
  weak: "faint",
};

function swapWords(text: string): string {
  return text.replace(/\p{L}+/gu, (word) => {
    const swap = SYNONYMS[word.toLowerCase()];
    if (!swap) return word;
    return word[0] === word[0].toUpperCase() ? swap[0].toUpperCase() + swap.slice(1) : swap;
  });
}

function asPair(title: string, sentences: readonly string[], scenes: readonly string[]): PairUnit {
  return { title, hook: sentences[0], narration: sentences.join(" "), scenes: [...scenes] };
}

function nearCopies(unit: BaseUnit): { kind: (typeof PAIR_KINDS)[number]; copy: PairUnit }[] {
  const { sentences, scenes } = unit;
  const body = sentences.slice(1, -1);
  const last = sentences[sentences.length - 1];
  const reworded = [swapWords(sentences[0]), ...body.slice(1).map(swapWords)];
  [reworded[1], reworded[2]] = [reworded[2], reworded[1]];
  return [
    { kind: "title_only", copy: asPair(unit.alt_title, sentences, scenes) },
    { kind: "reordered", copy: asPair(unit.title, [sentences[0], ...[...body].reverse(), last], [...scenes].reverse()) },
    { kind: "synonym_swapped", copy: asPair(swapWords(unit.title), sentences.map(swapWords), scenes.map(swapWords)) },
    { kind: "reworded", copy: asPair(unit.alt_title, [...reworded, swapWords(last)], [scenes[0], ...scenes.slice(2).map(swapWords)]) },
  ];
}

export function buildPairs(units: readonly BaseUnit[]): LabelledPair[] {
  const pairs: LabelledPair[] = [];
  for (const unit of units) {
    const original = asPair(unit.title, unit.sentences, unit.scenes);
    for (const { kind, copy } of nearCopies(unit)) pairs.push({ kind, near_copy: true, niche: unit.niche, a: original, b: copy });
  }
  for (const [i, a] of units.entries()) {
    for (const b of units.slice(i + 1)) {
      if (a.niche !== b.niche) continue;
      pairs.push({
        kind: "same_niche",
        near_copy: false,
        niche: a.niche,
        a: asPair(a.title, a.sentences, a.scenes),
        b: asPair(b.title, b.sentences, b.scenes),
      });
    }
  }
  return pairs;
}

if (import.meta.main) {
  const units = z.array(BaseUnit).parse(JSON.parse(readFileSync(new URL("../../tests/fixtures/similarity-units.json", import.meta.url), "utf8")));
  const pairs = buildPairs(units);
  const out = new URL("../../tests/fixtures/similarity-pairs.jsonl", import.meta.url).pathname;
  writeFileSync(out, pairs.map((p) => JSON.stringify(p)).join("\n") + "\n");
  console.log(`${pairs.length} pairs (${pairs.filter((p) => p.near_copy).length} near-copies) written to ${out}`);
}
