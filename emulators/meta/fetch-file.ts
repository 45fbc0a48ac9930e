/**
 * Downloads a hosted video (Instagram's `video_url`, rupload's `file_url` header) into an upload
 * file, as Meta's servers "cURL" the media: one GET, redirects followed, the body streamed to disk
 * and never past `maxBytes`, given up after DOWNLOAD_TIMEOUT_MS.
 */
import { open } from "node:fs/promises";

const DOWNLOAD_TIMEOUT_MS = 60_000;

export type Download = { ok: true; bytes: number } | { ok: false; timedOut: boolean; detail: string };

export async function downloadTo(url: string, file: string, maxBytes: number): Promise<Download> {
  const handle = await open(file, "w");
  let written = 0;
  try {
    const response = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return { ok: false, timedOut: false, detail: `GET ${url} answered HTTP ${response.status}` };
    }
    const reader = response.body?.getReader();
    while (reader) {
      const { value, done } = await reader.read();
      if (done) break;
      if (written + value.length > maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, timedOut: false, detail: `the file is larger than ${maxBytes} bytes` };
      }
      await handle.write(value);
      written += value.length;
    }
    return { ok: true, bytes: written };
  } catch (error) {
    const name = (error as Error)?.name;
    const timedOut = name === "TimeoutError" || name === "AbortError";
    return {
      ok: false,
      timedOut,
      detail: timedOut ? `GET ${url} took longer than ${DOWNLOAD_TIMEOUT_MS} ms` : `GET ${url} failed: ${String((error as Error)?.message ?? error)}`,
    };
  } finally {
    await handle.close();
  }
}
