/**
 * The provider calls the engine pays for, counted as the emulator answered them, under the names
 * the engine records them with (mdame.provider_usage.provider, docs/reference/spend.md): a test
 * compares `mdame spend --json` with these counts. Only answered calls count (2xx, or an Edge TTS
 * socket opened); refused and failed ones cost nothing and the engine records none.
 *
 *   GET    /_emulator/calls   {"calls": {"gemini": 14, "edge-tts": 2, ...}}
 *   DELETE /_emulator/calls   back to none (POST /_emulator/reset also clears them)
 */
import { jsonResponse } from "./context.ts";

/** The engine's provider name of a request the emulator answered, or null when it is no paid call. */
export function billedProvider(method: string, pathname: string, service: string): string | null {
  if (service === "edge-tts") return "edge-tts";
  if (method !== "POST" && method !== "GET") return null;
  const gemini = /^\/(?:v1beta|v1|v1alpha)\/models\/([^/:]+):generateContent$/.exec(pathname);
  if (gemini && method === "POST") {
    const model = gemini[1]!;
    if (/(^|-)tts(-|$)/.test(model)) return "gemini-tts";
    return /(^|-)image(-|$)/.test(model) ? "gemini-image" : "gemini";
  }
  if (method === "POST" && pathname === "/v1/chat/completions") return "openai-compat";
  if (method === "GET" && pathname === "/videos/search") return "pexels";
  return null;
}

export class BilledCalls {
  readonly #counts = new Map<string, number>();

  /** Counts a request the emulator answered with `status` (101: an upgraded socket). */
  note(method: string, pathname: string, service: string, status: number | string | undefined): void {
    if (typeof status !== "number" || !(status === 101 || (status >= 200 && status < 300))) return;
    const provider = billedProvider(method, pathname, service);
    if (provider !== null) this.#counts.set(provider, (this.#counts.get(provider) ?? 0) + 1);
  }

  clear(): void {
    this.#counts.clear();
  }

  /** The admin route, or undefined for any other path. */
  admin(req: Request, url: URL): Response | undefined {
    if (url.pathname !== "/_emulator/calls") return undefined;
    if (req.method === "GET") return jsonResponse({ calls: Object.fromEntries([...this.#counts].sort(([a], [b]) => a.localeCompare(b))) });
    if (req.method === "DELETE") {
      this.clear();
      return jsonResponse({ calls: {} });
    }
    return jsonResponse({ error: "use GET or DELETE" }, 405);
  }
}
