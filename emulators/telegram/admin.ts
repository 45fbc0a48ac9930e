/**
 * The Telegram emulator's admin routes (not part of the Bot API; for tests and the demo):
 *
 *   GET  /_emulator/telegram/messages           every accepted message, oldest first: [{chat_id, message_id, method,
 *                                               date, raw, text (plain, after MarkdownV2 parsing), parse_mode, photo?}]
 *   PUT  /_emulator/telegram/chats/<chat_id>    {} -> the chat exists (sends to it are accepted)
 *   GET  /_emulator/telegram/chats              {chats: [...]}
 *   PUT  /_emulator/telegram/settings           {"per_chat_interval_ms"?: 0..60000, "group_per_minute"?: 1..1000} -> the settings
 *
 * `POST /_emulator/reset` clears messages and rate counters and keeps only the chats the emulator
 * was started with.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { TelegramState } from "./state.ts";

const CHAT_ROUTE = /^\/_emulator\/telegram\/chats\/([^/]+)$/;
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/;
const states = new WeakMap<EmulatorContext, TelegramState>();

export function telegramFor(ctx: EmulatorContext): TelegramState {
  let state = states.get(ctx);
  if (!state) {
    state = new TelegramState(ctx.telegramChatIds ?? []);
    states.set(ctx, state);
  }
  return state;
}

export function resetTelegram(ctx: EmulatorContext): void {
  telegramFor(ctx).reset();
}

export async function handleTelegramAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const state = telegramFor(ctx);
  const { pathname } = url;
  if (pathname === "/_emulator/telegram/messages") {
    if (req.method !== "GET") return jsonResponse({ error: `use GET on ${pathname}` }, 405);
    return jsonResponse(state.messages);
  }
  if (pathname === "/_emulator/telegram/chats") {
    if (req.method !== "GET") return jsonResponse({ error: `use GET on ${pathname}` }, 405);
    return jsonResponse({ chats: [...state.chats] });
  }
  if (pathname === "/_emulator/telegram/settings") {
    if (req.method === "GET") return jsonResponse(state.settings);
    if (req.method !== "PUT") return jsonResponse({ error: `use GET or PUT on ${pathname}` }, 405);
    const body = await readAdminJson(req);
    if (body instanceof Response) return body;
    const extra = unknownKeys(body, ["per_chat_interval_ms", "group_per_minute"]);
    if (extra) return jsonResponse({ error: extra }, 400);
    for (const [key, min, max] of [["per_chat_interval_ms", 0, 60_000], ["group_per_minute", 1, 1000]] as const) {
      const value = body[key];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
        return jsonResponse({ error: `${key} must be a whole number ${min}..${max}` }, 400);
      }
      state.settings[key] = value;
    }
    return jsonResponse(state.settings);
  }
  const chat = CHAT_ROUTE.exec(pathname);
  if (chat) {
    if (req.method !== "PUT") return jsonResponse({ error: `use PUT on ${pathname}` }, 405);
    let id = "";
    try {
      id = decodeURIComponent(chat[1]!);
    } catch {
      id = "";
    }
    if (!CHAT_ID.test(id)) return jsonResponse({ error: "a chat id is a number or @channelname" }, 400);
    const body = await readAdminJson(req);
    if (body instanceof Response) return body;
    const extra = unknownKeys(body, []);
    if (extra) return jsonResponse({ error: extra }, 400);
    state.chats.add(id);
    return jsonResponse({ chat_id: id, chats: [...state.chats] });
  }
  return undefined;
}
