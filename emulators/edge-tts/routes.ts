/**
 * Edge "Read Aloud" TTS over WebSocket, as the `msedge-tts` client speaks it:
 * `wss://.../consumer/speech/synthesize/readaloud/edge/v1?TrustedClientToken=...&Sec-MS-GEC=...`.
 *
 * Client -> server text frames: `Path:speech.config` (JSON with outputFormat and
 * metadataoptions), then per request `X-RequestId:<id>` + `Path:ssml` with the SSML.
 * Server -> client per request: text `Path:turn.start`; binary audio frames (2-byte big-endian
 * header length, headers ending `Path:audio\r\n`, MP3 bytes); text `Path:audio.metadata` frames
 * with one WordBoundary each (offsets and durations in 100-ns ticks); text `Path:turn.end`.
 *
 * The upgrade is refused with 403 unless the query carries Edge's public `TrustedClientToken` and
 * a `Sec-MS-GEC` equal to SHA-256(<Windows file-time ticks rounded down to 5 minutes> + token),
 * uppercase hex, for the current or an adjacent 5-minute window.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { EmulatorContext } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { MP3_FORMATS, synthesizeSpeech } from "./speech.ts";

export const EDGE_TTS_PATH = "/consumer/speech/synthesize/readaloud/edge/v1";
const AUDIO_CHUNK_BYTES = 4096;
const WINDOWS_EPOCH_OFFSET_S = 11644473600n;
/** The public token every Edge browser (and the msedge-tts client) sends. */
export const TRUSTED_CLIENT_TOKEN = "6A5AA1D4EAFF4E9FB37E23D68491D6F4";

export interface EdgeTtsSocketData {
  connectionId: string;
  outputFormat?: string;
  wordBoundary: boolean;
  /** Requests on one socket are answered in order. */
  queue: Promise<void>;
  open: boolean;
}

/** The Sec-MS-GEC value for a trusted client token at a given time. */
function secMsGec(token: string, atMs: number): string {
  const seconds = BigInt(Math.floor(atMs / 1000)) + WINDOWS_EPOCH_OFFSET_S;
  const rounded = seconds - (seconds % 300n);
  return createHash("sha256").update(`${rounded * 10_000_000n}${token}`).digest("hex").toUpperCase();
}

/** Answers the HTTP upgrade: undefined when upgraded, a 403/400 response otherwise. */
export function upgradeEdgeTts(req: Request, url: URL, server: Server<EdgeTtsSocketData>, _ctx: EmulatorContext): Response | undefined {
  const token = url.searchParams.get("TrustedClientToken") ?? "";
  const gec = url.searchParams.get("Sec-MS-GEC") ?? "";
  const now = Date.now();
  const valid = token === TRUSTED_CLIENT_TOKEN && [-300_000, 0, 300_000].some((skew) => secMsGec(token, now + skew) === gec);
  if (!valid) return new Response("Forbidden: missing or invalid TrustedClientToken / Sec-MS-GEC", { status: 403 });
  const data: EdgeTtsSocketData = {
    connectionId: url.searchParams.get("ConnectionId") ?? randomBytes(16).toString("hex"),
    wordBoundary: false,
    queue: Promise.resolve(),
    open: true,
  };
  return server.upgrade(req, { data }) ? undefined : new Response("Expected a WebSocket upgrade", { status: 400 });
}

function parseFrame(text: string): { headers: Record<string, string>; body: string } {
  const split = text.indexOf("\r\n\r\n");
  const head = split >= 0 ? text.slice(0, split) : text;
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: split >= 0 ? text.slice(split + 4) : "" };
}

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, entity: string) => {
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (entity[0] !== "#") return named[entity.toLowerCase()] ?? whole;
    const code = entity[1].toLowerCase() === "x" ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
  });
}

/** Voice name, prosody rate and plain text of an SSML document. */
function readSsml(ssml: string): { voice?: string; rate?: string; text: string } {
  const voice = /<voice\b[^>]*\bname\s*=\s*["']([^"']+)["']/i.exec(ssml)?.[1];
  const rate = /<prosody\b[^>]*\brate\s*=\s*["']([^"']+)["']/i.exec(ssml)?.[1];
  const inner = /<voice\b[^>]*>([\s\S]*)<\/voice>/i.exec(ssml)?.[1] ?? ssml;
  const text = decodeXml(inner.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ").trim();
  return { voice, rate, text };
}

const textFrame = (requestId: string, path: string, body: string) =>
  `X-RequestId:${requestId}\r\nContent-Type:application/json; charset=utf-8\r\nX-Timestamp:${new Date().toISOString()}\r\nPath:${path}\r\n\r\n${body}`;

function audioFrame(requestId: string, chunk: Uint8Array): Uint8Array {
  const header = new TextEncoder().encode(`X-RequestId:${requestId}\r\nContent-Type:audio/mpeg\r\nPath:audio\r\n`);
  const frame = new Uint8Array(2 + header.length + chunk.length);
  frame[0] = header.length >> 8;
  frame[1] = header.length & 0xff;
  frame.set(header, 2);
  frame.set(chunk, 2 + header.length);
  return frame;
}

async function answerSsml(ws: ServerWebSocket<EdgeTtsSocketData>, requestId: string, ssml: string, ctx: EmulatorContext): Promise<void> {
  const started = performance.now();
  const { voice, rate, text } = readSsml(ssml);
  const format = ws.data.outputFormat ?? "audio-24khz-48kbitrate-mono-mp3";
  ws.send(textFrame(requestId, "turn.start", JSON.stringify({ context: { serviceTag: ws.data.connectionId } })));
  let track;
  try {
    track = await synthesizeSpeech({ text, voice: voice ?? "", rate, format });
  } catch (error) {
    ctx.log({ ts: new Date().toISOString(), service: "edge-tts", event: "synthesis_failed", message: String((error as Error).message) });
    ws.close(1007, String((error as Error).message).slice(0, 120));
    return;
  }
  await slowDown(ctx.faults, "edge-tts");
  const fault = ctx.faults.take("edge-tts");
  const bytesPerTick = (MP3_FORMATS[format].bitrateK * 1000) / 8 / 1e7;
  const chunks = Math.ceil(track.mp3.length / AUDIO_CHUNK_BYTES);
  const stopAfter = fault?.kind === "close_before_turn_end" ? Math.floor(chunks / 2) : Infinity;
  let nextWord = 0;
  for (let i = 0; i < chunks && ws.data.open; i++) {
    if (i >= stopAfter) {
      ws.terminate();
      ctx.log({ ts: new Date().toISOString(), service: "edge-tts", event: "fault", kind: "close_before_turn_end", request_id: requestId });
      return;
    }
    const end = Math.min(track.mp3.length, (i + 1) * AUDIO_CHUNK_BYTES);
    // Word boundaries travel just ahead of the audio they describe, as the service interleaves them.
    while (ws.data.wordBoundary && nextWord < track.words.length && track.words[nextWord].offsetTicks * bytesPerTick < end) {
      const word = track.words[nextWord++];
      ws.send(textFrame(
        requestId,
        "audio.metadata",
        JSON.stringify({
          Metadata: [{
            Type: "WordBoundary",
            Data: {
              Offset: word.offsetTicks,
              Duration: word.durationTicks,
              text: { Text: word.text, Length: word.text.length, BoundaryType: "WordBoundary" },
            },
          }],
        }),
      ));
    }
    ws.send(audioFrame(requestId, track.mp3.subarray(i * AUDIO_CHUNK_BYTES, end)));
    // Yield between frames so a long answer streams instead of arriving in one burst.
    if (i % 8 === 7) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  if (!ws.data.open) return;
  ws.send(textFrame(requestId, "turn.end", "{}"));
  ctx.log({
    ts: new Date().toISOString(),
    service: "edge-tts",
    event: "turn",
    voice,
    format,
    words: track.words.length,
    audio_bytes: track.mp3.length,
    audio_ms: track.durationMs,
    ms: Math.round(performance.now() - started),
  });
}

export function edgeTtsWebSocket(ctx: EmulatorContext): WebSocketHandler<EdgeTtsSocketData> {
  return {
    message(ws, message) {
      if (typeof message !== "string") return;
      const { headers, body } = parseFrame(message);
      if (headers.path === "speech.config") {
        try {
          const audio = JSON.parse(body)?.context?.synthesis?.audio ?? {};
          ws.data.outputFormat = audio.outputFormat;
          ws.data.wordBoundary = String(audio.metadataoptions?.wordBoundaryEnabled) === "true";
        } catch {
          ws.close(1007, "speech.config is not valid JSON");
          return;
        }
        if (ws.data.outputFormat && !(ws.data.outputFormat in MP3_FORMATS)) {
          ws.close(1007, `unsupported output format ${ws.data.outputFormat}`);
        }
        return;
      }
      if (headers.path === "ssml") {
        const requestId = headers["x-requestid"];
        if (!requestId) {
          ws.close(1007, "ssml message without X-RequestId");
          return;
        }
        ws.data.queue = ws.data.queue
          .then(() => answerSsml(ws, requestId, body, ctx))
          .catch((error) => ctx.log({ ts: new Date().toISOString(), service: "edge-tts", level: "error", message: String(error) }));
      }
    },
    close(ws) {
      ws.data.open = false;
    },
  };
}
