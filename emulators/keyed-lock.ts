/** Work under one key runs one piece at a time, in the order it came (an upload's requests never interleave); keys apart run side by side. */
export class KeyedLock {
  #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => {});
    this.#tails.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.#tails.get(key) === settled) this.#tails.delete(key);
    }
  }
}
