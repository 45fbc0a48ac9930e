/**
 * TypeScript source reduced to what the runtime rules look at: comments and the contents of
 * string literals are blanked (so a word in a comment or a log message never matches), while
 * every literal is kept aside with its offset (so import specifiers and file paths can still be
 * read). Offsets and line breaks are preserved, so an offset in `code` is the offset in the file.
 *
 * This is a lexer, not a parser: it tells code from comments, strings and regular expressions,
 * which is all the rules need.
 */

export interface StringLiteral {
  /** Offset of the opening quote. */
  start: number;
  /** Offset just past the closing quote (or the `${` that ends a template's head). */
  end: number;
  /** The literal's text between the quotes; for a template, only its head before any `${`. */
  value: string;
  /** A template literal with `${…}` parts: only `value`, its head, is static. */
  interpolated: boolean;
}

export interface SourceText {
  code: string;
  strings: StringLiteral[];
  /** 1-based line of an offset. */
  lineOf(offset: number): number;
}

// After these characters (or keywords) a `/` starts a regular expression, not a division.
const REGEX_AFTER = new Set(["", "(", ",", "=", ":", "[", "!", "&", "|", "?", "{", "}", ";", "+", "-", "*", "%", "<", ">", "~", "^"]);
const REGEX_AFTER_WORDS = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"]);

export function readSource(text: string): SourceText {
  const out = text.split("");
  const strings: StringLiteral[] = [];
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  // Each open template's brace depth at the `${` that entered code, innermost last.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;

  const previousSignificant = (): string => {
    let k = i - 1;
    while (k >= 0 && /\s/.test(out[k]!)) k--;
    if (k < 0) return "";
    if (/[A-Za-z_$]/.test(out[k]!)) {
      let s = k;
      while (s > 0 && /[A-Za-z0-9_$]/.test(out[s - 1]!)) s--;
      const word = out.slice(s, k + 1).join("");
      return REGEX_AFTER_WORDS.has(word) ? "" : word;
    }
    return out[k]!;
  };

  /** Reads template text from `from` (just past a backtick or a closing `}`) to its end or next `${`. */
  const readTemplateChunk = (from: number, literal: StringLiteral | null): number => {
    let k = from;
    let value = "";
    while (k < text.length) {
      const c = text[k]!;
      if (c === "\\") {
        value += text.slice(k, k + 2);
        k += 2;
        continue;
      }
      if (c === "`") {
        blank(from, k);
        if (literal) {
          literal.value += value;
          literal.end = k + 1;
        }
        return k + 1;
      }
      if (c === "$" && text[k + 1] === "{") {
        blank(from, k);
        if (literal) {
          literal.value += value;
          literal.end = k + 2;
          literal.interpolated = true;
        }
        templates.push(depth);
        depth += 1;
        return k + 2;
      }
      value += c;
      k++;
    }
    blank(from, k);
    return k;
  };

  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let k = i + 1;
      let value = "";
      while (k < text.length && text[k] !== c && text[k] !== "\n") {
        if (text[k] === "\\") {
          value += text.slice(k, k + 2);
          k += 2;
        } else {
          value += text[k];
          k++;
        }
      }
      strings.push({ start: i, end: k + 1, value, interpolated: false });
      blank(i + 1, k);
      i = k + 1;
    } else if (c === "`") {
      const literal: StringLiteral = { start: i, end: i + 1, value: "", interpolated: false };
      strings.push(literal);
      i = readTemplateChunk(i + 1, literal);
    } else if (c === "/" && REGEX_AFTER.has(previousSignificant())) {
      let k = i + 1;
      let inClass = false;
      while (k < text.length && text[k] !== "\n") {
        const r = text[k]!;
        if (r === "\\") k += 2;
        else {
          if (r === "[") inClass = true;
          else if (r === "]") inClass = false;
          else if (r === "/" && !inClass) break;
          k++;
        }
      }
      blank(i + 1, k);
      i = k + 1;
    } else if (c === "{") {
      depth += 1;
      i++;
    } else if (c === "}") {
      depth -= 1;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        // Back in the template's text: only its head counts as static, so later chunks are blanked.
        i = readTemplateChunk(i + 1, null);
      } else {
        i++;
      }
    } else {
      i++;
    }
  }

  const lineStarts = [0];
  for (let k = 0; k < text.length; k++) if (text[k] === "\n") lineStarts.push(k + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  return { code: out.join(""), strings, lineOf };
}

/** The string literal that starts at `offset` (after skipping whitespace), if any. */
export function literalAt(source: SourceText, offset: number): StringLiteral | undefined {
  let k = offset;
  while (k < source.code.length && /\s/.test(source.code[k]!)) k++;
  return source.strings.find((s) => s.start === k);
}
