/**
 * A voice track for render measurements and tests, made with real espeak-ng and FFmpeg: spoken
 * phrases with a silent gap between them (the gap is where a music bed must be heard), at a chosen
 * level, with word timings.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import type { WordTiming } from "../../shared/contracts/media.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";

export function run(cmd: string, args: string[]): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: "buffer", maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${cmd} ${args.join(" ")} failed: ${stderr.toString()}`));
      else resolve({ stdout, stderr: stderr.toString() });
    });
  });
}

export interface SpokenVoice {
  path: string;
  words: WordTiming[];
  durationMs: number;
  /** Where the silent gaps between phrases are, ms. */
  gaps: Array<{ start_ms: number; end_ms: number }>;
  /** Where each phrase is spoken, ms. */
  phrases: Array<{ start_ms: number; end_ms: number }>;
}

/**
 * Speaks `phrases` with `gapMs` of silence between them, then scales the whole track by
 * `levelDb` (a peak limiter keeps a loud track from clipping) and encodes it to MP3. Word timings
 * spread each phrase's duration over its words by length, which is all captions need here.
 */
export async function spokenVoice(dir: string, name: string, phrases: string[], options: { gapMs: number; levelDb: number }): Promise<SpokenVoice> {
  const wavs: string[] = [];
  const words: WordTiming[] = [];
  const gaps: SpokenVoice["gaps"] = [];
  const spans: SpokenVoice["phrases"] = [];
  let offset = 0;
  for (const [i, phrase] of phrases.entries()) {
    const wav = join(dir, `${name}-phrase-${i}.wav`);
    await run("espeak-ng", ["-v", "en-us", "-s", "175", "-w", wav, phrase]);
    const ms = Math.round((await probeMedia(wav)).duration_s * 1000);
    const texts = phrase.split(" ");
    const letters = texts.reduce((sum, t) => sum + t.length, 0);
    let at = offset;
    for (const text of texts) {
      const wordMs = Math.max(1, Math.floor((ms * text.length) / letters));
      words.push({ text, offset_ms: at, duration_ms: wordMs });
      at += wordMs;
    }
    spans.push({ start_ms: offset, end_ms: offset + ms });
    offset += ms;
    wavs.push(wav);
    if (i + 1 < phrases.length) {
      gaps.push({ start_ms: offset, end_ms: offset + options.gapMs });
      offset += options.gapMs;
    }
  }
  const path = join(dir, `${name}.mp3`);
  const pads = wavs.map((_, i) => (i + 1 < wavs.length ? `[${i}:a]apad=pad_dur=${options.gapMs / 1000}[p${i}]` : `[${i}:a]anull[p${i}]`));
  const concat = `${wavs.map((_, i) => `[p${i}]`).join("")}concat=n=${wavs.length}:v=0:a=1,volume=${options.levelDb}dB,alimiter=limit=0.97:level=false[a]`;
  await run("ffmpeg", [
    "-v",
    "error",
    ...wavs.flatMap((w) => ["-i", w]),
    "-filter_complex",
    [...pads, concat].join(";"),
    "-map",
    "[a]",
    "-c:a",
    "libmp3lame",
    "-b:a",
    "96k",
    "-y",
    path,
  ]);
  const durationMs = Math.round((await probeMedia(path)).duration_s * 1000);
  return { path, words, durationMs, gaps, phrases: spans };
}
