/**
 * Just enough of the ISO base media file format (ISO/IEC 14496-12: MP4, MOV) to tell whether
 * uploaded bytes are a video and how long and large it is, as Meta's processing would:
 *
 * - a file is a sequence of boxes `[size: u32][type: 4 chars][payload]`, `size` counting the
 *   header; size 1 means a 64-bit size follows the type, size 0 means "to the end of the file";
 * - the first box is `ftyp` (the brand), else the bytes are not an MP4/MOV file;
 * - `moov/mvhd` holds the movie's `timescale` (units per second) and `duration` (in those units):
 *   32-bit fields after creation and modification times in version 0, 64-bit ones in version 1;
 * - each `moov/trak` has a `tkhd` (track header; its last two fields are the width and height as
 *   16.16 fixed point) and a `mdia/hdlr` whose handler type is `vide` for a video track.
 *
 * Only box headers and the few small boxes named above are read, wherever `moov` sits (before or
 * after `mdat`), so a large upload costs a handful of small reads.
 */
import { type FileHandle, open } from "node:fs/promises";

export interface Mp4Facts {
  durationS: number;
  /** The first video track's size in pixels; 0 when the file has no video track. */
  width: number;
  height: number;
}

export type Mp4Probe = { ok: true; facts: Mp4Facts } | { ok: false; reason: string };

interface Box {
  type: string;
  /** Where the payload starts and ends (exclusive). */
  start: number;
  end: number;
}

const MAX_SMALL_BOX = 1024 * 1024;

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** The boxes between `from` and `to`; stops at a malformed header (a box running past `to`). */
async function boxes(file: FileHandle, from: number, to: number): Promise<Box[] | string> {
  const out: Box[] = [];
  let at = from;
  while (at + 8 <= to) {
    const head = await readAt(file, at, 16);
    if (head.length < 8) return "a box header is cut short";
    let size = head.readUInt32BE(0);
    const type = head.toString("latin1", 4, 8);
    let headerSize = 8;
    if (size === 1) {
      if (head.length < 16) return "a 64-bit box size is cut short";
      size = Number(head.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < headerSize || at + size > to) return `the '${type}' box at byte ${at} runs past its container`;
    out.push({ type, start: at + headerSize, end: at + size });
    at += size;
  }
  return out;
}

async function payload(file: FileHandle, box: Box): Promise<Buffer> {
  return await readAt(file, box.start, Math.min(box.end - box.start, MAX_SMALL_BOX));
}

async function child(file: FileHandle, parent: Box, type: string): Promise<Box | undefined> {
  const inside = await boxes(file, parent.start, parent.end);
  return typeof inside === "string" ? undefined : inside.find((b) => b.type === type);
}

function movieDuration(mvhd: Buffer): number | undefined {
  const version = mvhd[0];
  if (version === 1 && mvhd.length >= 32) {
    const timescale = mvhd.readUInt32BE(20);
    const duration = Number(mvhd.readBigUInt64BE(24));
    return timescale > 0 ? duration / timescale : undefined;
  }
  if (version === 0 && mvhd.length >= 20) {
    const timescale = mvhd.readUInt32BE(12);
    const duration = mvhd.readUInt32BE(16);
    return timescale > 0 ? duration / timescale : undefined;
  }
  return undefined;
}

/** The track's width and height from its `tkhd`: the last 8 bytes, 16.16 fixed point. */
function trackSize(tkhd: Buffer): { width: number; height: number } | undefined {
  const length = tkhd[0] === 1 ? 96 : 84;
  if (tkhd.length < length) return undefined;
  return { width: tkhd.readUInt32BE(length - 8) / 65536, height: tkhd.readUInt32BE(length - 4) / 65536 };
}

/** What the MP4 boxes of `path` say, or why they are not a video Meta could process. */
export async function probeMp4(path: string): Promise<Mp4Probe> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    if ((await readAt(file, 4, 4)).toString("latin1") !== "ftyp") return { ok: false, reason: "not an MP4/MOV file: it does not start with an 'ftyp' box" };
    const top = await boxes(file, 0, size);
    if (typeof top === "string") return { ok: false, reason: `not an MP4/MOV file: ${top}` };
    const moov = top.find((b) => b.type === "moov");
    if (!moov) return { ok: false, reason: "the file has no 'moov' box (no movie header)" };
    const mvhd = await child(file, moov, "mvhd");
    const durationS = mvhd ? movieDuration(await payload(file, mvhd)) : undefined;
    if (durationS === undefined) return { ok: false, reason: "the movie header ('mvhd') is missing or unreadable" };
    const inside = await boxes(file, moov.start, moov.end);
    for (const trak of typeof inside === "string" ? [] : inside.filter((b) => b.type === "trak")) {
      const mdia = await child(file, trak, "mdia");
      const hdlr = mdia ? await child(file, mdia, "hdlr") : undefined;
      const handler = hdlr ? (await payload(file, hdlr)).toString("latin1", 8, 12) : "";
      if (handler !== "vide") continue;
      const tkhd = await child(file, trak, "tkhd");
      const dims = tkhd ? trackSize(await payload(file, tkhd)) : undefined;
      if (dims) return { ok: true, facts: { durationS, width: Math.round(dims.width), height: Math.round(dims.height) } };
    }
    return { ok: true, facts: { durationS, width: 0, height: 0 } };
  } finally {
    await file.close();
  }
}
