/**
 * How mdame writes: where to, and small pure formatters shared by the commands. Everything printed
 * goes through here, and no text from the server reaches the terminal as control characters: C0
 * and C1 controls, DEL, bidi controls and line separators are written as visible `\uXXXX` escapes,
 * so a name or an error cannot move the cursor, recolour the screen, rewrite a line or reorder it.
 */
import { visibleText } from "../shared/text/storable.ts";

/** A place to write text: process.stdout or a test double. */
export interface Screen {
  write(text: string): unknown;
  /** True on a terminal: the live view redraws in place. */
  readonly isTTY?: boolean;
  /** Terminal width, when known. */
  readonly columns?: number;
}

/** What every command gets. */
export interface CommandContext {
  out: Screen;
  err: Screen;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * One line of text as the terminal may show it: every control, line break included, made visible
 * (the same escapes error answers use, shared/text/storable.ts).
 */
export const terminalText = visibleText;

/** Writes text; its own line breaks stay, every other control is made visible. */
export function println(screen: Screen, text = ""): void {
  screen.write(`${text.split("\n").map(terminalText).join("\n")}\n`);
}

/** Writes exactly one line: a line break inside it is made visible too. */
export function printLine(screen: Screen, line: string): void {
  screen.write(`${terminalText(line)}\n`);
}

/** Writes each entry as exactly one line: a line break inside an entry is made visible too. */
export function printLines(screen: Screen, lines: readonly string[]): void {
  screen.write(lines.map((line) => `${terminalText(line)}\n`).join(""));
}

/** Cuts a one-line text to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  // Line breaks and tabs would break a row; runs of spaces are kept (they align columns).
  const line = text.replace(/[\r\n\t]+/g, " ").trimEnd();
  if (width <= 0) return "";
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

/** A compact age: 45s, 12m, 3h, 2d. */
export function formatAge(fromIso: string | null | undefined, nowMs: number): string {
  if (!fromIso) return "-";
  const seconds = Math.max(0, Math.round((nowMs - Date.parse(fromIso)) / 1000));
  if (!Number.isFinite(seconds)) return "-";
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)}m`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}

/**
 * Left-aligned columns separated by two spaces. The last column is truncated so a row fits in
 * `width` (when given); the others keep their full text.
 */
export function formatTable(headers: string[], rawRows: string[][], width?: number): string[] {
  // Escaped before measuring, so the columns line up with what the terminal shows.
  const rows = rawRows.map((row) => row.map(terminalText));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const lastIndex = headers.length - 1;
  const fixed = widths.slice(0, lastIndex).reduce((sum, w) => sum + w + 2, 0);
  const lastWidth = width === undefined ? widths[lastIndex]! : Math.max(headers[lastIndex]!.length, width - fixed);
  const line = (cells: string[]) => cells.map((cell, i) => (i === lastIndex ? truncate(cell, lastWidth) : cell.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** What JSON.stringify leaves raw but a terminal acts on: DEL, C1 controls, bidi controls, line separators. */
const RAW_IN_JSON = /[\u007f-\u009f\p{Bidi_Control}\u2028\u2029]/gu;

/** Writes a value as indented JSON, one document per call; it parses back to the same value. */
export function printJson(screen: Screen, value: unknown): void {
  const json = JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  screen.write(`${json}\n`);
}
