/**
 * The caption font for a text's script. DejaVu Sans (the default) covers Latin, Greek and
 * Cyrillic; other scripts get the Noto family that covers them (Debian's fonts-noto-core and
 * fonts-noto-cjk, which scripts/bootstrap.mjs installs).
 */

/** A script that needs its own font: its name, the font family covering it, and a pattern of the Unicode scripts it is written in. */
interface ScriptFont {
  name: string;
  family: string;
  pattern: RegExp;
}

/** `name`, covered by `family`, written in the Unicode scripts `scripts` (property values; by default the one of that name). */
const font = (name: string, family: string, scripts = [name]): ScriptFont => ({
  name,
  family,
  pattern: new RegExp(`[${scripts.map((s) => `\\p{Script=${s}}`).join("")}]`, "u"),
});

const SCRIPT_FONTS: readonly ScriptFont[] = [
  font("Hangul", "Noto Sans CJK KR"),
  font("Japanese", "Noto Sans CJK JP", ["Hiragana", "Katakana"]),
  font("Han", "Noto Sans CJK SC"),
  font("Thai", "Noto Sans Thai"),
  font("Devanagari", "Noto Sans Devanagari"),
  font("Bengali", "Noto Sans Bengali"),
  font("Tamil", "Noto Sans Tamil"),
  font("Arabic", "Noto Sans Arabic"),
  font("Hebrew", "Noto Sans Hebrew"),
  font("Khmer", "Noto Sans Khmer"),
  font("Lao", "Noto Sans Lao"),
  font("Myanmar", "Noto Sans Myanmar"),
  font("Georgian", "Noto Sans Georgian"),
  font("Armenian", "Noto Sans Armenian"),
];
const scriptFont = (name: string) => SCRIPT_FONTS.find((s) => s.name === name)!;

/** Fonts known to cover Latin, Greek and Cyrillic only (of the scripts above, none). */
const ALPHABETIC_FONTS = new Set(["dejavu sans", "dejavu sans condensed", "dejavu serif"]);

/** The script of `text` that needs its own font (the first one met, Japanese and Korean before Han); undefined for Latin, Greek, Cyrillic. */
export function fontScript(text: string): string | undefined {
  // Han characters are shared: kana anywhere makes the text Japanese, Hangul Korean.
  for (const name of ["Japanese", "Hangul"]) if (scriptFont(name).pattern.test(text)) return name;
  let first: { at: number; name: string } | undefined;
  for (const { pattern, name } of SCRIPT_FONTS) {
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
  return ALPHABETIC_FONTS.has(configured.trim().toLowerCase()) ? scriptFont(script).family : configured;
}
