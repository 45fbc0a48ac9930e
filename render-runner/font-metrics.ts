import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * Text widths from the caption font itself: the TrueType/OpenType file fontconfig picks for the
 * family (the one libass will draw with), its character map and advance widths. Caption layout
 * measures every line with this, so line breaks and the safe-zone check use the widths the video
 * will show rather than a per-character guess.
 */
export interface FontMetrics {
  /** Where the metrics came from: a font file, or the built-in estimate when none could be read. */
  source: string;
  /** Advance width of `text` at `fontSize` in ASS script pixels (libass's size convention), outline excluded. */
  measure(text: string, fontSize: number): number;
  /**
   * Pixels of one em per pixel of libass size: unitsPerEm / (ascent + descent). A font with a tall
   * line box (Noto Sans Arabic, 0.47) draws its letters smaller at one size than DejaVu Sans (0.86).
   */
  emPerSize: number;
}

/**
 * libass scales a face so that `size` covers the OS/2 win ascent + descent (hhea's when the OS/2
 * figures are zero); one em is therefore size * unitsPerEm / (ascent + descent) pixels.
 */
interface ParsedFont {
  unitsPerEm: number;
  cellHeight: number;
  advanceOf(codePoint: number): number | null;
}

/** Kerning and hinting can widen a line slightly; the measure leans wide by this much. */
const WIDTH_SAFETY = 1.02;
/** Characters the font lacks are drawn from a fallback font; assume they are this wide (em). */
const MISSING_GLYPH_EM = 1.1;

function tableOffsets(font: Buffer, base: number): Map<string, number> {
  const count = font.readUInt16BE(base + 4);
  const tables = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const at = base + 12 + i * 16;
    tables.set(font.toString("latin1", at, at + 4), font.readUInt32BE(at + 8));
  }
  return tables;
}

function cmapLookup(font: Buffer, cmap: number): (cp: number) => number {
  const count = font.readUInt16BE(cmap + 2);
  let format4: number | null = null;
  let format12: number | null = null;
  for (let i = 0; i < count; i++) {
    const platform = font.readUInt16BE(cmap + 4 + i * 8);
    const encoding = font.readUInt16BE(cmap + 6 + i * 8);
    const sub = cmap + font.readUInt32BE(cmap + 8 + i * 8);
    const format = font.readUInt16BE(sub);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    if (format === 12) format12 ??= sub;
    if (format === 4) format4 ??= sub;
  }
  if (format12 !== null) {
    const sub = format12;
    const groups = font.readUInt32BE(sub + 12);
    return (cp) => {
      let lo = 0;
      let hi = groups - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const at = sub + 16 + mid * 12;
        const start = font.readUInt32BE(at);
        const end = font.readUInt32BE(at + 4);
        if (cp < start) hi = mid - 1;
        else if (cp > end) lo = mid + 1;
        else return font.readUInt32BE(at + 8) + (cp - start);
      }
      return 0;
    };
  }
  if (format4 === null) throw new Error("the font has no Unicode character map");
  const sub = format4;
  const segments = font.readUInt16BE(sub + 6) / 2;
  const ends = sub + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  return (cp) => {
    if (cp > 0xffff) return 0;
    for (let s = 0; s < segments; s++) {
      if (cp > font.readUInt16BE(ends + s * 2)) continue;
      const start = font.readUInt16BE(starts + s * 2);
      if (cp < start) return 0;
      const delta = font.readInt16BE(deltas + s * 2);
      const rangeOffset = font.readUInt16BE(rangeOffsets + s * 2);
      if (rangeOffset === 0) return (cp + delta) & 0xffff;
      const glyphAt = rangeOffsets + s * 2 + rangeOffset + (cp - start) * 2;
      const glyph = font.readUInt16BE(glyphAt);
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
}

/** Reads the tables widths need from a .ttf/.otf (or the first face of a .ttc). */
function parseFont(font: Buffer): ParsedFont {
  const base = font.toString("latin1", 0, 4) === "ttcf" ? font.readUInt32BE(12) : 0;
  const tables = tableOffsets(font, base);
  const need = (tag: string) => {
    const at = tables.get(tag);
    if (at === undefined) throw new Error(`the font has no ${tag} table`);
    return at;
  };
  const head = need("head");
  const hhea = need("hhea");
  const hmtx = need("hmtx");
  const unitsPerEm = font.readUInt16BE(head + 18);
  let ascent = font.readInt16BE(hhea + 4);
  let descent = -font.readInt16BE(hhea + 6);
  const os2 = tables.get("OS/2");
  if (os2 !== undefined) {
    const winAscent = font.readUInt16BE(os2 + 74);
    const winDescent = font.readUInt16BE(os2 + 76);
    if (winAscent + winDescent > 0) [ascent, descent] = [winAscent, winDescent];
  }
  const metricsCount = font.readUInt16BE(hhea + 34);
  const glyphOf = cmapLookup(font, need("cmap"));
  return {
    unitsPerEm,
    cellHeight: ascent + descent,
    advanceOf(cp) {
      const glyph = glyphOf(cp);
      if (glyph === 0) return null;
      return font.readUInt16BE(hmtx + Math.min(glyph, metricsCount - 1) * 4);
    },
  };
}

/** Metrics of a parsed font, for the measure libass applies. */
function metricsFromFont(parsed: ParsedFont, source: string): FontMetrics {
  const cache = new Map<number, number>();
  const emWidth = (cp: number) => {
    let w = cache.get(cp);
    if (w === undefined) {
      const advance = parsed.advanceOf(cp);
      w = advance === null ? MISSING_GLYPH_EM : advance / parsed.unitsPerEm;
      cache.set(cp, w);
    }
    return w;
  };
  return {
    source,
    emPerSize: parsed.unitsPerEm / parsed.cellHeight,
    measure(text, fontSize) {
      let em = 0;
      for (const ch of text) em += emWidth(ch.codePointAt(0)!);
      return (em * fontSize * parsed.unitsPerEm * WIDTH_SAFETY) / parsed.cellHeight;
    },
  };
}

/** The file fontconfig resolves `family` (bold) to, as libass would; null when fc-match is missing. */
function findFontFile(family: string, bold = true): string | null {
  try {
    const pattern = `${family.replace(/[:\\-]/g, (c) => `\\${c}`)}${bold ? ":bold" : ""}`;
    const file = execFileSync("fc-match", ["-f", "%{file}", pattern], { encoding: "utf8", timeout: 10_000 }).trim();
    return file || null;
  } catch {
    return null;
  }
}

/**
 * A per-character estimate (DejaVu Sans Bold advance classes, rounded up) for when no font file can
 * be read: wider than the real glyphs, so layouts stay inside the zone, only more cautious.
 */
const ESTIMATE_CLASSES: Array<[number, string]> = [
  [0.4, " ilj'.,:;|/\\IJ`"],
  [0.53, 'ftr()[]-_!"*{}’‘'],
  [0.72, "abcdeghknopqsuvxyz0123456789?$€ELTF¿"],
  [0.88, "ABCDGHKNOPQRSUVXYZ#+<=>^~&“”ß£"],
  [1.11, "mwMW@%—…"],
];
const ESTIMATE = new Map<string, number>(ESTIMATE_CLASSES.flatMap(([w, chars]) => [...chars].map((c) => [c, w] as [string, number])));

/** DejaVu Sans Bold's line box, in ems: the size libass gives it covers this much. */
const ESTIMATE_CELL_EMS = 1.164;

export const ESTIMATED_METRICS: FontMetrics = {
  source: "built-in estimate",
  emPerSize: 1 / ESTIMATE_CELL_EMS,
  measure(text, fontSize) {
    let em = 0;
    for (const ch of text) {
      const base = ch.normalize("NFD")[0];
      em += ESTIMATE.get(ch) ?? (base ? ESTIMATE.get(base) : undefined) ?? 1.25;
    }
    return (em * fontSize * 1.05) / ESTIMATE_CELL_EMS;
  },
};

const loaded = new Map<string, FontMetrics>();

/** The metrics of the caption font `family` (bold), read once per process; the estimate when it cannot be read. */
export function captionFontMetrics(family: string): FontMetrics {
  let metrics = loaded.get(family);
  if (!metrics) {
    const file = findFontFile(family);
    try {
      metrics = file ? metricsFromFont(parseFont(readFileSync(file)), file) : ESTIMATED_METRICS;
    } catch {
      metrics = ESTIMATED_METRICS;
    }
    loaded.set(family, metrics);
  }
  return metrics;
}
