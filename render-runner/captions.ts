import type { CaptionBox } from "../shared/contracts/captions.ts";
import type { WordTiming } from "../shared/contracts/media.ts";
import { NonRetriableError } from "../shared/errors.ts";
import type { FontMetrics } from "./font-metrics.ts";
import { captionBoxViolations, type SafeZone, zoneRect } from "./safe-zones.ts";

/**
 * Burned-in captions: the voice's words grouped into short phrases of one or two lines, bold white
 * with a dark outline, the word being spoken lit in the highlight colour as it is spoken. Each
 * cue's box is computed from the caption font's own advance widths and kept inside the dimension's
 * safe-zone profile; a cue that cannot be made to fit fails the render, named.
 */

/** Caption style and grouping, in ASS script pixels (PlayRes = the 1080x1920 frame). */
export const CAPTION_STYLE = {
  /** Phone-sized: about 6% of the frame's width per em. */
  fontSize: 72,
  /** A cue too wide at full size on two lines is shrunk, down to this size, before it is split. */
  minFontSize: 56,
  outline: 5,
  shadow: 0,
  maxLines: 2,
  /** Words per cue: enough for a phrase, few enough to read at a glance. */
  maxWords: 6,
  /** A cue stays up this long after its last word ends, unless the next cue starts first. */
  lingerMs: 300,
  /** A pause this long between words starts a new cue. */
  pauseMs: 700,
  /** Room kept between the text box and the zone's bottom edge and sides. */
  bottomPadding: 24,
  sidePadding: 16,
  /** ASS colours are &HAABBGGRR: white text, gold (#FFD700) for the word being spoken, near-black outline. */
  textColour: "&H00FFFFFF",
  highlightColour: "&H0000D7FF",
  outlineColour: "&H00101010",
} as const;

interface CaptionWord {
  text: string;
  start_ms: number;
  end_ms: number;
}

/** One piece of a rendered line: a word, or part of one broken across lines. */
export interface LinePiece {
  text: string;
  /** Index of the word it is (part of): in a cue's `words`, or among a cover title's words. Parts of one word join without a space. */
  word: number;
}

export interface CaptionCue {
  start_ms: number;
  end_ms: number;
  words: CaptionWord[];
  /** Rendered lines, one or two. */
  lines: LinePiece[][];
  font_size: number;
  /** Where its glyphs (outline included) land on the frame. */
  box: { left: number; top: number; right: number; bottom: number };
}

/** A cue lies outside the safe zone however it is wrapped or shrunk; retrying cannot help. */
export class CaptionLayoutError extends NonRetriableError {
  constructor(message: string) {
    super(message);
    this.name = "CaptionLayoutError";
  }
}

const SENTENCE_END = /[.!?…;:,]["'”’»)\]]*$/u;

export function lineText(line: readonly LinePiece[]): string {
  let text = "";
  for (const [i, piece] of line.entries()) text += (i > 0 && piece.word !== line[i - 1].word ? " " : "") + piece.text;
  return text;
}

/** Splits `items` into `parts` runs of near-equal length, longer runs first. */
function balancedRuns<T>(items: readonly T[], parts: number): T[][] {
  const runs: T[][] = [];
  let at = 0;
  for (let p = 0; p < parts; p++) {
    const size = Math.ceil((items.length - at) / (parts - p));
    runs.push(items.slice(at, at + size));
    at += size;
  }
  return runs;
}

interface LayoutContext {
  zone: SafeZone;
  metrics: FontMetrics;
  /** Widest a line may be: the zone's width less the side padding and the outline on both sides. */
  budget: number;
}

function widest(lines: LinePiece[][], size: number, metrics: FontMetrics): number {
  return Math.max(...lines.map((l) => metrics.measure(lineText(l), size)));
}

/**
 * `pieces` on `count` lines (fewer when there are fewer pieces), cut where the widest line is
 * narrowest; of cuts that tie, the first in reading order. A caption phrase takes two lines at
 * most, a cover's title three (cover-layout.ts).
 */
export function balancedLines(pieces: readonly LinePiece[], count: number, size: number, metrics: FontMetrics): LinePiece[][] {
  const n = pieces.length;
  const lines = Math.min(count, n);
  if (lines <= 1) return [[...pieces]];
  // Each run of pieces is measured once, however many cuts share it.
  const measured = new Map<number, number>();
  const width = (from: number, to: number) => {
    const key = from * (n + 1) + to;
    let w = measured.get(key);
    if (w === undefined) measured.set(key, w = metrics.measure(lineText(pieces.slice(from, to)), size));
    return w;
  };
  const best = { cuts: [] as number[], widest: Number.POSITIVE_INFINITY };
  const search = (from: number, left: number, cuts: number[], widestSoFar: number) => {
    // A later cut replaces the best only when narrower, so a branch already as wide is done.
    if (widestSoFar >= best.widest) return;
    if (left === 1) {
      const w = Math.max(widestSoFar, width(from, n));
      if (w < best.widest) Object.assign(best, { cuts, widest: w });
      return;
    }
    for (let cut = from + 1; cut <= n - left + 1; cut++) search(cut, left - 1, [...cuts, cut], Math.max(widestSoFar, width(from, cut)));
  };
  search(0, lines, [], 0);
  const edges = [0, ...best.cuts, n];
  return edges.slice(1).map((end, i) => pieces.slice(edges[i], end));
}

/** Word lines of a group: one line, or two split where the wider line is narrowest. */
function wordLineOptions(words: CaptionWord[], size: number, metrics: FontMetrics): LinePiece[][][] {
  const pieces = words.map((w, i) => ({ text: w.text, word: i }));
  return pieces.length > 1 ? [[pieces], balancedLines(pieces, 2, size, metrics)] : [[pieces]];
}

/** A single word too wide for any line: broken in two balanced, hyphenated halves. */
function brokenWord(word: CaptionWord): LinePiece[][] {
  const [head, tail] = balancedRuns([...word.text], 2);
  return [[{ text: `${head.join("")}-`, word: 0 }], [{ text: tail.join(""), word: 0 }]];
}

/**
 * The first layout that fits, in order of preference: one line at full size, two lines at full
 * size (three words or more), then each size down to minFontSize with one line, then two. Null when
 * none fits (the caller splits the group).
 */
function fitGroup(words: CaptionWord[], ctx: LayoutContext): { lines: LinePiece[][]; font_size: number } | null {
  const { fontSize, minFontSize } = CAPTION_STYLE;
  for (let size = fontSize; size >= minFontSize; size -= 2) {
    for (const lines of wordLineOptions(words, size, ctx.metrics)) {
      if (lines.length > 1 && words.length < 3 && size === fontSize) continue;
      if (widest(lines, size, ctx.metrics) <= ctx.budget) return { lines, font_size: size };
    }
  }
  return null;
}

function layoutGroup(words: CaptionWord[], ctx: LayoutContext): Array<{ words: CaptionWord[]; lines: LinePiece[][]; font_size: number }> {
  const fitted = fitGroup(words, ctx);
  if (fitted) return [{ words, ...fitted }];
  if (words.length > 1) return balancedRuns(words, 2).flatMap((half) => layoutGroup(half, ctx));
  // One word wider than a line even at the smallest size: hyphenated over two lines, shrunk as
  // needed; if even that is too wide, the box check names it.
  const lines = brokenWord(words[0]);
  let size: number = CAPTION_STYLE.fontSize;
  while (size > CAPTION_STYLE.minFontSize && widest(lines, size, ctx.metrics) > ctx.budget) size -= 2;
  return [{ words, lines, font_size: size }];
}

/** Where the cue's glyphs land: centred in the zone, bottom edge just above the zone's bottom. */
function cueBox(lines: LinePiece[][], size: number, ctx: LayoutContext): CaptionCue["box"] {
  const { outline, shadow } = CAPTION_STYLE;
  const anchor = captionAnchor(ctx.zone);
  const half = widest(lines, size, ctx.metrics) / 2 + outline + shadow;
  return { left: anchor.x - half, right: anchor.x + half, top: anchor.y - lines.length * size - outline, bottom: anchor.y + outline + shadow };
}

/** The \pos point of every cue (alignment 2, bottom centre) for a zone. */
function captionAnchor(zone: SafeZone): { x: number; y: number } {
  const r = zoneRect(zone);
  return { x: Math.round((r.left + r.right) / 2), y: r.bottom - CAPTION_STYLE.bottomPadding - CAPTION_STYLE.outline - CAPTION_STYLE.shadow };
}

/**
 * Groups words into cues and lays each out for `zone`. A cue never runs past punctuation that ends
 * a sentence or clause, nor across a long pause, holds at most maxWords words, and is re-wrapped,
 * shrunk or split until it fits. Each cue shows from its first word's start until the next cue
 * starts or its last word ends + lingerMs, whichever comes first, never past `endLimitMs`.
 */
export function layoutCaptions(
  timings: readonly WordTiming[],
  options: { zone: SafeZone; metrics: FontMetrics; endLimitMs?: number },
): CaptionCue[] {
  const { maxWords, lingerMs, pauseMs, outline, shadow, sidePadding } = CAPTION_STYLE;
  const r = zoneRect(options.zone);
  const ctx: LayoutContext = { zone: options.zone, metrics: options.metrics, budget: r.right - r.left - 2 * (sidePadding + outline + shadow) };
  const words = timings
    .map((w) => ({ text: w.text.replace(/\s+/gu, " ").trim(), start_ms: w.offset_ms, end_ms: w.offset_ms + w.duration_ms }))
    .filter((w) => w.text.length > 0);

  const phrases: CaptionWord[][] = [];
  let current: CaptionWord[] = [];
  for (const [i, word] of words.entries()) {
    const previous = words[i - 1];
    if (current.length > 0 && previous && word.start_ms - previous.end_ms >= pauseMs) {
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

  const groups = phrases.flatMap((p) => balancedRuns(p, Math.ceil(p.length / maxWords)).flatMap((g) => layoutGroup(g, ctx)));
  const cues: CaptionCue[] = [];
  for (const [i, group] of groups.entries()) {
    const start = group.words[0].start_ms;
    const next = groups[i + 1]?.words[0].start_ms ?? Number.POSITIVE_INFINITY;
    let end = Math.min(next, group.words[group.words.length - 1].end_ms + lingerMs);
    if (options.endLimitMs !== undefined) end = Math.min(end, options.endLimitMs);
    if (end - start < 10) continue;
    cues.push({
      start_ms: start,
      end_ms: end,
      words: group.words,
      lines: group.lines,
      font_size: group.font_size,
      box: cueBox(group.lines, group.font_size, ctx),
    });
  }
  return cues;
}

/** The cues' boxes as the quality gate and the safe-zone check read them. */
export function captionBoxes(cues: readonly CaptionCue[]): CaptionBox[] {
  return cues.map((cue, i) => ({
    cue: i,
    text: cue.lines.map(lineText).join(" / ").slice(0, 500),
    start_ms: Math.round(cue.start_ms),
    ...cue.box,
  }));
}

/** Throws CaptionLayoutError naming every cue whose box lies outside the zone. */
export function assertCaptionsInside(cues: readonly CaptionCue[], zone: SafeZone): void {
  const violations = captionBoxViolations(captionBoxes(cues), zone);
  if (violations.length > 0) {
    const more = violations.length > 3 ? ` (and ${violations.length - 3} more)` : "";
    throw new CaptionLayoutError(`${violations.slice(0, 3).join("; ")}${more}`);
  }
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

/** A cue's text with word `active` in the highlight colour. */
function cueText(cue: CaptionCue, active: number): string {
  const { textColour, highlightColour } = CAPTION_STYLE;
  return cue.lines.map((line) =>
    line.map((piece, i) => {
      const space = i > 0 && piece.word !== line[i - 1].word ? " " : "";
      const text = escapeAssText(piece.text);
      return piece.word === active ? `${space}{\\1c${highlightColour}&}${text}{\\1c${textColour}&}` : `${space}${text}`;
    }).join("")
  ).join("\\N");
}

/**
 * The word-states of a cue: word i is lit from its own start (the cue's start for the first) until
 * the next word starts (the cue's end for the last), so exactly one word is lit at any time.
 */
export function wordStates(cue: CaptionCue): Array<{ word: number; start_ms: number; end_ms: number }> {
  return cue.words.map((w, i) => ({
    word: i,
    start_ms: i === 0 ? cue.start_ms : Math.min(Math.max(w.start_ms, cue.start_ms), cue.end_ms),
    end_ms: i + 1 < cue.words.length ? Math.min(Math.max(cue.words[i + 1].start_ms, cue.start_ms), cue.end_ms) : cue.end_ms,
  })).filter((s) => formatAssTime(s.end_ms) !== formatAssTime(s.start_ms));
}

/**
 * How a block of text is drawn, in the captions' look: bold, white, a near-black outline, no box.
 * The cover's title (cover-layout.ts) is drawn the same way, larger.
 */
export interface AssTextStyle {
  name: string;
  fontName: string;
  fontSize: number;
  outline: number;
  /** Where `\pos` anchors the text, numpad style: 2 bottom centre, 5 centre. */
  alignment: number;
  /**
   * libass's base direction: 1 left to right; -1 each line's own, from its first strong character
   * (so an Arabic or Hebrew line ends with its punctuation on the left).
   */
  encoding: 1 | -1;
}

/**
 * An ASS script for the zone's 1080x1920 frame with one style and `events` (Dialogue lines). No
 * automatic wrapping: the lines are the layout's, measured against the zone.
 */
export function assScript(options: { title: string; zone: SafeZone; style: AssTextStyle; events: readonly string[] }): string {
  const { shadow, textColour, highlightColour, outlineColour } = CAPTION_STYLE;
  const { name, fontSize, outline, alignment, encoding } = options.style;
  // A comma would shift the Style fields; the font name is configuration, not caption text.
  const font = options.style.fontName.replace(/[,\r\n]/g, " ").trim() || "DejaVu Sans";
  const header = [
    "[Script Info]",
    `Title: ${options.title.replace(/[\r\n]/g, " ")}`,
    "ScriptType: v4.00+",
    `PlayResX: ${options.zone.width}`,
    `PlayResY: ${options.zone.height}`,
    // 2 = no automatic wrapping: line breaks are decided here, against the zone's width.
    "WrapStyle: 2",
    "ScaledBorderAndShadow: yes",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    `Style: ${name},${font},${fontSize},${textColour},${highlightColour},${outlineColour},&H80000000,-1,0,0,0,100,100,0,0,1,${outline},${shadow},${alignment},0,0,0,${encoding}`,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
  ];
  return `${[...header, ...options.events].join("\n")}\n`;
}

/**
 * The ASS script: one Dialogue line per word-state, every state of a cue with the same text and
 * position so the phrase stands still while the highlight moves along it.
 */
export function buildAssSubtitles(cues: readonly CaptionCue[], options: { fontName: string; zone: SafeZone; title?: string }): string {
  const { fontSize, outline } = CAPTION_STYLE;
  const anchor = captionAnchor(options.zone);
  const events = cues.flatMap((cue) => {
    const size = cue.font_size === fontSize ? "" : `\\fs${cue.font_size}`;
    return wordStates(cue).map((state) =>
      `Dialogue: 0,${formatAssTime(state.start_ms)},${formatAssTime(state.end_ms)},Caption,,0,0,0,,{\\an2\\pos(${anchor.x},${anchor.y})${size}}${
        cueText(cue, state.word)
      }`
    );
  });
  return assScript({
    title: options.title ?? "MD-AME captions",
    zone: options.zone,
    style: { name: "Caption", fontName: options.fontName, fontSize, outline, alignment: 2, encoding: 1 },
    events,
  });
}
