/**
 * CommonMark (the weekly report's dialect: headings, **bold**, [text](https://...) links, GitHub
 * tables, backslash escapes; docs/reference/weekly-report.md) as Telegram MarkdownV2. Everything that is not
 * one of those constructs is plain text, escaped; a backslash escape stays the character it
 * escapes. Entities never span lines, and only lines short enough never to be cut by the splitter
 * (markdown-v2.ts splits long lines only) carry any, so a split message always parses.
 */
import { escapeMarkdownV2 } from "../../../shared/providers/telegram/markdown-v2.ts";

/** Lines longer than this are plain text: the splitter may cut them. */
const MAX_STYLED_LINE = 400;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const LINK = /^\[((?:\\.|[^\]\\\n])*)\]\((https:\/\/[^)\s]+)\)/;

/** CommonMark inline text without its backslash escapes. */
function unescapeCommonMark(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

function inline(line: string, styled: boolean): string {
  let out = "";
  let plain = "";
  let bold = false;
  const flush = () => {
    out += escapeMarkdownV2(plain);
    plain = "";
  };
  for (let i = 0; i < line.length;) {
    const ch = line[i]!;
    if (ch === "\\" && i + 1 < line.length && ASCII_PUNCTUATION.test(line[i + 1]!)) {
      plain += line[i + 1];
      i += 2;
      continue;
    }
    if (styled && line.startsWith("**", i)) {
      flush();
      out += "*";
      bold = !bold;
      i += 2;
      continue;
    }
    const link = styled && !bold && ch === "[" ? LINK.exec(line.slice(i)) : null;
    if (link) {
      flush();
      out += `[${escapeMarkdownV2(unescapeCommonMark(link[1]!))}](${link[2]!.replace(/[)\\]/g, (c) => `\\${c}`)})`;
      i += link[0].length;
      continue;
    }
    plain += ch;
    i += 1;
  }
  flush();
  if (bold) out += "*";
  return out;
}

export function commonMarkToMarkdownV2(markdown: string): string {
  return markdown.split("\n").map((line) => {
    const styled = line.length <= MAX_STYLED_LINE;
    // A table's delimiter row says nothing to a reader.
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) return "";
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading && styled) return `*${inline(heading[1]!.replace(/\*\*/g, ""), false)}*`;
    return inline(line, styled);
  }).join("\n");
}
