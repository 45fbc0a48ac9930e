/**
 * The channel-standing guard's similarity (shared/similarity): the MinHash estimate, each part's
 * shingles, the combined score's formula as docs/reference/similarity.md states it, and the eval's
 * figures on the labelled corpus held above a floor.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ContentSignature, DEFAULT_SIMILARITY } from "../../shared/contracts/similarity.ts";
import { closestSignature, compareSignatures, contentSignature, TEXT_WEIGHTS } from "../../shared/similarity/content.ts";
import { estimateJaccard, minhash, shingles } from "../../shared/similarity/minhash.ts";
import { MINHASH_SIZE } from "../../shared/contracts/similarity.ts";
import { jaccard } from "../../shared/topics/near-duplicate.ts";
import { buildPairs } from "../../scripts/eval/similarity-corpus.ts";
import { DEFAULT_PAIRS_FILE, loadScoredPairs } from "../../scripts/eval/similarity.ts";
import { measure } from "../../scripts/eval/near-dup.ts";
import { scriptPrompt } from "../../functions/pipeline/stages/prompts.ts";
import { answerPrompt } from "../../emulators/gemini/routes.ts";

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const hash = (c: string) => c.repeat(64);

describe("minhash", () => {
  test("the estimate follows the exact Jaccard index of the shingle sets within its error", () => {
    // 100 shared words and 50 of each side's own: 100 / 200 = 0.5.
    const a = new Set([...words(100, "s"), ...words(50, "a")]);
    const b = new Set([...words(100, "s"), ...words(50, "b")]);
    expect(jaccard(a, b)).toBe(0.5);
    expect(Math.abs(estimateJaccard(minhash(a), minhash(b)) - 0.5)).toBeLessThan(0.15);
    expect(estimateJaccard(minhash(a), minhash(a))).toBe(1);
    expect(estimateJaccard(minhash(new Set(words(50, "x"))), minhash(new Set(words(50, "y"))))).toBeLessThan(0.1);
  });

  test("a signature is fixed by its seed: the same set gives the same signed 32-bit values on any run", () => {
    const signature = minhash(new Set(["northern light", "light tonight"]));
    expect(signature).toHaveLength(MINHASH_SIZE);
    expect(signature).toEqual(minhash(new Set(["light tonight", "northern light"])));
    for (const value of signature) expect(value === (value | 0)).toBe(true);
    // Pinned: a change of seed or hash would make every stored signature incomparable.
    expect(signature.slice(0, 3)).toEqual([895748020, 183069111, 593395879]);
    expect(ContentSignature.shape.title.parse(signature)).toEqual(signature);
  });

  test("shingles are runs of n words; fewer words than n make one shingle", () => {
    expect([...shingles(["a", "b", "c", "d"], 3)]).toEqual(["a b c", "b c d"]);
    expect([...shingles(["a", "b"], 3)]).toEqual(["a b"]);
    expect(shingles([], 2).size).toBe(0);
  });
});

describe("compareSignatures", () => {
  const base = { title: "Why Mars turned red", hook: "Mars was not always red.", narration: words(80, "w").join(" "), sceneHashes: [hash("a"), hash("b")] };

  test("a copy scores 1 on every part", () => {
    expect(compareSignatures(contentSignature(base), contentSignature(base))).toEqual({ title: 1, hook: 1, script: 1, scenes: 1, combined: 1 });
  });

  test("combined = max(0.7 script + 0.15 hook + 0.15 title, scenes)", () => {
    const other = { title: "Bedtime in orbit", hook: "Sleeping in space is odd.", narration: words(80, "z").join(" "), sceneHashes: [hash("a"), hash("c")] };
    const f = compareSignatures(contentSignature(base), contentSignature(other));
    expect(f.scenes).toBeCloseTo(1 / 3, 4);
    const text = TEXT_WEIGHTS.script * f.script + TEXT_WEIGHTS.hook * f.hook + TEXT_WEIGHTS.title * f.title;
    expect(f.combined).toBeCloseTo(Math.max(text, f.scenes), 3);
    expect(TEXT_WEIGHTS.script + TEXT_WEIGHTS.hook + TEXT_WEIGHTS.title).toBeCloseTo(1, 10);
  });

  test("a new title on the same script is still too similar; the same visuals alone are too", () => {
    const retitled = compareSignatures(contentSignature(base), contentSignature({ ...base, title: "The rusty secret of the red planet" }));
    expect(retitled.combined).toBeGreaterThanOrEqual(DEFAULT_SIMILARITY.threshold);
    const sameVisuals = compareSignatures(
      contentSignature(base),
      contentSignature({ title: "Other", hook: "Other hook here.", narration: words(80, "q").join(" "), sceneHashes: base.sceneHashes }),
    );
    expect(sameVisuals.combined).toBe(1);
  });

  test("scenes count only when both videos have some", () => {
    expect(compareSignatures(contentSignature({ ...base, sceneHashes: [] }), contentSignature({ ...base, narration: "x", sceneHashes: [] })).scenes).toBe(0);
  });

  test("the closest of several stored signatures, by combined score", () => {
    const stored = [
      { unit_id: crypto.randomUUID(), title: "far", signature: contentSignature({ ...base, title: "x", hook: "y", narration: "z", sceneHashes: [hash("f")] }) },
      { unit_id: crypto.randomUUID(), title: "near", signature: contentSignature({ ...base, title: "Why Mars is red" }) },
    ];
    expect(closestSignature(contentSignature(base), stored)?.title).toBe("near");
    expect(closestSignature(contentSignature(base), [])).toBeUndefined();
  });
});

describe("a rewrite's prompt", () => {
  const input = { language: "en", topic: "How tides work", context: [] as string[], candidate: 1, round: 0, words: { min: 95, max: 150 } };

  test("names the pass and the titles to stay away from, as data; a first script's prompt has neither", () => {
    const again = scriptPrompt({ ...input, regeneration: { pass: 1, avoid: ["How tides work, explained"] } });
    expect(again).toContain("REGENERATION: 1");
    expect(again).toMatch(/^AVOID: .*How.*tides.*work.*explained/m);
    expect(again).toContain("take another angle");
    expect(scriptPrompt(input)).not.toMatch(/REGENERATION|AVOID|another angle/);
  });

  test("is a new prompt, so the model writes another script instead of the cache returning the copy", () => {
    // The emulated model may wrap its JSON in a fence or prose, as a real one does: the object is read from its braces.
    const answer = (prompt: string) => {
      const text = answerPrompt("gemini-2.5-flash", prompt, { temperature: 0.5 });
      return JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
    };
    const first = answer(scriptPrompt(input));
    const again = answer(scriptPrompt({ ...input, regeneration: { pass: 1, avoid: [first.title] } }));
    expect(again.narration).not.toBe(first.narration);
  });
});

describe("eval:similarity", () => {
  test("the committed pairs are what the corpus script writes from the hand-written videos", () => {
    const units = JSON.parse(readFileSync(new URL("../fixtures/similarity-units.json", import.meta.url), "utf8"));
    const written = readFileSync(DEFAULT_PAIRS_FILE, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(written).toEqual(buildPairs(units));
    expect(written.length).toBeGreaterThanOrEqual(150);
  });

  test("at the default threshold the guard keeps precision and recall above their floors", () => {
    const pairs = loadScoredPairs(DEFAULT_PAIRS_FILE);
    const m = measure(pairs, DEFAULT_SIMILARITY.threshold);
    expect(m.precision).toBeGreaterThanOrEqual(0.97);
    expect(m.recall).toBeGreaterThanOrEqual(0.9);
    // No honest variation of a niche comes near the threshold.
    expect(Math.max(...pairs.filter((p) => !p.near_copy).map((p) => p.similarity))).toBeLessThan(DEFAULT_SIMILARITY.threshold / 2);
  });
});
