import { describe, expect, test } from "bun:test";
import type { WordTiming } from "../../shared/contracts/media.ts";
import {
  assertCaptionsInside,
  buildAssSubtitles,
  CAPTION_STYLE,
  captionBoxes,
  type CaptionCue,
  CaptionLayoutError,
  escapeAssText,
  formatAssTime,
  layoutCaptions,
  lineText,
  wordStates,
} from "../../render-runner/captions.ts";
import { captionFontMetrics, ESTIMATED_METRICS } from "../../render-runner/font-metrics.ts";
import { captionBoxViolations, PLATFORM_MARGINS, safeZone, zoneRect } from "../../render-runner/safe-zones.ts";

const metrics = captionFontMetrics("DejaVu Sans");
const zone = safeZone("intersection");
const layout = (words: WordTiming[], options: { profile?: Parameters<typeof safeZone>[0]; endLimitMs?: number } = {}) =>
  layoutCaptions(words, { zone: safeZone(options.profile ?? "intersection"), metrics, endLimitMs: options.endLimitMs });

/** Lays words out back to back: each lasts 250 ms with a 50 ms gap. */
function timed(text: string, gapMs = 50): WordTiming[] {
  let at = 0;
  return text.split(" ").map((t) => {
    const w = { text: t, offset_ms: at, duration_ms: 250 };
    at += 250 + gapMs;
    return w;
  });
}

const cueText = (cue: CaptionCue) => cue.lines.map(lineText).join(" ");
const dialogues = (ass: string) => ass.split("\n").filter((l) => l.startsWith("Dialogue:"));
/** The text field of a Dialogue line (everything after the ninth comma). */
const dialogueText = (line: string) => line.split(",").slice(9).join(",");

test("the caption font's own widths are read: DejaVu Sans Bold, wide capitals, narrow i", () => {
  expect(metrics.source).toContain("DejaVuSans-Bold");
  // DejaVu Sans Bold: W advances 2259/2048 em, i 702/2048; libass's 72 px is the 2384-unit cell.
  expect(metrics.measure("W", 72)).toBeCloseTo((2259 / 2384) * 72 * 1.02, 0);
  expect(metrics.measure("WWWW", 72)).toBeGreaterThan(metrics.measure("iiii", 72) * 2.5);
  // The per-character estimate, used only without a font file, is never narrower.
  for (const text of ["Hello world", "WOW MMMM", "Octopuses have three hearts."]) {
    expect(ESTIMATED_METRICS.measure(text, 72)).toBeGreaterThanOrEqual(metrics.measure(text, 72));
  }
});

describe("grouping", () => {
  test("cues hold at most six words and never run past sentence or clause punctuation", () => {
    const text = "Octopuses have three hearts. Two pump blood to the gills, one to the rest of the body and all of its eight arms! Why?";
    const cues = layout(timed(text));
    expect(cues.map(cueText).join(" ")).toBe(text);
    for (const cue of cues) {
      expect(cue.words.length).toBeLessThanOrEqual(CAPTION_STYLE.maxWords);
      for (const word of cue.words.slice(0, -1)) expect(word.text).not.toMatch(/[.!?,]$/);
    }
  });

  test("a long pause starts a new cue", () => {
    const words = [
      { text: "Wait", offset_ms: 0, duration_ms: 300 },
      { text: "for", offset_ms: 1500, duration_ms: 200 },
      { text: "it", offset_ms: 1750, duration_ms: 200 },
    ];
    expect(layout(words).map((c) => c.words.map((w) => w.text))).toEqual([["Wait"], ["for", "it"]]);
  });

  test("each cue runs from its first word to the next cue or its last word + 300 ms, capped by the video end", () => {
    const words = [
      { text: "One.", offset_ms: 0, duration_ms: 420 },
      { text: "Two", offset_ms: 500, duration_ms: 200 },
      { text: "three.", offset_ms: 720, duration_ms: 300 },
      { text: "Four", offset_ms: 2000, duration_ms: 400 },
    ];
    expect(layout(words, { endLimitMs: 2500 }).map((c) => [c.start_ms, c.end_ms])).toEqual([[0, 500], [500, 1320], [2000, 2500]]);
  });
});

describe("word highlight", () => {
  const words = [
    { text: "Octopuses", offset_ms: 100, duration_ms: 500 },
    { text: "have", offset_ms: 650, duration_ms: 200 },
    { text: "three", offset_ms: 900, duration_ms: 250 },
    { text: "hearts.", offset_ms: 1300, duration_ms: 400 },
  ];

  test("exactly one word is lit at a time, each from its own start until the next word starts", () => {
    const [cue] = layout(words);
    expect(wordStates(cue)).toEqual([
      { word: 0, start_ms: 100, end_ms: 650 },
      { word: 1, start_ms: 650, end_ms: 900 },
      { word: 2, start_ms: 900, end_ms: 1300 },
      { word: 3, start_ms: 1300, end_ms: 2000 }, // the last word stays lit through the 300 ms linger
    ]);
  });

  test("the ASS has one Dialogue per word-state, the same phrase in each, the spoken word in the highlight colour", () => {
    const cues = layout(words);
    const lines = dialogues(buildAssSubtitles(cues, { fontName: "DejaVu Sans", zone }));
    expect(lines.map((l) => l.split(",").slice(1, 3).join("-"))).toEqual([
      "0:00:00.10-0:00:00.65",
      "0:00:00.65-0:00:00.90",
      "0:00:00.90-0:00:01.30",
      "0:00:01.30-0:00:02.00",
    ]);
    const hi = `{\\1c${CAPTION_STYLE.highlightColour}&}`;
    for (const [i, line] of lines.entries()) {
      const text = dialogueText(line);
      expect(text.split(hi)).toHaveLength(2);
      expect(text.split(hi)[1].startsWith(words[i].text)).toBe(true);
      // Stripped of overrides, every state shows the same phrase, at the same place.
      expect(text.replace(/\{[^}]*\}/g, "").replace("\\N", " ")).toBe("Octopuses have three hearts.");
      expect(text).toStartWith(lines[0].split(",").slice(9).join(",").slice(0, text.indexOf("}") + 1));
    }
  });

  test("the style is bold white with a dark outline, phone-sized, with no automatic wrapping", () => {
    const ass = buildAssSubtitles(layout(timed("Hello there.")), { fontName: "DejaVu, Sans", zone, title: "A title\nwith a newline" });
    expect(ass).toContain("PlayResX: 1080\nPlayResY: 1920\n");
    expect(ass).toContain("WrapStyle: 2\n");
    expect(ass).toContain("Title: A title with a newline\n");
    const style = ass.split("\n").find((l) => l.startsWith("Style: "))!.slice("Style: ".length).split(",");
    const format = ass.split("\n").find((l, i, all) => l.startsWith("Format:") && all[i + 1]?.startsWith("Style:"))!.slice("Format: ".length).split(", ");
    const field = (name: string) => style[format.indexOf(name)];
    expect(style).toHaveLength(format.length);
    expect(field("Fontname")).toBe("DejaVu  Sans");
    expect(Number(field("Fontsize"))).toBeGreaterThanOrEqual(64);
    expect(Number(field("Fontsize"))).toBeLessThanOrEqual(80);
    expect(field("PrimaryColour")).toBe("&H00FFFFFF");
    expect(field("Bold")).toBe("-1");
    expect(Number(field("Outline"))).toBeGreaterThanOrEqual(3);
  });

  test("ASS special characters are escaped so text cannot inject overrides or line breaks", () => {
    expect(escapeAssText("{\\b1}bold")).toBe("\\{\\\u2060b1\\}bold");
    expect(escapeAssText("C:\\New")).toBe("C:\\\u2060New");
    expect(escapeAssText("a\nb")).toBe("a b");
    const lines = dialogues(buildAssSubtitles(layout(timed("{\\fs200}huge \\N")), { fontName: "DejaVu Sans", zone }));
    for (const line of lines) {
      const text = dialogueText(line).replace(/\{(\\(an2|pos\(\d+,\d+\)|fs\d+|1c&H[0-9A-F]{8}&))+\}/g, "");
      expect(text).not.toMatch(/(^|[^\\])[{}]/);
      expect(text).not.toMatch(/\\[A-Za-z]/);
    }
  });

  test("ASS times are H:MM:SS.cc", () => {
    expect(formatAssTime(0)).toBe("0:00:00.00");
    expect(formatAssTime(61_234)).toBe("0:01:01.23");
    expect(formatAssTime(3_600_000 + 5)).toBe("1:00:00.01");
  });
});

describe("line breaking", () => {
  test("a short phrase is one line at full size; a longer one two balanced lines at full size", () => {
    const [short] = layout(timed("Three hearts."));
    expect(short.lines.map(lineText)).toEqual(["Three hearts."]);
    expect(short.font_size).toBe(CAPTION_STYLE.fontSize);
    const [long] = layout(timed("Two pump blood to the gills,"));
    expect(long.lines.map(lineText)).toEqual(["Two pump blood", "to the gills,"]);
    expect(long.font_size).toBe(CAPTION_STYLE.fontSize);
  });

  test("a phrase too wide for two lines is shrunk, then split into more cues", () => {
    const [shrunk] = layout(timed("WWWWWW MMMMMM WWWWWW MMMMMM"));
    expect(shrunk.lines).toHaveLength(2);
    expect(shrunk.font_size).toBeLessThan(CAPTION_STYLE.fontSize);
    expect(shrunk.font_size).toBeGreaterThanOrEqual(CAPTION_STYLE.minFontSize);
    const split = layout(timed("WWWWWW MMMMMM WWWWWW MMMMMM WWWWWW MMMMMM"));
    expect(split.length).toBeGreaterThan(1);
    expect(split.flatMap((c) => c.words.map((w) => w.text)).join(" ")).toBe("WWWWWW MMMMMM WWWWWW MMMMMM WWWWWW MMMMMM");
  });

  test("a word wider than a line is hyphenated over two lines and both halves light up together", () => {
    const [cue] = layout(timed("Supercalifragilisticexpialidocious!"));
    expect(cue.lines.map(lineText)).toEqual(["Supercalifragilist-", "icexpialidocious!"]);
    const [line] = dialogues(buildAssSubtitles([cue], { fontName: "DejaVu Sans", zone }));
    expect(dialogueText(line).split(`{\\1c${CAPTION_STYLE.highlightColour}&}`)).toHaveLength(3);
  });

  test("no cue has more than two lines, and every box lies inside its zone, however long or wide the words", () => {
    const nasty = [
      "WWWW MMMM WWWW MMMM",
      "Incomprehensibilities happen",
      "Supercalifragilisticexpialidocious!",
      "tiny a b c",
      "Ini adalah kalimat bahasa Indonesia yang cukup panjang sekali.",
    ];
    for (const profile of ["intersection", "youtube_shorts", "tiktok", "reels"] as const) {
      for (const text of nasty) {
        const cues = layout(timed(text), { profile });
        for (const cue of cues) expect(cue.lines.length).toBeLessThanOrEqual(CAPTION_STYLE.maxLines);
        expect(captionBoxViolations(captionBoxes(cues), safeZone(profile))).toEqual([]);
        expect(() => assertCaptionsInside(cues, safeZone(profile))).not.toThrow();
      }
    }
  });

  test("a cue that cannot fit even hyphenated at the smallest size fails, named with its time and edge", () => {
    const words = [...timed("Fine words."), { text: "X".repeat(60), offset_ms: 2000, duration_ms: 900 }];
    const cues = layout(words, { profile: "tiktok" });
    const error = (() => {
      try {
        assertCaptionsInside(cues, safeZone("tiktok"));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CaptionLayoutError);
    expect((error as Error).message).toMatch(
      /^caption cue 1 "X{30}- \/ X{30}" at 2\.00 s lies outside the tiktok safe zone \(x 150-930, y 150-1480\): left edge -?\d+ < 150, right edge \d+ > 930$/,
    );
  });
});

describe("safe-zone profiles", () => {
  test("the intersection keeps the widest margin of every platform on each side", () => {
    expect(zoneRect(safeZone("intersection"))).toEqual({ left: 150, right: 1080 - 192, top: 288, bottom: 1920 - 672 });
    for (const side of ["top", "bottom", "left", "right"] as const) {
      expect(safeZone("intersection")[side]).toBe(Math.max(...Object.values(PLATFORM_MARGINS).map((m) => m[side])));
    }
  });

  test("each profile centres its captions in its own zone, just above its bottom edge", () => {
    const words = timed("Octopuses have three hearts.");
    for (const profile of ["intersection", "youtube_shorts", "tiktok", "reels"] as const) {
      const r = zoneRect(safeZone(profile));
      const [box] = captionBoxes(layout(words, { profile }));
      expect(box.left).toBeGreaterThanOrEqual(r.left);
      expect(box.right).toBeLessThanOrEqual(r.right);
      expect(box.top).toBeGreaterThanOrEqual(r.top);
      expect(box.bottom).toBe(r.bottom - CAPTION_STYLE.bottomPadding);
      expect(Math.abs((box.left + box.right) / 2 - (r.left + r.right) / 2)).toBeLessThanOrEqual(1);
    }
    // TikTok's bottom overlay is the shortest, so its captions sit lowest; YouTube's right column pushes them left.
    const bottom = (p: "tiktok" | "youtube_shorts" | "reels") => captionBoxes(layout(words, { profile: p }))[0].bottom;
    expect(bottom("tiktok")).toBeGreaterThan(bottom("reels"));
    const centre = (p: "tiktok" | "youtube_shorts") => {
      const [b] = captionBoxes(layout(words, { profile: p }));
      return (b.left + b.right) / 2;
    };
    expect(centre("youtube_shorts")).toBeLessThan(centre("tiktok"));
  });
});
