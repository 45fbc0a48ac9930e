/**
 * Reading the emulator's prompt format and making deterministic choices from a hash.
 *
 * A prompt is plain text: the first non-empty line is `TASK: <name>`, then `KEY: value` header
 * lines (KEY in capitals), then free text. A header with an empty value opens a block: the
 * lines after it, up to the next blank line or the end, are its value (e.g. `NARRATION:`).
 * Untrusted text the engine spotlights (`⟦data⟧words^joined^by^carets⟦/data⟧`) is read back as the
 * plain text it marks, as a model told about the marking reads it.
 */

interface ParsedPrompt {
  task: string;
  /** Header values by KEY; the first occurrence of a key wins. */
  headers: Record<string, string>;
}

const HEADER = /^([A-Z][A-Z_]*):[ \t]*(.*)$/;
const SPOTLIGHT = /⟦data⟧([\s\S]*?)⟦\/data⟧/g;

/** The text a spotlighted value marks: delimiters dropped, the datamark read as the space it stands for. */
function unmark(value: string): string {
  return value.replace(SPOTLIGHT, (_, inner: string) => inner.replace(/\^/g, " "));
}

export function parsePrompt(prompt: string): ParsedPrompt {
  const lines = prompt.replace(/\r\n?/g, "\n").split("\n");
  let i = lines.findIndex((line) => line.trim() !== "");
  const first = i >= 0 ? /^TASK:\s*(\S.*?)\s*$/.exec(lines[i].trim()) : null;
  const task = first ? first[1] : "";
  const headers: Record<string, string> = {};
  for (i = first ? i + 1 : 0; i < lines.length; i++) {
    const match = HEADER.exec(lines[i].trim());
    if (!match || match[1] in headers) continue;
    const [, key, value] = match;
    if (value.trim() !== "") {
      headers[key] = unmark(value.trim());
      continue;
    }
    let j = i + 1;
    while (j < lines.length && lines[j].trim() === "") j++;
    const block: string[] = [];
    while (j < lines.length && lines[j].trim() !== "") block.push(lines[j++]);
    headers[key] = unmark(block.join("\n").trim());
    i = j - 1;
  }
  return { task, headers };
}

/**
 * Deterministic choices seeded by a SHA-256 digest of the request (sfc32 generator), so the same
 * prompt and generation parameters always give the same answer and different ones vary.
 */
export class Variant {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(digest: Uint8Array) {
    const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
    this.#a = view.getUint32(0);
    this.#b = view.getUint32(4);
    this.#c = view.getUint32(8);
    this.#d = view.getUint32(12);
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#a >>>= 0;
    this.#b >>>= 0;
    this.#c >>>= 0;
    this.#d >>>= 0;
    const t = (this.#a + this.#b) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#d = (this.#d + 1) | 0;
    const result = (t + this.#d) | 0;
    this.#c = (this.#c + result) | 0;
    return (result >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
