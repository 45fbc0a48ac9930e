import type { WordTiming } from "../shared/contracts/media.ts";

/**
 * Burned-in captions: words grouped into short cues, written as an ASS script that libass renders
 * inside the YouTube Shorts safe zone of a 1080x1920 frame.
 */

/** Regions of a 1080x1920 Shorts frame that the player's own UI covers. */
export const SAFE_ZONE = { width: 1080, height: 1920, top: 288, bottom: 672, left: 48, right: 192 } as const;

/** Caption layout, in ASS script pixels (PlayRes = the frame size). */
export const CAPTION_LAYOUT = {
  fontSize: 72,
  /** Long words shrink down to this size before they are broken across lines. */
  minFontSize: 44,
  /** Alignment 2 (bottom centre) between these margins. */
  marginL: 80,
  marginR: 224,
  /** Bottom of the text box sits at PlayResY - marginV = 1220, clear of the bottom 672 px. */
  marginV: 700,
  outline: 4,
  shadow: 0,
  maxWords: 4,
  /** A cue stays up this long after its last word ends, unless the next cue starts first. */
  lingerMs: 300,
  /** A pause this long between words starts a new cue. */
  pauseMs: 700,
  maxLines: 4,
} as const;

/**
 * Advance widths in em, grouped and rounded up from DejaVu Sans Bold (the default caption font).
 * libass sizes fonts by cell height (ascent + descent = 1.164 em for DejaVu), so 1 em = size / 1.164.
 */
const CELL_HEIGHT_EM = 1.164;
const WIDTH_CLASSES: Array<[number, string]> = [
  [0.4, " ilj'.,:;|/\\IJ`"],
  [0.53, "ftr()[]-_!\"*{}’‘"],
  [0.72, "abcdeghknopqsuvxyz0123456789?$€ELTF¿"],
  [0.88, "ABCDGHKNOPQRSUVXYZ#+<=>^~&“”ß£"],
  [1.11, "mwMW@%—…"],
];
const CHAR_WIDTH_EM = new Map<string, number>(WIDTH_CLASSES.flatMap(([w, chars]) => [...chars].map((c) => [c, w] as [string, number])));
/** Anything not in the table (CJK, emoji, other scripts) is assumed wider than any Latin letter. */
const UNKNOWN_CHAR_EM = 1.25;
/** Headroom for hinting, kerning and fonts a dimension may pick instead of DejaVu. */
const WIDTH_SAFETY = 1.05;

function charWidthEm(ch: string): number {
  const known = CHAR_WIDTH_EM.get(ch);
  if (known !== undefined) return known;
  // Accented Latin letters are as wide as their base letter.
  const base = ch.normalize("NFD")[0];
  return (base && base !== ch ? CHAR_WIDTH_EM.get(base) : undefined) ?? UNKNOWN_CHAR_EM;
}

/** Estimated rendered width of one line in script pixels, outline excluded. */
export function estimateTextWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) em += charWidthEm(ch);
  return (em * fontSize * WIDTH_SAFETY) / CELL_HEIGHT_EM;
}

/** Width a line may take: between the margins, minus the outline on both sides. */
export const LINE_WIDTH_BUDGET = SAFE_ZONE.width - CAPTION_LAYOUT.marginL - CAPTION_LAYOUT.marginR - 2 * (CAPTION_LAYOUT.outline + CAPTION_LAYOUT.shadow);

export interface CaptionCue {
  start_ms: number;
  end_ms: number;
  /** Plain text (not escaped), one entry per rendered line; usually one. */
  lines: string[];
  font_size: number;
  /** How many spoken words the cue shows. */
  word_count: number;
}

const SENTENCE_END = /[.!?…;:,]["'”’»)\]]*$/u;

function normaliseWord(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

/** Splits `items` into `parts` runs of near-equal length, longer runs first. */
function balancedRuns<T>(items: T[], parts: number): T[][] {
  const runs: T[][] = [];
  let at = 0;
  for (let p = 0; p < parts; p++) {
    const size = Math.ceil((items.length - at) / (parts - p));
    runs.push(items.slice(at, at + size));
    at += size;
  }
  return runs;
}

/** Splits a group until each fits the line budget at full size (a single word may not). */
function fitGroup<T extends { text: string }>(group: T[], fontSize: number): T[][] {
  const text = group.map((w) => w.text).join(" ");
  if (group.length === 1 || estimateTextWidth(text, fontSize) <= LINE_WIDTH_BUDGET) return [group];
  return balancedRuns(group, 2).flatMap((half) => fitGroup(half, fontSize));
}

/** The largest size, at most the full size, at which every line fits the budget. */
function fittingSize(lines: string[]): number {
  const { fontSize } = CAPTION_LAYOUT;
  const widest = Math.max(...lines.map((l) => estimateTextWidth(l, fontSize)));
  let size = Math.min(fontSize, Math.floor((fontSize * LINE_WIDTH_BUDGET) / widest));
  while (size > 1 && lines.some((l) => estimateTextWidth(l, size) > LINE_WIDTH_BUDGET)) size--;
  return size;
}

/**
 * Lays out one cue's text: one line at full size if it fits, else one line shrunk down to
 * minFontSize, else the text cut into the fewest balanced, hyphenated lines that fit (a very long
 * word), at most maxLines, the last one ending with an ellipsis when even that is not enough.
 */
function layoutText(text: string): { lines: string[]; font_size: number } {
  const { minFontSize, maxLines } = CAPTION_LAYOUT;
  const single = fittingSize([text]);
  if (single >= minFontSize) return { lines: [text], font_size: single };
  const chars = [...text];
  for (let count = 2; count <= maxLines; count++) {
    const lines = balancedRuns(chars, count).map((run, i) => run.join("") + (i < count - 1 ? "-" : ""));
    const size = fittingSize(lines);
    if (size >= minFontSize) return { lines, font_size: size };
  }
  // Too long even for maxLines: fill the lines greedily and end the last one with an ellipsis.
  const lines: string[] = [];
  let line = "";
  for (const ch of chars) {
    if (line && estimateTextWidth(`${line}${ch}-`, minFontSize) > LINE_WIDTH_BUDGET) {
      lines.push(`${line}-`);
      line = "";
      if (lines.length === maxLines) break;
    }
    line += ch;
  }
  if (lines.length < maxLines) return { lines: [...lines, line], font_size: minFontSize };
  let last = lines[maxLines - 1].slice(0, -1);
  while (last.length > 0 && estimateTextWidth(`${last}…`, minFontSize) > LINE_WIDTH_BUDGET) last = [...last].slice(0, -1).join("");
  lines[maxLines - 1] = `${last}…`;
  return { lines, font_size: minFontSize };
}

/**
 * Groups words into cues of 1-4 words. A cue never runs past punctuation that ends a sentence or
 * clause, nor across a long pause, and is split further when it would be too wide. Each cue shows
 * from its first word's offset until the next cue starts or its last word ends + lingerMs,
 * whichever comes first, and never past `endLimitMs`.
 */
export function groupCaptionCues(words: readonly WordTiming[], options: { endLimitMs?: number } = {}): CaptionCue[] {
  const { maxWords, lingerMs, pauseMs, fontSize } = CAPTION_LAYOUT;
  const items = words
    .map((w) => ({ text: normaliseWord(w.text), start: w.offset_ms, end: w.offset_ms + w.duration_ms }))
    .filter((w) => w.text.length > 0);

  const phrases: (typeof items)[] = [];
  let current: typeof items = [];
  for (const [i, word] of items.entries()) {
    const previous = items[i - 1];
    if (current.length > 0 && previous && word.start - previous.end >= pauseMs) {
      phrases.push(current);
      current = [];
    }
    current.push(word);
    if (SENTENCE_END.test(word.text)) {
      phrases.push(current);
      current = [];
    }
  }
  if (current.length > 0) phrases.push(current);

  const groups = phrases.flatMap((phrase) => balancedRuns(phrase, Math.ceil(phrase.length / maxWords)).flatMap((g) => fitGroup(g, fontSize)));

  const cues: CaptionCue[] = [];
  for (const [i, group] of groups.entries()) {
    const start = group[0].start;
    const next = groups[i + 1]?.[0].start ?? Number.POSITIVE_INFINITY;
    let end = Math.min(next, group[group.length - 1].end + lingerMs);
    if (options.endLimitMs !== undefined) end = Math.min(end, options.endLimitMs);
    if (end - start < 10) continue;
    cues.push({ start_ms: start, end_ms: end, word_count: group.length, ...layoutText(group.map((w) => w.text).join(" ")) });
  }
  return cues;
}

/** Estimated box of a cue's glyphs (outline included) on the 1080x1920 frame. */
export function estimateCueBox(cue: CaptionCue): { left: number; right: number; top: number; bottom: number } {
  const { marginL, marginR, marginV, outline, shadow } = CAPTION_LAYOUT;
  const centre = (marginL + SAFE_ZONE.width - marginR) / 2;
  const half = Math.max(...cue.lines.map((l) => estimateTextWidth(l, cue.font_size))) / 2 + outline + shadow;
  const bottom = SAFE_ZONE.height - marginV + outline + shadow;
  return { left: centre - half, right: centre + half, top: bottom - cue.lines.length * cue.font_size - 2 * outline, bottom };
}

/**
 * Escapes text for an ASS Dialogue line: `{`/`}` would open override blocks and `\` starts
 * escapes such as `\N`. Braces take libass's `\{` `\}` escapes; a backslash is followed by a
 * WORD JOINER (U+2060, zero width) so it can never combine with the next character.
 */
export function escapeAssText(text: string): string {
  return text.replace(/\\/g, "\\\u2060").replace(/[{}]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, " ");
}

/** ASS time: H:MM:SS.cc (centiseconds). */
export function formatAssTime(ms: number): string {
  const cs = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  const c = cs % 100;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(c).padStart(2, "0")}`;
}

/** The ASS script for the cues: bold white text with a dark outline, no automatic wrapping. */
export function buildAssSubtitles(cues: readonly CaptionCue[], options: { fontName: string; title?: string }): string {
  const { fontSize, marginL, marginR, marginV, outline, shadow } = CAPTION_LAYOUT;
  // A comma would shift the Style fields; the font name is configuration, not caption text.
  const font = options.fontName.replace(/[,\r\n]/g, " ").trim() || "DejaVu Sans";
  const title = (options.title ?? "MD-AME captions").replace(/[\r\n]/g, " ");
  const header = [
    "[Script Info]",
    `Title: ${title}`,
    "ScriptType: v4.00+",
    `PlayResX: ${SAFE_ZONE.width}`,
    `PlayResY: ${SAFE_ZONE.height}`,
    // 2 = no automatic wrapping: line breaks are decided here, against the width budget.
    "WrapStyle: 2",
    "ScaledBorderAndShadow: yes",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    `Style: Caption,${font},${fontSize},&H00FFFFFF,&H00FFFFFF,&H00141414,&H80000000,-1,0,0,0,100,100,0,0,1,${outline},${shadow},2,${marginL},${marginR},${marginV},1`,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
  ];
  const events = cues.map((cue) => {
    const size = cue.font_size === fontSize ? "" : `{\\fs${cue.font_size}}`;
    const text = cue.lines.map(escapeAssText).join("\\N");
    return `Dialogue: 0,${formatAssTime(cue.start_ms)},${formatAssTime(cue.end_ms)},Caption,,0,0,0,,${size}${text}`;
  });
  return `${[...header, ...events].join("\n")}\n`;
}
