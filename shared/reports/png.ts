/**
 * A minimal PNG encoder for an RGB raster (8 bits per channel, no filter, zlib from node:zlib, which
 * Deno and Bun both provide): what the weekly chart needs without a browser or a native library.
 */
import { deflateSync } from "node:zlib";

/** An RGB image: `pixels` holds width * height * 3 bytes, rows top to bottom. */
export interface Raster {
  width: number;
  height: number;
  pixels: Uint8Array;
}

export type Rgb = readonly [number, number, number];

export function createRaster(width: number, height: number, background: Rgb): Raster {
  const pixels = new Uint8Array(width * height * 3);
  for (let i = 0; i < pixels.length; i += 3) pixels.set(background, i);
  return { width, height, pixels };
}

/** Fills a rectangle, clipped to the raster. */
export function fillRect(raster: Raster, x: number, y: number, w: number, h: number, color: Rgb): void {
  const x0 = Math.max(0, Math.round(x));
  const y0 = Math.max(0, Math.round(y));
  const x1 = Math.min(raster.width, Math.round(x + w));
  const y1 = Math.min(raster.height, Math.round(y + h));
  for (let row = y0; row < y1; row++) {
    for (let col = x0; col < x1; col++) raster.pixels.set(color, (row * raster.width + col) * 3);
  }
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** The raster as PNG bytes (colour type 2, truecolour). */
export function encodePng(raster: Raster): Uint8Array {
  const { width, height, pixels } = raster;
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = 8; // bits per channel
  header[9] = 2; // truecolour
  const stride = width * 3;
  const scanlines = new Uint8Array(height * (stride + 1));
  for (let row = 0; row < height; row++) {
    scanlines[row * (stride + 1)] = 0; // filter: none
    scanlines.set(pixels.subarray(row * stride, (row + 1) * stride), row * (stride + 1) + 1);
  }
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(scanlines, { level: 9 }))),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
