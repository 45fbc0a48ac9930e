/**
 * RIFF/WAVE for 16-bit PCM: Gemini TTS answers raw PCM, which FFmpeg (the render) and players
 * read once it has a header. Plain bytes, no subprocess: runs in the Edge Function.
 */

interface WavInfo {
  sampleRate: number;
  channels: number;
  /** The 16-bit samples (interleaved when more than one channel). */
  samples: Int16Array;
  durationMs: number;
}

/** A canonical 44-byte-header WAV around little-endian s16 PCM. */
export function pcmToWav(pcm: Uint8Array, sampleRate: number, channels = 1): Uint8Array {
  const dataBytes = pcm.length & ~1;
  const wav = new Uint8Array(44 + dataBytes);
  const view = new DataView(wav.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => (wav[at + i] = c.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, dataBytes, true);
  wav.set(pcm.subarray(0, dataBytes), 44);
  return wav;
}

/** Reads a 16-bit PCM WAV; undefined when the bytes are not one. */
export function readWav(bytes: Uint8Array): WavInfo | undefined {
  if (bytes.length < 12) return undefined;
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: { sampleRate: number; channels: number; bits: number; code: number } | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const size = view.getUint32(offset + 4, true);
    if (tag(offset) === "fmt " && offset + 24 <= bytes.length) {
      format = {
        code: view.getUint16(offset + 8, true),
        channels: view.getUint16(offset + 10, true),
        sampleRate: view.getUint32(offset + 12, true),
        bits: view.getUint16(offset + 22, true),
      };
    }
    if (tag(offset) === "data") {
      if (!format || format.code !== 1 || format.bits !== 16 || format.channels < 1 || format.sampleRate < 1) return undefined;
      const start = offset + 8;
      const end = Math.min(bytes.length, start + size);
      const copy = bytes.slice(start, start + ((end - start) & ~1));
      const samples = new Int16Array(copy.buffer);
      return {
        sampleRate: format.sampleRate,
        channels: format.channels,
        samples,
        durationMs: Math.round((samples.length / format.channels / format.sampleRate) * 1000),
      };
    }
    offset += 8 + size + (size & 1);
  }
  return undefined;
}
