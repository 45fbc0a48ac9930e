/**
 * The Bot API's MarkdownV2 parser, as far as the emulator needs it: checks the text the way
 * Telegram does (a reserved character outside an entity must be escaped; every entity is closed)
 * and returns the plain text the recipient sees. Entities: *bold*, _italic_, __underline__,
 * ~strikethrough~, ||spoiler||, `code`, ```pre```, [text](url), and > block quotes at a line start.
 */

type ParseResult = { ok: true; text: string } | { ok: false; error: string };

const RESERVED = new Set("_*[]()~`>#+-=|{}.!");

const ENTITY_NAMES: Record<string, string> = {
  "*": "Bold",
  "_": "Italic",
  "__": "Underline",
  "~": "Strikethrough",
  "||": "Spoiler",
  "[": "TextUrl",
};

function byteOffset(text: string, index: number): number {
  return new TextEncoder().encode(text.slice(0, index)).length;
}

const reserved = (ch: string) => ({
  ok: false as const,
  error: `Bad Request: can't parse entities: Character '${ch}' is reserved and must be escaped with the preceding '\\'`,
});

/** Parses MarkdownV2 `source`; the plain text, or Telegram's error. */
export function parseMarkdownV2(source: string): ParseResult {
  let out = "";
  const open: Array<{ marker: string; at: number }> = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "\\") {
      const next = source[i + 1];
      if (next === undefined || next.charCodeAt(0) < 1 || next.charCodeAt(0) > 126) return reserved("\\");
      out += next;
      i += 2;
      continue;
    }
    if (ch === "`") {
      const fence = source.startsWith("```", i) ? "```" : "`";
      let j = i + fence.length;
      let code = "";
      if (fence === "```") {
        // An optional language name on the opening line.
        const eol = source.indexOf("\n", j);
        const close = source.indexOf("```", j);
        if (eol !== -1 && (close === -1 || eol < close) && /^[A-Za-z0-9_+-]*$/.test(source.slice(j, eol))) j = eol + 1;
      }
      for (;;) {
        if (j >= source.length) {
          return {
            ok: false,
            error: `Bad Request: can't parse entities: Can't find end of ${fence === "`" ? "Code" : "Pre"} entity at byte offset ${byteOffset(source, i)}`,
          };
        }
        if (source[j] === "\\" && (source[j + 1] === "`" || source[j + 1] === "\\")) {
          code += source[j + 1];
          j += 2;
          continue;
        }
        if (source.startsWith(fence, j)) break;
        code += source[j];
        j += 1;
      }
      out += code;
      i = j + fence.length;
      continue;
    }
    if (ch === "]" && open.at(-1)?.marker === "[") {
      if (source[i + 1] !== "(") return reserved("]");
      const close = findUrlEnd(source, i + 2);
      if (close === -1) {
        return { ok: false, error: `Bad Request: can't parse entities: Can't find end of URL for TextUrl entity at byte offset ${byteOffset(source, i)}` };
      }
      open.pop();
      i = close + 1;
      continue;
    }
    if (ch === ">" && (i === 0 || source[i - 1] === "\n")) {
      i += 1;
      continue;
    }
    const marker = ch === "_" && source[i + 1] === "_" ? "__" : ch === "|" && source[i + 1] === "|" ? "||" : ch;
    if (marker in ENTITY_NAMES) {
      if (open.at(-1)?.marker === marker && marker !== "[") {
        open.pop();
      } else if (open.some((e) => e.marker === marker)) {
        return {
          ok: false,
          error: `Bad Request: can't parse entities: Can't find end of ${ENTITY_NAMES[open.at(-1)!.marker]} entity at byte offset ${
            byteOffset(source, open.at(-1)!.at)
          }`,
        };
      } else {
        open.push({ marker, at: i });
      }
      i += marker.length;
      continue;
    }
    if (RESERVED.has(ch)) return reserved(ch);
    out += ch;
    i += 1;
  }
  const unclosed = open.at(-1);
  if (unclosed) {
    return {
      ok: false,
      error: `Bad Request: can't parse entities: Can't find end of ${ENTITY_NAMES[unclosed.marker]} entity at byte offset ${byteOffset(source, unclosed.at)}`,
    };
  }
  return { ok: true, text: out };
}

/** Index of the `)` ending a link's URL (inside it `)` and `\` are escaped), or -1. */
function findUrlEnd(source: string, from: number): number {
  for (let j = from; j < source.length; j += 1) {
    if (source[j] === "\\") {
      j += 1;
      continue;
    }
    if (source[j] === ")") return j;
  }
  return -1;
}
