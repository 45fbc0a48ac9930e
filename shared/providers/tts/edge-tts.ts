/**
 * Edge TTS (Microsoft Edge "Read Aloud" voices) through the `msedge-tts` client, with word
 * boundaries. Runs in Deno (Edge Functions) and Bun.
 *
 * `wssUrl` points the client at another endpoint (the local emulator). The client keeps that URL
 * in a static (`MsEdgeTTS.WSS_URL`) read when a connection opens, so this module sets it and
 * opens the connection inside one module-wide lock: concurrent calls in one process never
 * connect to each other's URL. A call without `wssUrl` uses the client's own default URL.
 */
import { MsEdgeTTS, OUTPUT_FORMAT } from "msedge-tts";
import { WordTiming } from "../../contracts/media.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";
import { mp3DurationMs } from "./mp3-duration.ts";
import { type SynthesizedSpeech, VoiceRefusedError } from "./speech.ts";

const PROVIDER = "edge-tts";
const EDGE_TTS_FORMAT = "audio-24khz-48kbitrate-mono-mp3" as const;

interface EdgeTtsRequest {
  /** Plain text; XML special characters are escaped here. */
  text: string;
  /** An Edge voice short name, e.g. `en-US-AriaNeural`, `id-ID-GadisNeural`. */
  voice: string;
  /** SSML prosody rate, e.g. `+0%`, `-10%`, `+15%`. */
  rate: string;
  /** WebSocket endpoint; defaults to the client's production URL. */
  wssUrl?: string;
  /** Whole-call limit; default 60 s. */
  timeoutMs?: number;
}

interface EdgeTtsResult {
  audio: Uint8Array;
  format: typeof EDGE_TTS_FORMAT;
  words: WordTiming[];
  /** Measured from the MP3 itself: the sum of its frames' durations. */
  durationMs: number;
}

type UrlStatic = { WSS_URL: string };
const DEFAULT_WSS_URL = (MsEdgeTTS as unknown as UrlStatic).WSS_URL;
let connectLock: Promise<unknown> = Promise.resolve();

/** Opens the client's connection with `url` in the static, one connection at a time. */
function connect(tts: MsEdgeTTS, url: string, voice: string): Promise<void> {
  const run = connectLock.then(async () => {
    (MsEdgeTTS as unknown as UrlStatic).WSS_URL = url;
    await tts.setMetadata(voice, OUTPUT_FORMAT.AUDIO_24KHZ_48KBITRATE_MONO_MP3, { wordBoundaryEnabled: true });
  });
  connectLock = run.catch(() => {});
  return run;
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}

/** Splits bytes holding one or more JSON objects back to back (`{...}{...}`) into objects. */
function parseJsonObjects(text: string): unknown[] {
  const objects: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}" && depth > 0 && --depth === 0) {
      objects.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return objects;
}

interface BoundaryMetadata {
  Metadata?: Array<{ Type?: string; Data?: { Offset?: number; Duration?: number; text?: { Text?: string } } }>;
}

function wordsFrom(metadata: Uint8Array[]): WordTiming[] {
  const decoder = new TextDecoder();
  const words: WordTiming[] = [];
  for (const chunk of metadata) {
    for (const object of parseJsonObjects(decoder.decode(chunk)) as BoundaryMetadata[]) {
      for (const item of object.Metadata ?? []) {
        if (item.Type !== "WordBoundary" || !item.Data?.text?.Text) continue;
        words.push(WordTiming.parse({
          text: item.Data.text.Text,
          // Edge reports 100-ns ticks.
          offset_ms: Math.round((item.Data.Offset ?? 0) / 10_000),
          duration_ms: Math.round((item.Data.Duration ?? 0) / 10_000),
        }));
      }
    }
  }
  return words;
}

function describe(error: unknown): ProviderRejectedError | ProviderUnavailableError {
  const message = error instanceof Error ? error.message : String(error);
  const status = /Unexpected server response: (\d{3})/.exec(message)?.[1];
  if (status && Number(status) >= 400 && Number(status) < 500 && status !== "429") {
    return new ProviderRejectedError(PROVIDER, `Edge TTS refused the connection: ${message}`, { status: Number(status), cause: error });
  }
  return new ProviderUnavailableError(PROVIDER, `Edge TTS failed: ${message}`, { status: status ? Number(status) : undefined, cause: error });
}

/** Synthesises `text` and returns MP3 audio with per-word timings in milliseconds. */
export async function synthesizeWithEdgeTts(request: EdgeTtsRequest): Promise<EdgeTtsResult> {
  if (!/[\p{L}\p{N}]/u.test(request.text)) {
    throw new VoiceRefusedError(PROVIDER, "nothing_to_speak", "text has nothing to speak");
  }
  const tts = new MsEdgeTTS();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeoutMs = request.timeoutMs ?? 60_000;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderUnavailableError(PROVIDER, `Edge TTS did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const synthesis = (async () => {
      await connect(tts, request.wssUrl ?? DEFAULT_WSS_URL, request.voice);
      const { audioStream, metadataStream } = tts.toStream(escapeXml(request.text), { rate: request.rate });
      const audio: Uint8Array[] = [];
      const metadata: Uint8Array[] = [];
      metadataStream?.on("data", (chunk: Uint8Array) => metadata.push(chunk));
      await new Promise<void>((resolve, reject) => {
        audioStream.on("data", (chunk: Uint8Array) => audio.push(chunk));
        audioStream.once("end", resolve);
        audioStream.once("error", reject);
      });
      return { audio, metadata };
    })().catch((error) => {
      throw error instanceof ProviderRejectedError || error instanceof ProviderUnavailableError ? error : describe(error);
    });
    const { audio: chunks, metadata } = await Promise.race([synthesis, timedOut]);

    const audio = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      audio.set(chunk, at);
      at += chunk.length;
    }
    const durationMs = mp3DurationMs(audio);
    if (durationMs === undefined) throw new ProviderUnavailableError(PROVIDER, "Edge TTS returned no MP3 audio");
    const words = wordsFrom(metadata);
    if (words.length === 0) throw new ProviderUnavailableError(PROVIDER, "Edge TTS returned audio without word boundaries");
    const last = words[words.length - 1];
    if (last.offset_ms + last.duration_ms > durationMs + 250) {
      throw new ProviderUnavailableError(
        PROVIDER,
        `Edge TTS audio is truncated: ${durationMs} ms of audio, words until ${last.offset_ms + last.duration_ms} ms`,
      );
    }
    return { audio, format: EDGE_TTS_FORMAT, words, durationMs };
  } finally {
    clearTimeout(timer);
    tts.close();
  }
}

/**
 * Edge TTS as a voice of the chain: `attempts` calls in all while the service is unavailable
 * (dropped or refused connection, truncated stream, timeout), one second apart and doubling.
 */
export async function speakWithEdgeTts(request: EdgeTtsRequest & { attempts?: number; backoffMs?: number }): Promise<SynthesizedSpeech> {
  const attempts = Math.max(1, request.attempts ?? 2);
  let delay = request.backoffMs ?? 1_000;
  for (let i = 1;; i++) {
    try {
      const result = await synthesizeWithEdgeTts(request);
      return { audio: result.audio, contentType: "audio/mpeg", extension: "mp3", words: result.words, durationMs: result.durationMs };
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError) || i >= attempts) {
        if (error instanceof ProviderUnavailableError && attempts > 1) {
          throw new ProviderUnavailableError(PROVIDER, `${error.message} (after ${attempts} attempts)`, { status: error.status, cause: error });
        }
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}
