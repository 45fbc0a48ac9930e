import type { EmulatorClock } from "./clock/clock.ts";
import type { FaultBook } from "./faults/fault-book.ts";
import type { TokenStore } from "./google-oauth/token-store.ts";
import type { StorageDisk } from "./storage/disk.ts";
import type { YouTubeLimits } from "./youtube/rules.ts";

/** What every emulated service gets from the server: its data dir, faults, OAuth tokens, clock, Storage settings, logger. */
export interface EmulatorContext {
  dataDir: string;
  faults: FaultBook;
  tokens: TokenStore;
  /** The emulator's notion of now, which tests can move (clock/clock.ts says what follows it). */
  clock: EmulatorClock;
  /** YouTube's default quota buckets and channel cap, before any admin route changes them. */
  youtubeLimits: YouTubeLimits;
  /** The one Gemini API key accepted; undefined accepts any non-empty key. */
  geminiApiKey?: string;
  /** The one Pexels API key accepted; undefined accepts any non-empty key. */
  pexelsApiKey?: string;
  /** A Meta app registered whenever the Meta state starts empty (the local stack's META_APP_ID and secret); more through its admin route. */
  metaApp?: { appId: string; appSecret: string };
  /** The one Telegram bot token accepted; undefined accepts any well-formed token. */
  telegramBotToken?: string;
  /** The Telegram chats that exist when the emulator starts (more through its admin route). */
  telegramChatIds?: string[];
  /** Supabase Storage: the service key it accepts (none: every call is refused), its object cap, its files. */
  storage: { serviceKey: string | undefined; maxObjectBytes: number; disk: StorageDisk };
  /** Writes one JSON log line. */
  log(entry: Record<string, unknown>): void;
}

/** JSON response with the content type Google's APIs use. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=UTF-8", ...headers },
  });
}

/** The `{error:{code,message,status}}` body Google's JSON APIs answer errors with. */
export function googleError(code: number, status: string, message: string, extra: Record<string, unknown> = {}): Response {
  return jsonResponse({ error: { code, message, status, ...extra } }, code);
}

const dropped = new WeakSet<Response>();

/**
 * A response that never reaches the client: its body stream fails before the status line is
 * written, so Bun closes the connection (the client sees a reset). The request log marks it.
 */
export function droppedConnection(): Response {
  const response = new Response(new ReadableStream({ start: (controller) => controller.error(undefined) }));
  dropped.add(response);
  return response;
}

export function isDroppedConnection(response: Response | undefined): boolean {
  return response !== undefined && dropped.has(response);
}
