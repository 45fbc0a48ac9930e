/**
 * The Telegram emulator's memory: the chats it knows, the messages it accepted, the sends it
 * counts for the rate limits. Memory only; `POST /_emulator/reset` clears messages and counters
 * and restores the chats the emulator was started with.
 */
import { createHash } from "node:crypto";

export interface StoredMessage {
  chat_id: string;
  message_id: number;
  method: "sendMessage" | "sendPhoto";
  date: number;
  /** The text as sent (MarkdownV2 when parse_mode says so). */
  raw: string;
  /** What the recipient reads: the text after entity parsing. */
  text: string;
  parse_mode: string | null;
  photo?: { filename: string; content_type: string; size_bytes: number; sha256: string };
}

interface TelegramSettings {
  /** Least time between two messages to one chat (Telegram: about one message per second per chat). */
  per_chat_interval_ms: number;
  /** Most messages to one group or channel per minute (Telegram: 20). */
  group_per_minute: number;
}

const DEFAULT_TELEGRAM_SETTINGS: TelegramSettings = { per_chat_interval_ms: 1000, group_per_minute: 20 };

export class TelegramState {
  readonly #initialChats: string[];
  chats = new Set<string>();
  messages: StoredMessage[] = [];
  settings: TelegramSettings = { ...DEFAULT_TELEGRAM_SETTINGS };
  #sent = new Map<string, number[]>();
  #nextMessageId = new Map<string, number>();

  constructor(chats: string[]) {
    this.#initialChats = chats;
    this.reset();
  }

  reset(): void {
    this.chats = new Set(this.#initialChats);
    this.messages = [];
    this.settings = { ...DEFAULT_TELEGRAM_SETTINGS };
    this.#sent.clear();
    this.#nextMessageId.clear();
  }

  /** Seconds to wait before `chat` may get another message, or 0 when it may now (real time). */
  retryAfter(chat: string, now: number): number {
    const times = (this.#sent.get(chat) ?? []).filter((t) => t > now - 60_000);
    this.#sent.set(chat, times);
    const last = times.at(-1);
    let waitMs = 0;
    if (last !== undefined && now - last < this.settings.per_chat_interval_ms) waitMs = this.settings.per_chat_interval_ms - (now - last);
    if (isGroup(chat) && times.length >= this.settings.group_per_minute) waitMs = Math.max(waitMs, times[0]! + 60_000 - now);
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  record(message: Omit<StoredMessage, "message_id">, now: number): StoredMessage {
    const id = (this.#nextMessageId.get(message.chat_id) ?? 0) + 1;
    this.#nextMessageId.set(message.chat_id, id);
    const stored = { ...message, message_id: id };
    this.messages.push(stored);
    this.#sent.set(message.chat_id, [...(this.#sent.get(message.chat_id) ?? []), now]);
    return stored;
  }
}

function isGroup(chat: string): boolean {
  return chat.startsWith("-") || chat.startsWith("@");
}

export function chatType(chat: string): string {
  if (chat.startsWith("@") || chat.startsWith("-100")) return "supergroup";
  return chat.startsWith("-") ? "group" : "private";
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
