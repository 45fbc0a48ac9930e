/**
 * Text the engine can store exactly and show safely. Postgres text and jsonb are UTF-8 without
 * U+0000: a lone UTF-16 surrogate has no UTF-8 form (jsonb refuses it, a text parameter is encoded
 * as U+FFFD), and a NUL is refused outright. Names an operator reads in a terminal must also not
 * carry what a terminal acts on: C0/C1 controls (ANSI escapes, CR, LF), DEL, and the bidi controls
 * that reorder what follows them.
 */

/** A JSON location: object keys and array indexes from the root. */
export type JsonPath = (string | number)[];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u.source;
/** What a single line of operator text must not hold: every control (C0, DEL, C1), the bidi controls, the line and paragraph separators. */
const NOT_ONE_LINE = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/u;
/** What `visibleText` writes as an escape. */
const INVISIBLE = new RegExp(`${NOT_ONE_LINE.source}|${LONE_SURROGATE}`, "gu");

/** Why `text` cannot be stored exactly (a NUL, a lone surrogate), or undefined when it can. */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes("\u0000")) return "holds a NUL character (\\u0000), which text cannot hold";
  if (!text.isWellFormed()) return "holds a lone surrogate (half of a UTF-16 pair), which has no UTF-8 form";
  return undefined;
}

/** True when `text` is one line of visible text: storable, with no control, bidi control or line separator. */
export function isOneLineText(text: string): boolean {
  return text.isWellFormed() && !NOT_ONE_LINE.test(text);
}

/**
 * `text` with every control, bidi control, line separator and lone surrogate written as a `\uXXXX`
 * escape: what an error answer or a log line may quote of an input without a terminal acting on it.
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A parsed JSON value with `visibleText` applied to every string in it, keys included: what a page may show as read. */
export function visibleJson(value: unknown): unknown {
  if (typeof value === "string") return visibleText(value);
  if (Array.isArray(value)) return value.map(visibleJson);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [visibleText(key), visibleJson(entry)]));
  }
  return value;
}

/** `subject.keywords[2]`, `sources[0].url`, `["odd key"]` (controls escaped); `(body)` for the root. */
export function formatJsonPath(path: JsonPath): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `["${visibleText(part)}"]`;
  }
  return out || "(body)";
}

/** A string of a JSON value that failed a check: where it is, whether it is a key, and why. */
interface TextFinding {
  /** The key's own location for a key (its object's path plus the key), else the value's. */
  path: JsonPath;
  key: boolean;
  reason: string;
}

/** A location as a linked list from the leaf up: a deep value shares its parents' nodes instead of copying them. */
interface PathNode {
  part: string | number;
  parent: PathNode | undefined;
}

function pathOf(node: PathNode | undefined): JsonPath {
  const path: JsonPath = [];
  for (let n = node; n; n = n.parent) path.push(n.part);
  return path.reverse();
}

/**
 * The first string, in document order, of a parsed JSON value (object keys included) for which
 * `check` gives a reason. Iterative, with shared path nodes: a deeply nested body costs neither
 * the stack nor memory quadratic in its depth.
 */
function findTextIn(value: unknown, check: (text: string) => string | undefined): TextFinding | undefined {
  // A key is checked as its own item just before its value, so the first finding is the first in the text.
  const pending: { value: unknown; at: PathNode | undefined; key?: string }[] = [{ value, at: undefined }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (next.key !== undefined) {
      const reason = check(next.key);
      if (reason) return { path: [...pathOf(next.at), next.key], key: true, reason };
    } else if (typeof next.value === "string") {
      const reason = check(next.value);
      if (reason) return { path: pathOf(next.at), key: false, reason };
    } else if (Array.isArray(next.value)) {
      for (let i = next.value.length - 1; i >= 0; i--) pending.push({ value: next.value[i], at: { part: i, parent: next.at } });
    } else if (next.value !== null && typeof next.value === "object") {
      const entries = Object.entries(next.value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        pending.push({ value: item, at: { part: key, parent: next.at } });
        pending.push({ value: undefined, at: next.at, key });
      }
    }
  }
  return undefined;
}

/** The first string (value or key) of a parsed JSON value that cannot be stored exactly. */
export function findUnstorableText(value: unknown): TextFinding | undefined {
  return findTextIn(value, unstorableTextReason);
}
