import { describe, expect, test } from "bun:test";
import { alignSceneStarts } from "../../functions/pipeline/stages/voice-alignment.ts";

function timings(words: string[]) {
  return words.map((text, i) => ({ text, offset_ms: i * 400, duration_ms: 350 }));
}

describe("alignSceneStarts", () => {
  test("maps scene starts onto spoken words one to one", () => {
    const scenes = ["Hello there world.", "Second scene here.", "And the end."];
    const spoken = timings("Hello there world Second scene here And the end".split(" "));
    expect(alignSceneStarts(scenes, spoken)).toEqual([0, 3, 6]);
  });

  test("follows the voice when it splits tokens differently", () => {
    // The voice reads "3D-printed" as two words and drops the dash.
    const scenes = ["3D-printed homes are here.", "They cost less.", "Really."];
    const spoken = timings(["3D", "printed", "homes", "are", "here", "They", "cost", "less", "Really"]);
    expect(alignSceneStarts(scenes, spoken)).toEqual([0, 5, 8]);
  });

  test("keeps scenes in order with at least one word each when words run out", () => {
    const scenes = ["one two", "three", "four", "five"];
    const spoken = timings(["one", "two", "three"]);
    const starts = alignSceneStarts(scenes, spoken);
    expect(starts[0]).toBe(0);
    for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThanOrEqual(starts[i - 1]);
    expect(Math.max(...starts)).toBeLessThanOrEqual(2);
  });
});
