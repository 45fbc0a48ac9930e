/**
 * docs/reports/benchmarks.md has three writers: `npm run bench` rewrites the whole file, the render bench's
 * `--write` replaces its "## Render throughput" section, and other commands (the alignment eval)
 * own a block between `<!-- <name>:start -->` and `<!-- <name>:end -->`, which the other two keep
 * as it is. Hand-kept notes use a block of their own for the same reason.
 */

/** Every owned block of a document, whole, in order. */
export function keptBlocks(document: string): string[] {
  return document.match(/<!-- ([a-z-]+):start -->[\s\S]*?<!-- \1:end -->/g) ?? [];
}

/** True for the line that opens an owned block: a section before it ends there. */
export const opensBlock = (line: string): boolean => /^<!-- [a-z-]+:start -->$/.test(line.trim());

/** The document with block `name` replaced by `block` (its markers included), or `block` appended. */
export function replaceBlock(document: string, name: string, block: string): string {
  const marked = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->\\n?`);
  return marked.test(document) ? document.replace(marked, () => block) : `${document.trimEnd()}\n\n${block}`;
}
