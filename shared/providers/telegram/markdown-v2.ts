/**
 * Telegram's MarkdownV2 text, as the Bot API documents it (core.telegram.org/bots/api#markdownv2-style):
 * outside entities every one of `_ * [ ] ( ) ~ ` > # + - = | { } . !` and the backslash itself
 * must be escaped with a preceding backslash. Messages are split to fit the API's limits without
 * cutting an escape sequence or a surrogate pair, preferring line boundaries.
 */

/** The characters MarkdownV2 reserves outside entities (the backslash escapes them, itself included). */
export const MARKDOWN_V2_RESERVED = "_*[]()~`>#+-=|{}.!\\";

const RESERVED = /[_*[\]()~`>#+\-=|{}.!\\]/g;

/** `text` as MarkdownV2 plain text: every reserved character escaped, nothing else changed. */
export function escapeMarkdownV2(text: string): string {
  return text.replace(RESERVED, (ch) => `\\${ch}`);
}

/** Bold text (its content escaped). */
export function boldMarkdownV2(text: string): string {
  return `*${escapeMarkdownV2(text)}*`;
}

/** The most characters of a message's text (sendMessage). */
const MAX_MESSAGE_CHARS = 4096;
/** The most characters of a photo's caption (sendPhoto). */
export const MAX_CAPTION_CHARS = 1024;

/** Whether a cut at `at` would separate a backslash from the character it escapes. */
function cutsEscape(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text[i] === "\\"; i -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Splits MarkdownV2 text (already escaped) into pieces of at most `max` characters, in order.
 * A piece ends after a line break when one falls in the second half of the window; otherwise it
 * is cut at the window's end, moved back so no escape sequence or surrogate pair is cut. Joined,
 * the pieces give the text back.
 */
export function splitMarkdownV2(text: string, max: number = MAX_MESSAGE_CHARS): string[] {
  if (!Number.isInteger(max) || max < 2) throw new Error("a piece holds at least 2 characters");
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf("\n", max - 1) + 1;
    if (cut <= max / 2) {
      cut = max;
      if (isHighSurrogate(rest.charCodeAt(cut - 1))) cut -= 1;
      if (cutsEscape(rest, cut)) cut -= 1;
    }
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0 || pieces.length === 0) pieces.push(rest);
  return pieces;
}
