/**
 * The caption font for a text's script. DejaVu Sans (the default) covers Latin, Greek and
 * Cyrillic; other scripts get the Noto family that covers them (Debian's fonts-noto-core and
 * fonts-noto-cjk, which scripts/bootstrap.mjs installs).
 */

/** Script (Unicode property name) -> font family covering it. */
const SCRIPT_FONTS: ReadonlyArray<[RegExp, string, string]> = [
  [/\p{Script=Hangul}/u, "Hangul", "Noto Sans CJK KR"],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, "Japanese", "Noto Sans CJK JP"],
  [/\p{Script=Han}/u, "Han", "Noto Sans CJK SC"],
  [/\p{Script=Thai}/u, "Thai", "Noto Sans Thai"],
  [/\p{Script=Devanagari}/u, "Devanagari", "Noto Sans Devanagari"],
  [/\p{Script=Bengali}/u, "Bengali", "Noto Sans Bengali"],
  [/\p{Script=Tamil}/u, "Tamil", "Noto Sans Tamil"],
  [/\p{Script=Arabic}/u, "Arabic", "Noto Sans Arabic"],
  [/\p{Script=Hebrew}/u, "Hebrew", "Noto Sans Hebrew"],
  [/\p{Script=Khmer}/u, "Khmer", "Noto Sans Khmer"],
  [/\p{Script=Lao}/u, "Lao", "Noto Sans Lao"],
  [/\p{Script=Myanmar}/u, "Myanmar", "Noto Sans Myanmar"],
  [/\p{Script=Georgian}/u, "Georgian", "Noto Sans Georgian"],
  [/\p{Script=Armenian}/u, "Armenian", "Noto Sans Armenian"],
];

/** Fonts known to cover Latin, Greek and Cyrillic only (of the scripts above, none). */
const ALPHABETIC_FONTS = new Set(["dejavu sans", "dejavu sans condensed", "dejavu serif"]);

/** The script of `text` that needs its own font (the first one met, Japanese and Korean before Han); undefined for Latin, Greek, Cyrillic. */
export function fontScript(text: string): string | undefined {
  // Han characters are shared: kana anywhere makes the text Japanese, Hangul Korean.
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return "Japanese";
  if (/\p{Script=Hangul}/u.test(text)) return "Hangul";
  let first: { at: number; name: string } | undefined;
  for (const [pattern, name] of SCRIPT_FONTS) {
    const at = text.search(pattern);
    if (at >= 0 && (!first || at < first.at)) first = { at, name };
  }
  return first?.name;
}

/**
 * The font to burn captions in: the configured one, unless the text is in a script that font does
 * not cover (a DejaVu font with Japanese text, say), then the Noto family of that script.
 */
export function captionFontFor(text: string, configured: string): string {
  const script = fontScript(text);
  if (!script) return configured;
  const family = SCRIPT_FONTS.find(([, name]) => name === script)![2];
  return ALPHABETIC_FONTS.has(configured.trim().toLowerCase()) ? family : configured;
}
