import { expect, test } from "bun:test";
import type { WordTiming } from "../../shared/contracts/media.ts";
import {
  buildAssSubtitles,
  CAPTION_LAYOUT,
  type CaptionCue,
  escapeAssText,
  estimateCueBox,
  estimateTextWidth,
  formatAssTime,
  groupCaptionCues,
  LINE_WIDTH_BUDGET,
  SAFE_ZONE,
} from "../../render-runner/captions.ts";

/** Lays words out back to back: each lasts 250 ms with a 50 ms gap. */
function timed(text: string, gapMs = 50): WordTiming[] {
  let at = 0;
  return text.split(" ").map((t) => {
    const w = { text: t, offset_ms: at, duration_ms: 250 };
    at += 250 + gapMs;
    return w;
  });
}

function cueWords(cues: CaptionCue[]): string[][] {
  return cues.map((c) => c.lines.join("").split(" "));
}

function assertInsideSafeZone(cue: CaptionCue) {
  const box = estimateCueBox(cue);
  expect(box.left).toBeGreaterThanOrEqual(SAFE_ZONE.left);
  expect(box.right).toBeLessThanOrEqual(SAFE_ZONE.width - SAFE_ZONE.right);
  expect(box.top).toBeGreaterThanOrEqual(SAFE_ZONE.top);
  expect(box.bottom).toBeLessThanOrEqual(SAFE_ZONE.height - SAFE_ZONE.bottom);
  for (const line of cue.lines) expect(estimateTextWidth(line, cue.font_size)).toBeLessThanOrEqual(LINE_WIDTH_BUDGET);
}

test("cues hold 1-4 words and never run past sentence or clause punctuation", () => {
  const text = "Octopuses have three hearts. Two pump blood to the gills, one to the rest of the body! Why? Nobody knows for certain; scientists keep asking: how did it evolve…";
  const cues = groupCaptionCues(timed(text));
  const groups = cueWords(cues);
  expect(groups.flat()).toEqual(text.split(" "));
  for (const group of groups) {
    expect(group.length).toBeGreaterThanOrEqual(1);
    expect(group.length).toBeLessThanOrEqual(CAPTION_LAYOUT.maxWords);
    // Only the last word of a cue may end with punctuation.
    for (const word of group.slice(0, -1)) expect(word).not.toMatch(/[.!?…;:,]["'”’»)\]]*$/u);
  }
  expect(groups).toContainEqual(["Why?"]);
  expect(groups.map((g) => g.at(-1))).toEqual(expect.arrayContaining(["hearts.", "gills,", "body!", "certain;", "asking:"]));
});

test("long phrases are split evenly instead of leaving a one-word remainder", () => {
  const cues = groupCaptionCues(timed("one two three four five"));
  expect(cueWords(cues).map((g) => g.length)).toEqual([3, 2]);
});

test("a long pause starts a new cue", () => {
  const words: WordTiming[] = [
    { text: "wait", offset_ms: 0, duration_ms: 200 },
    { text: "for", offset_ms: 250, duration_ms: 200 },
    { text: "it", offset_ms: 1500, duration_ms: 200 },
  ];
  expect(cueWords(groupCaptionCues(words))).toEqual([["wait", "for"], ["it"]]);
});

test("each cue runs from its first word to the next cue or its last word + 300 ms, never overlapping", () => {
  const words: WordTiming[] = [
    { text: "Fast", offset_ms: 0, duration_ms: 200 },
    { text: "words.", offset_ms: 220, duration_ms: 200 },
    { text: "Then", offset_ms: 500, duration_ms: 200 },
    { text: "silence.", offset_ms: 720, duration_ms: 300 },
    { text: "End.", offset_ms: 2000, duration_ms: 400 },
  ];
  const cues = groupCaptionCues(words, { endLimitMs: 2500 });
  expect(cues.map((c) => [c.start_ms, c.end_ms])).toEqual([
    [0, 500], // next cue starts before 420 + 300
    [500, 1320], // last word ends at 1020, + 300
    [2000, 2500], // 2400 + 300 capped by the video end
  ]);
  for (let i = 1; i < cues.length; i++) expect(cues[i].start_ms).toBeGreaterThanOrEqual(cues[i - 1].end_ms);
});

test("ASS special characters are escaped so text cannot inject overrides or line breaks", () => {
  expect(escapeAssText("{\\b1}bold")).toBe("\\{\\\u2060b1\\}bold");
  expect(escapeAssText("C:\\New")).toBe("C:\\\u2060New");
  expect(escapeAssText("a\nb")).toBe("a b");
  const ass = buildAssSubtitles(
    [{ start_ms: 0, end_ms: 1000, lines: ["{\\fs200}huge \\N"], font_size: 72, word_count: 2 }],
    { fontName: "DejaVu Sans" },
  );
  const dialogue = ass.split("\n").find((l) => l.startsWith("Dialogue:"))!;
  const text = dialogue.split(",").slice(9).join(",");
  // No unescaped brace and no backslash directly followed by a letter.
  expect(text).not.toMatch(/(^|[^\\])[{}]/);
  expect(text).not.toMatch(/\\[A-Za-z]/);
});

test("the ASS script has the frame's resolution, bold white outlined text, no wrapping and safe margins", () => {
  const cues = groupCaptionCues(timed("Hello there."));
  const ass = buildAssSubtitles(cues, { fontName: "DejaVu, Sans", title: "A title\nwith a newline" });
  expect(ass).toContain("PlayResX: 1080\nPlayResY: 1920\n");
  expect(ass).toContain("WrapStyle: 2\n");
  expect(ass).toContain("Title: A title with a newline\n");
  const style = ass.split("\n").find((l) => l.startsWith("Style: "))!.slice("Style: ".length).split(",");
  const format = ass.split("\n").find((l, i, all) => l.startsWith("Format:") && all[i + 1]?.startsWith("Style:"))!.slice("Format: ".length).split(", ");
  const field = (name: string) => style[format.indexOf(name)];
  expect(style).toHaveLength(format.length);
  expect(field("Fontname")).toBe("DejaVu  Sans");
  expect(Number(field("Fontsize"))).toBe(72);
  expect(field("PrimaryColour")).toBe("&H00FFFFFF");
  expect(field("Bold")).toBe("-1");
  expect(Number(field("Outline"))).toBeGreaterThan(0);
  expect(field("Alignment")).toBe("2");
  expect(Number(field("MarginV"))).toBeGreaterThanOrEqual(700);
  expect(Number(field("MarginL"))).toBeGreaterThanOrEqual(80);
  expect(Number(field("MarginR"))).toBeGreaterThanOrEqual(224);
  expect(ass).toContain(`Dialogue: 0,0:00:00.00,0:00:00.85,Caption,,0,0,0,,Hello there.`);
});

test("ASS times are H:MM:SS.cc", () => {
  expect(formatAssTime(0)).toBe("0:00:00.00");
  expect(formatAssTime(61_234)).toBe("0:01:01.23");
  expect(formatAssTime(3_600_000 + 5)).toBe("1:00:00.01");
});

test("the width estimate is the widest glyphs' for capitals and a safe default for unknown scripts", () => {
  expect(estimateTextWidth("WWWW", 72)).toBeGreaterThan(estimateTextWidth("iiii", 72) * 2.5);
  expect(estimateTextWidth("é", 72)).toBe(estimateTextWidth("e", 72));
  expect(estimateTextWidth("漢", 72)).toBeGreaterThanOrEqual(estimateTextWidth("W", 72));
  // DejaVu Sans Bold "W" is 1.103 em and libass's 72 is a 1.164 em cell: 68.2 px; the estimate covers it.
  expect(estimateTextWidth("W", 72)).toBeGreaterThanOrEqual(68.2);
});

test("every cue stays inside the safe zone, however long or wide its words", () => {
  const nasty = [
    "WWWW MMMM WWWW MMMM",
    "Pneumonoultramicroscopicsilicovolcanoconiosis",
    "Supercalifragilisticexpialidocious!",
    "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "日本語のテキストはとても長くなることがありますので注意が必要です",
    "tiny a b c",
  ];
  for (const text of nasty) {
    const cues = groupCaptionCues(timed(text));
    expect(cues.length).toBeGreaterThan(0);
    for (const cue of cues) {
      assertInsideSafeZone(cue);
      expect(cue.font_size).toBeGreaterThanOrEqual(CAPTION_LAYOUT.minFontSize);
      expect(cue.font_size).toBeLessThanOrEqual(CAPTION_LAYOUT.fontSize);
      expect(cue.lines.length).toBeLessThanOrEqual(CAPTION_LAYOUT.maxLines);
    }
  }
  // A long word shrinks before it breaks; a monstrous one breaks over several lines.
  const shrunk = groupCaptionCues(timed("Incomprehensibilities!"))[0];
  expect(shrunk.lines).toHaveLength(1);
  expect(shrunk.font_size).toBeLessThan(CAPTION_LAYOUT.fontSize);
  const broken = groupCaptionCues(timed("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ"))[0];
  expect(broken.lines.length).toBeGreaterThan(1);
  expect(broken.lines.slice(0, -1).every((l) => l.endsWith("-"))).toBe(true);
  expect(broken.lines.map((l, i, all) => (i < all.length - 1 ? l.slice(0, -1) : l)).join("")).toBe("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ");
  const truncated = groupCaptionCues(timed("X".repeat(400)))[0];
  expect(truncated.lines).toHaveLength(CAPTION_LAYOUT.maxLines);
  expect(truncated.lines.at(-1)!.endsWith("…")).toBe(true);
  // Four wide words do not fit one line at full size, so they are split.
  expect(groupCaptionCues(timed("WWWW MMMM WWWW MMMM")).length).toBeGreaterThan(1);
});
