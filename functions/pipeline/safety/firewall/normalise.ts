/**
 * Views of a text for matching: what a model would read once look-alikes, escapes and spacing
 * tricks are undone. Matching runs on these views; the text that goes on is only cleaned.
 */

/** Cyrillic and Greek letters that render like Latin ones (Unicode confusables, lower case). */
const CONFUSABLES: Record<string, string> = {
  "а": "a",
  "в": "b",
  "с": "c",
  "ԁ": "d",
  "е": "e",
  "ё": "e",
  "һ": "h",
  "і": "i",
  "ї": "i",
  "ј": "j",
  "к": "k",
  "ӏ": "l",
  "м": "m",
  "н": "h",
  "о": "o",
  "р": "p",
  "ԛ": "q",
  "г": "r",
  "ѕ": "s",
  "т": "t",
  "у": "y",
  "х": "x",
  "ԝ": "w",
  "ь": "b",
  "п": "n",
  "и": "u",
  "ц": "u",
  "ѵ": "v",
  "α": "a",
  "β": "b",
  "ε": "e",
  "η": "n",
  "ι": "i",
  "κ": "k",
  "ν": "v",
  "ο": "o",
  "ρ": "p",
  "τ": "t",
  "υ": "u",
  "χ": "x",
  "γ": "y",
  "ω": "w",
  "ϲ": "c",
  "ϳ": "j",
  "ѡ": "w",
  "ɑ": "a",
  "ɡ": "g",
  "ı": "i",
  "ȷ": "j",
  "ℓ": "l",
};
const LEET: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i", "|": "l" };

const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: " ", sol: "/", lsqb: "[", rsqb: "]", vert: "|" };

/** HTML entities and backslash escapes spelled out: `&#105;`, `&lt;`, `\x69`, `\u0069`. */
function decodeEscapes(text: string): string {
  const codePoint = (n: number) => (n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : "");
  return text
    .replace(/&#x([0-9a-f]{1,6});?/gi, (_, h: string) => codePoint(parseInt(h, 16)))
    .replace(/&#([0-9]{1,7});?/g, (_, d: string) => codePoint(parseInt(d, 10)))
    .replace(/&([a-z]{2,6});/gi, (m, name: string) => NAMED_ENTITIES[name.toLowerCase()] ?? m)
    .replace(/\\x([0-9a-f]{2})/gi, (_, h: string) => codePoint(parseInt(h, 16)))
    .replace(/\\u\{?([0-9a-f]{4,6})\}?/gi, (_, h: string) => codePoint(parseInt(h, 16)));
}

/** Percent-encoding undone when the text carries enough of it to hide words. */
export function decodePercent(text: string): string | undefined {
  if ((text.match(/%[0-9a-f]{2}/gi) ?? []).length < 3) return undefined;
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

function foldConfusables(text: string): string {
  let out = "";
  for (const ch of text) out += CONFUSABLES[ch] ?? ch;
  return out;
}

/** Letters spelled one at a time (`i g n o r e`, `I.G.N.O.R.E`, `i-g-n-o-r-e`) joined back into words. */
function joinSpelledLetters(text: string): string {
  // Punctuation-spelled words first, so `i-g-n-o-r-e p-r-e-v` keeps the space between its words.
  const punctuated = text.replace(/(?<![\p{L}\p{N}])(?:[\p{L}\p{N}][.\-_*·]){2,}[\p{L}\p{N}](?![\p{L}\p{N}])/gu, (m) => m.replace(/[.\-_*·]/g, ""));
  return punctuated.replace(/(?<![\p{L}\p{N}])(?:[\p{L}\p{N}] ){2,}[\p{L}\p{N}](?![\p{L}\p{N}])/gu, (m) => m.replace(/ /g, ""));
}

function foldLeet(text: string): string {
  return text.replace(/[013457@$!|]/g, (ch, offset: number, all: string) => {
    // Only inside words: "top 10" stays a number, "1gn0r3" becomes "ignore".
    const before = all[offset - 1] ?? " ";
    const after = all[offset + 1] ?? " ";
    return /[\p{L}\p{N}@$]/u.test(before) || /[\p{L}\p{N}@$]/u.test(after) ? LEET[ch]! : ch;
  });
}

export function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** NFKC (fullwidth, mathematical and circled letters become plain ones), escapes decoded. */
export function canonical(text: string): string {
  return decodeEscapes(text.normalize("NFKC")).normalize("NFKC");
}

/**
 * The views a detector matches against, most literal first: canonical text (lower-cased), with
 * look-alikes folded, with spelled letters joined and leetspeak undone.
 */
export function matchingViews(canonicalText: string): string[] {
  const lower = canonicalText.toLowerCase();
  const folded = foldConfusables(lower);
  const joined = joinSpelledLetters(folded);
  const leet = joinSpelledLetters(foldLeet(folded));
  return [...new Set([lower, folded, joined, leet])];
}
