/**
 * The emulator's notion of now, which a test can move: `now()` is the real time plus an offset that
 * `POST /_emulator/clock` sets (clock/admin.ts). The clock keeps running after it is set. The offset
 * is mirrored to `<data dir>/clock.json`, so a killed and restarted emulator keeps the time a test
 * or the soak gave it. `POST /_emulator/reset` puts it back on real time.
 *
 * What follows it: YouTube's quota day (midnight America/Los_Angeles), a channel's rolling 24-hour
 * upload window, the times stored on an upload (`publishedAt`, `uploaded_at`), and `status.publishAt`
 * (refused when past, reported public once passed). What does not: access-token and upload-session
 * expiry and the faults' `for_ms`, which stay on real time so moving the clock never breaks a
 * connection in flight.
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import process from "node:process";

/** How far the clock may be moved either way: about 27 years, far past anything a test needs. */
export const MAX_OFFSET_MS = 10_000 * 86_400_000;

export class EmulatorClock {
  #offsetMs = 0;
  readonly #file: string;

  constructor(dataDir: string) {
    this.#file = path.join(dataDir, "clock.json");
  }

  async load(): Promise<void> {
    const text = await readFile(this.#file, "utf8").catch(() => undefined);
    if (text === undefined) return;
    let offset: unknown;
    try {
      offset = (JSON.parse(text) as { offset_ms?: unknown }).offset_ms;
    } catch {
      return;
    }
    this.#offsetMs = typeof offset === "number" && Number.isInteger(offset) && Math.abs(offset) <= MAX_OFFSET_MS ? offset : 0;
  }

  /** Epoch milliseconds on the emulator's clock. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  async setOffset(offsetMs: number): Promise<void> {
    this.#offsetMs = offsetMs;
    if (offsetMs === 0) {
      await rm(this.#file, { force: true });
      return;
    }
    await mkdir(path.dirname(this.#file), { recursive: true });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ offset_ms: offsetMs }));
    await rename(tmp, this.#file);
  }

  /** Back to real time. */
  reset(): Promise<void> {
    return this.setOffset(0);
  }
}
