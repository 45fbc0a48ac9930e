/**
 * Reading a byte stream whole with a hard cap: request bodies, provider answers, downloads. Past the
 * cap the stream is cancelled (nothing more is pulled from the peer) and the caller's error is thrown.
 */

/** The stream's bytes, at most `maxBytes`; `tooLarge()` is thrown as soon as more arrive. */
export async function readCappedStream(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel("over the size cap").catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
