/**
 * Duration of an MP3 stream from its frame headers (no decoding): the sum of every frame's
 * samples over its sample rate. Skips a leading ID3v2 tag and a Xing/Info header frame.
 * Returns undefined when no frame is found.
 */

const BITRATES_KBPS = {
  // MPEG-1 Layer III
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  // MPEG-2 and 2.5 Layer III
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

export function mp3DurationMs(bytes: Uint8Array): number | undefined {
  let offset = 0;
  if (bytes.length >= 10 && bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) {
    offset = 10 + ((bytes[6] & 0x7f) << 21 | (bytes[7] & 0x7f) << 14 | (bytes[8] & 0x7f) << 7 | (bytes[9] & 0x7f));
  }
  let seconds = 0;
  let frames = 0;
  while (offset + 4 <= bytes.length) {
    const b1 = bytes[offset + 1];
    const b2 = bytes[offset + 2];
    const version = (b1 >> 3) & 0x03; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
    const layer = (b1 >> 1) & 0x03; // 1 = Layer III
    const bitrateIndex = (b2 >> 4) & 0x0f;
    const rateIndex = (b2 >> 2) & 0x03;
    if (bytes[offset] !== 0xff || (b1 & 0xe0) !== 0xe0 || version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) {
      offset += 1; // not a frame header: resynchronise
      continue;
    }
    const sampleRate = SAMPLE_RATES[version][rateIndex];
    const samples = version === 3 ? 1152 : 576;
    const bitrate = (version === 3 ? BITRATES_KBPS.v1 : BITRATES_KBPS.v2)[bitrateIndex] * 1000;
    const padding = (b2 >> 1) & 0x01;
    const length = Math.floor((samples / 8) * bitrate / sampleRate) + padding;
    const body = new TextDecoder("latin1").decode(bytes.subarray(offset + 4, Math.min(bytes.length, offset + 40)));
    const isInfoFrame = frames === 0 && (body.includes("Xing") || body.includes("Info"));
    if (!isInfoFrame) {
      seconds += samples / sampleRate;
      frames += 1;
    }
    offset += length;
  }
  return frames > 0 ? Math.round(seconds * 1000) : undefined;
}
