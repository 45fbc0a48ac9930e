/**
 * Real speech for the Edge TTS emulator, with exact word timings.
 *
 * espeak-ng has no word-timing output, so each word is synthesised on its own (`espeak-ng
 * --stdout`, 16-bit mono WAV), trimmed to where it is audible, and the words are laid end to end
 * with short pauses: a short gap between words, a longer one after `, ; :` and a longer one
 * still after `. ! ?`. Every word's offset and duration is therefore known to the sample. The
 * track is then encoded by ffmpeg (libmp3lame) to the requested MP3 format.
 */
import { spawn, spawnSync } from "node:child_process";
import { isUnspacedScript } from "../../shared/text/words.ts";

/** One spoken word; times in 100-ns ticks as Edge reports them. */
interface SpokenWord {
  text: string;
  offsetTicks: number;
  durationTicks: number;
}

interface SpeechTrack {
  mp3: Uint8Array;
  words: SpokenWord[];
  durationMs: number;
}

/** MP3 formats the emulator can produce, by Edge output-format name. */
export const MP3_FORMATS: Record<string, { sampleRate: number; bitrateK: number }> = {
  "audio-24khz-48kbitrate-mono-mp3": { sampleRate: 24000, bitrateK: 48 },
  "audio-24khz-96kbitrate-mono-mp3": { sampleRate: 24000, bitrateK: 96 },
};

const BASE_WPM = 195;
const PAUSE_MS = { word: 40, clause: 200, sentence: 420, lead: 100, tail: 300 };
/** Samples quieter than this (of 32767) count as silence when trimming a word. */
const SILENCE = 300;

/** Edge language subtags whose espeak-ng voice goes by another code. */
const ESPEAK_ALIASES: Record<string, string> = { zh: "cmn", nb: "nb", no: "nb", fil: "tl" };

let espeakLanguages: Set<string> | undefined;

/** The language codes of the installed espeak-ng voices (`espeak-ng --voices`), read once. */
function installedEspeakLanguages(): Set<string> {
  if (!espeakLanguages) {
    const listed = spawnSync("espeak-ng", ["--voices"], { encoding: "utf8" });
    espeakLanguages = new Set((listed.stdout ?? "").split("\n").slice(1).map((line) => line.trim().split(/\s+/)[1]?.toLowerCase()).filter(Boolean) as string[]);
  }
  return espeakLanguages;
}

/**
 * espeak-ng voice for an Edge voice name, from the locale it starts with: the regional voice when
 * espeak-ng has one (`en-GB-RyanNeural` -> `en-gb`), else the language's (`ru-RU-SvetlanaNeural` ->
 * `ru`, `en-US-AriaNeural` -> `en-us`, the first English variant); undefined when espeak-ng does
 * not speak the language.
 */
export function espeakVoiceFor(edgeVoice: string): string | undefined {
  const match = /^([a-z]{2,3})-(?:[A-Z][a-z]{3}-)?([A-Z]{2})-/.exec(edgeVoice);
  if (!match) return undefined;
  const lang = ESPEAK_ALIASES[match[1]] ?? match[1];
  const region = match[2].toLowerCase();
  const voices = installedEspeakLanguages();
  for (const candidate of [`${lang}-${region}`, lang, lang === "en" ? "en-us" : ""]) {
    if (candidate && voices.has(candidate)) return candidate;
  }
  return [...voices].find((v) => v.startsWith(`${lang}-`));
}

/**
 * SSML prosody rate as a speed factor: `+20%` -> 1.2, `-10%` -> 0.9, `1.5` -> 1.5, and the named
 * rates (x-slow 0.5, slow 0.64, medium 1, fast 1.55, x-fast 2). Clamped to 0.5..2.
 */
function rateFactor(rate: string | undefined): number {
  const value = (rate ?? "").trim().toLowerCase();
  const named: Record<string, number> = { "x-slow": 0.5, slow: 0.64, medium: 1, default: 1, fast: 1.55, "x-fast": 2 };
  let factor = 1;
  if (value in named) factor = named[value];
  else if (/^[+-]?\d+(\.\d+)?%$/.test(value)) factor = 1 + Number.parseFloat(value) / 100;
  else if (/^\d+(\.\d+)?$/.test(value)) factor = Number.parseFloat(value);
  return Math.min(2, Math.max(0.5, Number.isFinite(factor) ? factor : 1));
}

interface Token {
  word: string;
  pause: keyof typeof PAUSE_MS;
}

const wordSegmenter = new Intl.Segmenter([], { granularity: "word" });

/**
 * A whitespace token cut into words where its script has no spaces between them (Japanese, Thai,
 * Chinese...), each word keeping the punctuation after it; other tokens as they are.
 */
function spokenPieces(raw: string): string[] {
  if (!isUnspacedScript(raw)) return [raw];
  const pieces: string[] = [];
  for (const part of wordSegmenter.segment(raw)) {
    if (part.isWordLike || pieces.length === 0) pieces.push(part.segment);
    else pieces[pieces.length - 1] += part.segment;
  }
  return pieces;
}

/** Words as Edge reports them: punctuation stripped from the ends; pure punctuation lengthens the pause. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const raw of text.split(/\s+/).filter(Boolean).flatMap(spokenPieces)) {
    const pause = /[.!?…。！？]["'”’)\]」』]*$/.test(raw) ? "sentence" : /[,;:—–、，；：]["'”’)\]」』]*$/.test(raw) ? "clause" : "word";
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (word) {
      tokens.push({ word, pause });
    } else if (tokens.length > 0 && pause !== "word") {
      const last = tokens[tokens.length - 1];
      if (PAUSE_MS[pause] > PAUSE_MS[last.pause]) last.pause = pause;
    }
  }
  return tokens;
}

/** Runs a command with `input` on stdin and resolves with its stdout; a non-zero exit rejects with its stderr. */
export function run(command: string, args: string[], input: Uint8Array | string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(new Uint8Array(Buffer.concat(out)));
      else reject(new Error(`${command} exited ${code}: ${Buffer.concat(err).toString().slice(0, 500)}`));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/**
 * 16-bit mono PCM at `fromRate` through FFmpeg: resampled to `toRate`, still mono, and encoded as
 * `outputArgs` say, on stdout.
 */
export function convertPcm(pcm: Int16Array, fromRate: number, toRate: number, outputArgs: string[]): Promise<Uint8Array> {
  return run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-f",
    "s16le",
    "-ar",
    String(fromRate),
    "-ac",
    "1",
    "-i",
    "pipe:0",
    "-ar",
    String(toRate),
    "-ac",
    "1",
    ...outputArgs,
    "pipe:1",
  ], new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
}

/** PCM samples and rate of a 16-bit mono WAV (espeak-ng's `--stdout` output, whose sizes may be 0). */
function parseWav(bytes: Uint8Array): { samples: Int16Array; sampleRate: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let sampleRate = 22050;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    if (id === "fmt ") sampleRate = view.getUint32(offset + 12, true);
    if (id === "data") {
      const start = offset + 8;
      const end = size > 0 && start + size <= bytes.length ? start + size : bytes.length;
      const copy = bytes.slice(start, start + ((end - start) & ~1));
      return { samples: new Int16Array(copy.buffer), sampleRate };
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error("espeak-ng produced no WAV data chunk");
}

function trim(samples: Int16Array, sampleRate: number): Int16Array {
  let first = 0;
  let last = samples.length - 1;
  while (first < samples.length && Math.abs(samples[first]) < SILENCE) first++;
  while (last > first && Math.abs(samples[last]) < SILENCE) last--;
  if (first >= samples.length) return new Int16Array(0);
  const margin = Math.round(sampleRate * 0.005);
  return samples.slice(Math.max(0, first - margin), Math.min(samples.length, last + 1 + margin));
}

const wordCache = new Map<string, Promise<{ samples: Int16Array; sampleRate: number }>>();
const MAX_CACHED_WORDS = 5000;

function synthesizeWord(word: string, voice: string, wpm: number) {
  const key = `${voice}|${wpm}|${word}`;
  let entry = wordCache.get(key);
  if (!entry) {
    entry = run("espeak-ng", ["-v", voice, "-s", String(wpm), "--stdout"], word).then((wav) => {
      const { samples, sampleRate } = parseWav(wav);
      return { samples: trim(samples, sampleRate), sampleRate };
    });
    entry.catch(() => wordCache.delete(key));
    if (wordCache.size >= MAX_CACHED_WORDS) wordCache.clear();
    wordCache.set(key, entry);
  }
  return entry;
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The speech as 16-bit mono PCM at espeak-ng's own rate, before any encoding, with its words. */
interface PcmSpeech {
  pcm: Int16Array;
  sampleRate: number;
  words: SpokenWord[];
  durationMs: number;
}

/** espeak-ng speech of `text`, word by word with known pauses (see the module comment). */
export async function synthesizePcm(options: { text: string; voice: string; rate?: string }): Promise<PcmSpeech> {
  const espeakVoice = espeakVoiceFor(options.voice);
  if (!espeakVoice) throw new Error(`unsupported voice ${options.voice}`);
  const factor = rateFactor(options.rate);
  const wpm = Math.round(BASE_WPM * factor);
  const tokens = tokenize(options.text);
  const clips = await mapLimited(tokens, 4, (token) => synthesizeWord(token.word, espeakVoice, wpm));
  const sampleRate = clips[0]?.sampleRate ?? 22050;
  const pause = (kind: keyof typeof PAUSE_MS) => Math.round((PAUSE_MS[kind] / factor) * sampleRate / 1000);

  let total = pause("lead");
  tokens.forEach((token, i) => {
    total += clips[i].samples.length + (i === tokens.length - 1 ? pause("tail") : pause(token.pause));
  });
  const pcm = new Int16Array(total);
  const words: SpokenWord[] = [];
  let cursor = pause("lead");
  const ticks = (samples: number) => Math.round((samples / sampleRate) * 1e7);
  tokens.forEach((token, i) => {
    const clip = clips[i].samples;
    pcm.set(clip, cursor);
    words.push({ text: token.word, offsetTicks: ticks(cursor), durationTicks: ticks(clip.length) });
    cursor += clip.length + (i === tokens.length - 1 ? pause("tail") : pause(token.pause));
  });
  return { pcm: tokens.length === 0 ? new Int16Array(0) : pcm, sampleRate, words, durationMs: Math.round((total / sampleRate) * 1000) };
}

export async function synthesizeSpeech(options: { text: string; voice: string; rate?: string; format: string }): Promise<SpeechTrack> {
  const format = MP3_FORMATS[options.format];
  if (!format) throw new Error(`unsupported output format ${options.format}`);
  const { pcm, sampleRate, words, durationMs } = await synthesizePcm(options);
  const mp3 = words.length === 0 ? new Uint8Array(0) : await convertPcm(pcm, sampleRate, format.sampleRate, [
    "-c:a",
    "libmp3lame",
    "-b:a",
    `${format.bitrateK}k`,
    // A live stream, as Edge sends it: no ID3 tag and no Xing header.
    "-write_xing",
    "0",
    "-id3v2_version",
    "0",
    "-f",
    "mp3",
  ]);
  return { mp3, words, durationMs };
}
