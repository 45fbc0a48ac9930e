import type { CaptionBox } from "../shared/contracts/captions.ts";
import { captionFontFor } from "../shared/text/fonts.ts";
import { isUnspacedScript } from "../shared/text/words.ts";
import { assScript, balancedLines, CAPTION_STYLE, escapeAssText, formatAssTime, type LinePiece, lineText } from "./captions.ts";
import { captionFontMetrics, type FontMetrics } from "./font-metrics.ts";
import { type SafeZone, zoneRect } from "./safe-zones.ts";

/**
 * The title on a render's cover (cover.ts): in the captions' look (their font choice, bold white
 * with a near-black outline, no box), larger, on at most three balanced lines centred in the
 * dimension's safe zone. Measured with the font libass draws, as captions are.
 */

/**
 * Sizes are of one em of the letters, in pixels of the 1080x1920 frame, whatever the font: libass
 * sizes a font by its line box, which in Noto Sans Arabic (say) is nearly twice DejaVu Sans's, so
 * each font is given the libass size that draws its em this large (FontMetrics.emPerSize).
 */
export const COVER_TITLE_STYLE = {
  /** The largest em tried: two thirds larger than a caption's (62 px: 72 px of DejaVu Sans Bold). */
  emPx: 104,
  /** The smallest: still larger than a caption's; a title too long at this size is shortened. */
  minEmPx: 72,
  emStep: 4,
  maxLines: 3,
  /** Outline per em, as captions' (5 px on 62). */
  outlinePerEm: 0.08,
  ellipsis: "…",
} as const;

/** A size of the title: its em, the libass size that draws it, and the outline. */
interface TitleSize {
  em: number;
  size: number;
  outline: number;
}

function titleSize(em: number, metrics: FontMetrics): TitleSize {
  return { em, size: Math.round(em / metrics.emPerSize), outline: Math.max(2, Math.round(em * COVER_TITLE_STYLE.outlinePerEm)) };
}

/**
 * Emoji are left out: libass draws glyph outlines, and neither the caption fonts nor their
 * fallbacks have emoji outlines, so one would show as an empty box. An emoji goes whole, with its
 * skin tone, tags and the emoji it is joined to; pictographs in text presentation (©, ™, ❤) stay,
 * and a joiner elsewhere (inside an Indic word) is left alone.
 */
const EMOJI =
  /(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F)(?:\p{Emoji_Modifier}|\uFE0F|[\u{E0020}-\u{E007F}]|\u200D(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F?))*|[\uFE0F\u20E3]/gu;

/** The title as the cover draws it: emoji and control characters out, whitespace collapsed. */
export function coverTitleText(title: string): string {
  return title.replace(EMOJI, " ").replace(/\p{Cc}/gu, " ").replace(/\s+/gu, " ").trim();
}

const wordSegmenter = new Intl.Segmenter([], { granularity: "word" });
const graphemeSegmenter = new Intl.Segmenter([], { granularity: "grapheme" });

/** Opening punctuation stays with the word after it, so no line ends with one. */
const OPENING = /^[\p{Ps}\p{Pi}]+$/u;

/**
 * Where a title may break: between its space-separated words, and inside a token of a script
 * written without spaces (Chinese, Japanese, Thai...) between the words Intl.Segmenter finds, its
 * punctuation kept with the word it belongs to. Pieces of one token share its `word` index, so
 * lineText joins them without a space.
 */
function titlePieces(text: string): LinePiece[] {
  const pieces: LinePiece[] = [];
  for (const [word, token] of text.split(" ").entries()) {
    if (!isUnspacedScript(token)) {
      pieces.push({ text: token, word });
      continue;
    }
    const first = pieces.length;
    let opening = "";
    for (const { segment, isWordLike } of wordSegmenter.segment(token)) {
      if (!isWordLike && OPENING.test(segment)) {
        opening += segment;
        continue;
      }
      if (!isWordLike && pieces.length > first) pieces[pieces.length - 1].text += opening + segment;
      else pieces.push({ text: opening + segment, word });
      opening = "";
    }
    if (opening) pieces.push({ text: opening, word });
  }
  return pieces;
}

/**
 * A piece wider than a whole line at the smallest size is cut between its characters (no hyphen),
 * into parts that leave room for the ellipsis a shortened title ends with.
 */
function splitOverwide(pieces: LinePiece[], zone: SafeZone, metrics: FontMetrics): LinePiece[] {
  const smallest = titleSize(COVER_TITLE_STYLE.minEmPx, metrics);
  const budget = lineBudget(zone, smallest) - metrics.measure(COVER_TITLE_STYLE.ellipsis, smallest.size);
  return pieces.flatMap((piece) => {
    if (metrics.measure(piece.text, smallest.size) <= budget) return [piece];
    const parts: LinePiece[] = [];
    for (const { segment } of graphemeSegmenter.segment(piece.text)) {
      const last = parts.at(-1);
      if (last && metrics.measure(last.text + segment, smallest.size) <= budget) last.text += segment;
      else parts.push({ text: segment, word: piece.word });
    }
    return parts;
  });
}

export interface CoverTitleLayout {
  /** The lines as drawn, in reading order. */
  lines: string[];
  /** One em of its letters, in pixels. */
  em_px: number;
  /** The libass size that draws that em in `font_name`. */
  font_size: number;
  outline: number;
  /** The family libass draws with: the dimension's caption font, or the Noto font of the title's script. */
  font_name: string;
  /** Whether the title was too long for three lines at the smallest size and ends in an ellipsis. */
  shortened: boolean;
  /** Where `\pos` puts the block's centre: the middle of the zone. */
  anchor: { x: number; y: number };
  /** Where its glyphs, outline included, land on the frame. */
  box: CaptionBox;
}

interface Fitted {
  lines: LinePiece[][];
  at: TitleSize;
}

/** Widest a line may be: the zone's width less the captions' side padding and the outline, on both sides. */
function lineBudget(zone: SafeZone, at: TitleSize): number {
  const r = zoneRect(zone);
  return r.right - r.left - 2 * (CAPTION_STYLE.sidePadding + at.outline);
}

/**
 * The largest size at which the pieces fit, and at it the fewest lines (balanced), each line within
 * the zone's width and the block within its height; null when none does.
 */
function fit(pieces: readonly LinePiece[], zone: SafeZone, metrics: FontMetrics): Fitted | null {
  const { emPx, minEmPx, emStep, maxLines } = COVER_TITLE_STYLE;
  const r = zoneRect(zone);
  for (let em: number = emPx; em >= minEmPx; em -= emStep) {
    const at = titleSize(em, metrics);
    const budget = lineBudget(zone, at);
    for (let count = 1; count <= Math.min(maxLines, pieces.length); count++) {
      if (count * at.size + 2 * at.outline > r.bottom - r.top) break;
      const lines = balancedLines(pieces, count, at.size, metrics);
      if (Math.max(...lines.map((l) => metrics.measure(lineText(l), at.size))) <= budget) return { lines, at };
    }
  }
  return null;
}

/** The first `kept` pieces, the last one ending in an ellipsis. */
function shortenedTo(pieces: readonly LinePiece[], kept: number): LinePiece[] {
  const head = pieces.slice(0, kept).map((p) => ({ ...p }));
  head[head.length - 1].text += COVER_TITLE_STYLE.ellipsis;
  return head;
}

/**
 * Lays the cover's title out for `zone`: the largest em from 104 px down to 72 px (4 px steps) at
 * which it fits on one, two or three lines (fewest first; lines balanced as captions' are). A title
 * that fits on none is cut after the most words that fit three lines at 72 px, with an ellipsis.
 * Null when nothing is left to draw (a title of emoji only); throws when not even one word fits
 * (a font whose line box is many times its em).
 */
export function layoutCoverTitle(title: string, options: { zone: SafeZone; captionFont: string; metrics?: FontMetrics }): CoverTitleLayout | null {
  const text = coverTitleText(title);
  if (!text) return null;
  const { zone } = options;
  const fontName = captionFontFor(text, options.captionFont);
  const metrics = options.metrics ?? captionFontMetrics(fontName);
  const pieces = splitOverwide(titlePieces(text), zone, metrics);
  let fitted = fit(pieces, zone, metrics);
  const shortened = fitted === null;
  if (!fitted) {
    // More pieces never fit better, so the most that still fit are found by bisection. One piece
    // and the ellipsis fit one line's width (splitOverwide).
    let lo = 1;
    let hi = Math.max(1, pieces.length - 1);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fit(shortenedTo(pieces, mid), zone, metrics)) lo = mid;
      else hi = mid - 1;
    }
    fitted = fit(shortenedTo(pieces, lo), zone, metrics);
    if (!fitted) throw new Error(`the cover's title does not fit the ${zone.profile} safe zone in ${fontName}`);
  }
  const { lines, at } = fitted;
  const r = zoneRect(zone);
  const anchor = { x: Math.round((r.left + r.right) / 2), y: Math.round((r.top + r.bottom) / 2) };
  const half = Math.max(...lines.map((l) => metrics.measure(lineText(l), at.size))) / 2 + at.outline + CAPTION_STYLE.shadow;
  const height = (lines.length * at.size) / 2 + at.outline;
  const drawn = lines.map(lineText);
  return {
    lines: drawn,
    em_px: at.em,
    font_size: at.size,
    outline: at.outline,
    font_name: fontName,
    shortened,
    anchor,
    box: {
      cue: 0,
      text: drawn.join(" / ").slice(0, 500),
      start_ms: 0,
      left: anchor.x - half,
      right: anchor.x + half,
      top: anchor.y - height,
      bottom: anchor.y + height + CAPTION_STYLE.shadow,
    },
  };
}

/** The cover's title shows on any frame of a video of up to this long. */
const COVER_EVENT_END_MS = 10 * 3600 * 1000 - 10;

/** The ASS script that draws the laid-out title (centred on its anchor) over a frame. */
export function coverTitleAss(layout: CoverTitleLayout, zone: SafeZone): string {
  const text = layout.lines.map(escapeAssText).join("\\N");
  return assScript({
    title: "MD-AME cover",
    zone,
    style: { name: "Cover", fontName: layout.font_name, fontSize: layout.font_size, outline: layout.outline, alignment: 5, encoding: -1 },
    events: [`Dialogue: 0,${formatAssTime(0)},${formatAssTime(COVER_EVENT_END_MS)},Cover,,0,0,0,,{\\pos(${layout.anchor.x},${layout.anchor.y})}${text}`],
  });
}
