/**
 * The bytes of Instagram containers and Facebook Reels, one file per id under
 * `<data dir>/meta/uploads/`: what arrived so far, in order, so that a file's size is the offset a
 * resumed upload continues from.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, stat, truncate, writeFile } from "node:fs/promises";
import path from "node:path";

export class UploadFiles {
  constructor(readonly dir: string) {}

  path(id: string): string {
    return path.join(this.dir, `${id}.bin`);
  }

  async create(id: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(this.path(id), new Uint8Array(0));
  }

  async size(id: string): Promise<number> {
    return await stat(this.path(id)).then((s) => s.size, () => 0);
  }

  async sha256(id: string): Promise<string> {
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(this.path(id))) hash.update(chunk as Buffer);
    return hash.digest("hex");
  }

  /** Cuts the file back to `bytes`. */
  async truncate(id: string, bytes: number): Promise<void> {
    await truncate(this.path(id), bytes);
  }

  /**
   * Appends the part of `body` that lies past `skip` bytes (bytes the file already has, sent again),
   * at most `cap` new bytes and at most `dropAfter` of them before the connection is to be dropped.
   * Returns the new bytes written, `too_large` (nothing of this body is kept) or `dropped` (what
   * came before the drop is kept, as a resumable upload keeps it).
   */
  async append(
    id: string,
    body: ReadableStream<Uint8Array> | null,
    skip: number,
    cap: number,
    dropAfter = Infinity,
  ): Promise<number | "too_large" | "dropped"> {
    const before = await this.size(id);
    const handle = await open(this.path(id), "a");
    let skipped = 0;
    let written = 0;
    let outcome: number | "too_large" | "dropped" = 0;
    try {
      const reader = body?.getReader();
      while (reader) {
        const { value, done } = await reader.read();
        if (done) break;
        let chunk = value;
        if (skipped < skip) {
          const drop = Math.min(chunk.length, skip - skipped);
          skipped += drop;
          chunk = chunk.subarray(drop);
        }
        if (chunk.length === 0) continue;
        if (written + chunk.length > cap) {
          await reader.cancel().catch(() => {});
          outcome = "too_large";
          break;
        }
        const part = chunk.subarray(0, Math.max(0, Math.min(chunk.length, dropAfter - written)));
        if (part.length > 0) await handle.write(part);
        written += part.length;
        if (written >= dropAfter) {
          await reader.cancel().catch(() => {});
          outcome = "dropped";
          break;
        }
      }
      if (outcome === 0) outcome = written;
    } catch {
      // The client went away mid-body: what arrived is kept, as a resumable upload keeps it.
      outcome = written;
    } finally {
      await handle.close();
    }
    if (outcome === "too_large") await this.truncate(id, before);
    return outcome;
  }
}
