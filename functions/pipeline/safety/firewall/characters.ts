/**
 * Invisible and bidirectional control characters. They hide text from a person reading a title
 * while a model still reads it (zero-width splits, bidi overrides, the Unicode tags block that
 * spells ASCII invisibly), so their presence is a finding; the few legitimate uses are kept:
 * ZWJ inside emoji sequences, ZWJ/ZWNJ between letters of scripts that need them, and tag
 * characters inside a subdivision flag (🏴 + tag letters + CANCEL TAG).
 */

interface CharacterScan {
  /** The text with every invisible or control character removed (legitimate joiners kept). */
  visible: string;
  /** Problems found, one entry per kind. */
  findings: string[];
  /** ASCII spelled by tag characters outside a flag sequence: a payload to inspect in its own right. */
  tagPayload: string;
}

const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;
const isBidiControl = (cp: number) => (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
/** Zero-width and blank-looking characters that carry nothing a reader sees. */
const isZeroWidth = (cp: number) =>
  cp === 0x200b || cp === 0x2060 || cp === 0xfeff || cp === 0x180e || (cp >= 0x2061 && cp <= 0x2064) ||
  cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0 || cp === 0x034f;
/** Marks that only set direction; harmless, removed without a finding (common in Arabic and Hebrew text). */
const isDirectionMark = (cp: number) => cp === 0x200e || cp === 0x200f || cp === 0x061c;
const isVariationSelectorSupplement = (cp: number) => cp >= 0xe0100 && cp <= 0xe01ef;
const isControl = (cp: number) => (cp < 0x20 && cp !== 0x0a) || (cp >= 0x7f && cp <= 0x9f);

const PICTOGRAPHIC = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\u{FE0F}]/u;
/** Scripts whose spelling uses ZWJ/ZWNJ between letters (Arabic, Persian, Indic, Sinhala...). */
const JOINING_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Syriac}]/u;

function joinerAllowed(cp: number, before: string | undefined, after: string | undefined): boolean {
  if (before === undefined || after === undefined) return false;
  if (cp === 0x200d && PICTOGRAPHIC.test(before) && PICTOGRAPHIC.test(after)) return true;
  return JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after);
}

export function scanCharacters(raw: string): CharacterScan {
  const chars = Array.from(raw);
  const findings = new Set<string>();
  let visible = "";
  let tagPayload = "";
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const cp = ch.codePointAt(0)!;
    if (cp === BLACK_FLAG && i + 1 < chars.length && isTag(chars[i + 1]!.codePointAt(0)!)) {
      // A subdivision flag: tag letters/digits, at most 6, closed by CANCEL TAG.
      let j = i + 1;
      let spelled = "";
      while (j < chars.length && isTag(chars[j]!.codePointAt(0)!) && chars[j]!.codePointAt(0)! !== CANCEL_TAG) {
        spelled += String.fromCodePoint(chars[j]!.codePointAt(0)! - 0xe0000);
        j++;
      }
      if (j < chars.length && chars[j]!.codePointAt(0) === CANCEL_TAG && /^[a-z0-9]{2,6}$/.test(spelled)) {
        visible += chars.slice(i, j + 1).join("");
        i = j;
        continue;
      }
      visible += ch;
      continue;
    }
    if (isTag(cp)) {
      findings.add("invisible tag characters");
      if (cp >= 0xe0020 && cp <= 0xe007e) tagPayload += String.fromCodePoint(cp - 0xe0000);
      continue;
    }
    if (isBidiControl(cp)) {
      findings.add("bidirectional control characters");
      continue;
    }
    if (cp === 0x200c || cp === 0x200d) {
      if (joinerAllowed(cp, chars[i - 1], chars[i + 1])) visible += ch;
      else findings.add("zero-width characters");
      continue;
    }
    if (isZeroWidth(cp) || isVariationSelectorSupplement(cp)) {
      findings.add("zero-width characters");
      continue;
    }
    if (isDirectionMark(cp) || cp === 0x00ad) continue;
    if (isControl(cp)) {
      visible += " ";
      continue;
    }
    visible += ch;
  }
  return { visible, findings: [...findings], tagPayload };
}
