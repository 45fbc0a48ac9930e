/**
 * Edge TTS: the WebSocket handshake and speech configuration of the msedge-tts client the voice
 * stage uses, against EDGE_TTS_WSS_URL (or Microsoft's endpoint). Nothing is synthesised.
 */
import { MsEdgeTTS, OUTPUT_FORMAT } from "msedge-tts";
import { type CheckResult, describeError, fail, ok, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";
const NAME = "edge-tts";
/** Any Edge voice: the handshake does not depend on it. */
const PROBE_VOICE = "en-US-AriaNeural";

type UrlStatic = { WSS_URL: string };
const DEFAULT_WSS_URL = (MsEdgeTTS as unknown as UrlStatic).WSS_URL;

export async function checkEdgeTts(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const url = config.env.EDGE_TTS_WSS_URL || DEFAULT_WSS_URL;
  const tts = new MsEdgeTTS();
  try {
    // The client reads the endpoint from a static when it connects (see shared/providers/tts/edge-tts.ts).
    (MsEdgeTTS as unknown as UrlStatic).WSS_URL = url;
    await withTimeout(timeoutMs, () => tts.setMetadata(PROBE_VOICE, OUTPUT_FORMAT.AUDIO_24KHZ_48KBITRATE_MONO_MP3, { wordBoundaryEnabled: true }));
    return ok(FAMILY, NAME, `WebSocket handshake accepted at ${url}`);
  } catch (error) {
    const text = describeError(error);
    const status = /Unexpected server response: (\d{3})/.exec(text)?.[1];
    if (status) {
      return fail(
        FAMILY,
        NAME,
        `${url} refused the handshake (HTTP ${status})`,
        status === "403"
          ? "the endpoint refused the client token: update msedge-tts (npm install msedge-tts@latest), or check EDGE_TTS_WSS_URL"
          : `check EDGE_TTS_WSS_URL: ${hintFor("EDGE_TTS_WSS_URL")}`,
      );
    }
    return fail(FAMILY, NAME, `cannot reach ${url}: ${text}`, `check EDGE_TTS_WSS_URL: ${hintFor("EDGE_TTS_WSS_URL")}`);
  } finally {
    try {
      tts.close();
    } catch {
      // Never opened.
    }
  }
}
