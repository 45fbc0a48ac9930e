/** How mdame writes: where to, and small pure formatters shared by the commands. */

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

export function println(screen: Screen, line = ""): void {
  screen.write(`${line}\n`);
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
export function formatTable(headers: string[], rows: string[][], width?: number): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const lastIndex = headers.length - 1;
  const fixed = widths.slice(0, lastIndex).reduce((sum, w) => sum + w + 2, 0);
  const lastWidth = width === undefined ? widths[lastIndex]! : Math.max(headers[lastIndex]!.length, width - fixed);
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === lastIndex ? truncate(cell, lastWidth) : cell.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** Writes a value as indented JSON, one document per call. */
export function printJson(screen: Screen, value: unknown): void {
  screen.write(`${JSON.stringify(value, null, 2)}\n`);
}
