import { expect, test } from "bun:test";
import type { WordTiming } from "../../shared/contracts/media.ts";
import { computeTimeline, DEFAULT_TAIL_MS, TimelineError } from "../../render-runner/timeline.ts";
import { toTaskFailure } from "../../shared/worker/pull-worker.ts";

/** Words every 400 ms, each lasting 300 ms. */
function words(n: number, stepMs = 400): WordTiming[] {
  return Array.from({ length: n }, (_, i) => ({ text: `w${i}`, offset_ms: 120 + i * stepMs, duration_ms: 300 }));
}

function scenes(firstWords: number[]) {
  return firstWords.map((first_word, index) => ({ index, asset_key: `scenes/${String(index).repeat(64).slice(0, 64)}.mp4`, first_word }));
}

function assertCovers(timeline: ReturnType<typeof computeTimeline>) {
  const { scenes: slots } = timeline;
  expect(slots[0].start_ms).toBe(0);
  expect(slots[0].start_frame).toBe(0);
  for (let i = 1; i < slots.length; i++) {
    expect(slots[i].start_ms).toBe(slots[i - 1].end_ms);
    expect(slots[i].start_frame).toBe(slots[i - 1].start_frame + slots[i - 1].frames);
  }
  expect(slots.at(-1)!.end_ms).toBe(timeline.total_ms);
  expect(slots.reduce((sum, s) => sum + s.frames, 0)).toBe(timeline.total_frames);
  expect(slots.every((s) => s.frames >= 1 && s.end_ms > s.start_ms)).toBe(true);
}

test("scenes cover the whole audio plus tail with no gaps or overlaps", () => {
  const w = words(40);
  const audioMs = 16_500;
  const timeline = computeTimeline(w, scenes([0, 7, 15, 22, 31]), audioMs, { fps: 30 });
  assertCovers(timeline);
  expect(timeline.total_ms).toBe(audioMs + DEFAULT_TAIL_MS);
  expect(timeline.total_frames).toBe(Math.round(((audioMs + DEFAULT_TAIL_MS) * 30) / 1000));
  expect(timeline.scenes.map((s) => s.start_ms)).toEqual([0, w[7].offset_ms, w[15].offset_ms, w[22].offset_ms, w[31].offset_ms]);
  // Scene 0 starts at 0 even though its first word is spoken at 120 ms.
  expect(timeline.scenes[0].end_ms).toBe(w[7].offset_ms);
});

test("frame boundaries follow the word offsets rounded to the nearest frame", () => {
  const w: WordTiming[] = [
    { text: "a", offset_ms: 0, duration_ms: 100 },
    { text: "b", offset_ms: 1017, duration_ms: 100 },
    { text: "c", offset_ms: 2049, duration_ms: 100 },
  ];
  const timeline = computeTimeline(w, scenes([0, 1, 2]), 3000, { fps: 30, tailMs: 0 });
  assertCovers(timeline);
  expect(timeline.scenes.map((s) => s.start_frame)).toEqual([0, 31, 61]);
  expect(timeline.scenes.map((s) => s.frames)).toEqual([31, 30, 29]);
});

test("scenes are laid out by index even when listed out of order", () => {
  const w = words(10);
  const listed = [{ index: 1, asset_key: "scenes/b.mp4", first_word: 5 }, { index: 0, asset_key: "scenes/a.mp4", first_word: 0 }];
  const timeline = computeTimeline(w, listed, 5000);
  expect(timeline.scenes.map((s) => s.asset_key)).toEqual(["scenes/a.mp4", "scenes/b.mp4"]);
  assertCovers(timeline);
});

test("a single scene spans everything", () => {
  const timeline = computeTimeline(words(3), scenes([0]), 1500, { tailMs: 250 });
  assertCovers(timeline);
  expect(timeline.scenes).toHaveLength(1);
  expect(timeline.scenes[0].end_ms).toBe(1750);
});

test("impossible layouts are refused as non-retriable", () => {
  const w = words(10);
  const cases: Array<[number[], number, string]> = [
    [[0, 4, 4], 5000, "at least one frame apart"],
    [[0, 6, 3], 5000, "at least one frame apart"],
    [[0, 12], 5000, "there are 10 words"],
    [[0, 9], 3000, "past the audio end"],
  ];
  for (const [firstWords, audioMs, message] of cases) {
    let thrown: unknown;
    try {
      computeTimeline(w, scenes(firstWords), audioMs);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TimelineError);
    expect((thrown as TimelineError).message).toContain(message);
    expect(toTaskFailure(thrown)).toEqual({ message: (thrown as TimelineError).message, retriable: false });
  }
});
