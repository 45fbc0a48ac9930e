/**
 * An emulator's state kept in one JSON file, so that a restarted emulator remembers it: written
 * whole then renamed, one write at a time, so the file is never half-written; read back at start.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import process from "node:process";

export class StateFile<T> {
  #saving: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  /** What was saved; undefined when nothing was, or when the file does not parse (then it is not ours). */
  async read(): Promise<T | undefined> {
    const text = await readFile(this.file, "utf8").catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      return undefined;
    }
  }

  /** Writes `state()` once the writes before it are done. A failed write fails its own caller; the next one starts afresh. */
  write(state: () => T): Promise<void> {
    const write = this.#saving.then(async () => {
      const text = JSON.stringify(state());
      await mkdir(path.dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, text);
      await rename(tmp, this.file);
    });
    this.#saving = write.catch(() => {});
    return write;
  }

  /** Resolves once the writes under way are done. */
  settled(): Promise<void> {
    return this.#saving;
  }
}
