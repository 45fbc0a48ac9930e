/**
 * Words as a listener hears them, in any script. Languages written with spaces split at whitespace
 * (a token counts as a word when it has a letter or digit, as TTS engines and the hook audit count
 * them); scripts written without spaces between words (Thai, Lao, Khmer, Burmese, Chinese,
 * Japanese) are cut into words by Intl.Segmenter's dictionary-based word breaks.
 */

/** Scripts that do not separate words with spaces. */
const UNSPACED = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(locale: string | undefined): Intl.Segmenter {
  const key = locale ?? "";
  let found = segmenters.get(key);
  if (!found) {
    found = new Intl.Segmenter(locale ? [locale] : [], { granularity: "word" });
    segmenters.set(key, found);
  }
  return found;
}

/** True when `text` has characters of a script written without spaces between words. */
export function isUnspacedScript(text: string): boolean {
  return UNSPACED.test(text);
}

/**
 * The words of `text`, in order. A whitespace token in a spaced script is one word, punctuation
 * kept (`well-known,`); a token in an unspaced script becomes its word-like segments (`東京は晴れ`
 * -> `東京`, `は`, `晴れ`), punctuation dropped. Pure-punctuation tokens are not words.
 */
export function splitWords(text: string, locale?: string): string[] {
  const words: string[] = [];
  for (const token of text.split(/\s+/)) {
    if (!WORD_CHAR.test(token)) continue;
    if (!isUnspacedScript(token)) {
      words.push(token);
      continue;
    }
    for (const part of segmenter(locale).segment(token)) {
      if (part.isWordLike) words.push(part.segment);
    }
  }
  return words;
}

/** How many words `text` has (see splitWords). */
export function countWords(text: string, locale?: string): number {
  return splitWords(text, locale).length;
}

/**
 * Text to compare two renderings of one narration by: whitespace dropped between characters of
 * unspaced scripts (where a model may insert or drop spaces freely), collapsed elsewhere.
 */
export function comparableText(text: string): string {
  return text.replace(/\s+/g, " ").trim()
    .replace(
      /(?<=[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{P}]) (?=[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/gu,
      "",
    );
}

/**
 * Words back into text as it is written: a space between two words unless both sides are in an
 * unspaced script (`東京`, `は` -> `東京は`; `iPhone`, `は` -> `iPhone は`). Captions join a cue's
 * spoken words with this; a line of an unspaced script may break between any two words, no hyphen.
 */
export function joinWords(words: readonly string[]): string {
  let text = "";
  for (const word of words) {
    if (text && !(isUnspacedScript(text.slice(-1)) && isUnspacedScript(word.charAt(0)))) text += " ";
    text += word;
  }
  return text;
}
