/**
 * Telegram Bot API (core.telegram.org/bots/api), as the engine's notifier speaks it:
 *
 *   GET|POST /bot<token>/getMe        the bot
 *   POST     /bot<token>/sendMessage  chat_id, text, parse_mode (MarkdownV2 checked and parsed)
 *   POST     /bot<token>/sendPhoto    chat_id, photo (a multipart file), caption, parse_mode
 *
 * Parameters come as JSON, application/x-www-form-urlencoded, multipart/form-data or the query
 * string, as the Bot API accepts them. Answers are `{ok:true,result}` or
 * `{ok:false,error_code,description,parameters?}`: 401 Unauthorized for a token other than the
 * one the emulator issued (any well-formed token when it was started without one), 400 "chat not
 * found" for an unknown chat, 400 for MarkdownV2 Telegram cannot parse or a text too long, 429
 * with `parameters.retry_after` past the per-chat (1 message/s) and per-group (20/min) limits.
 * Faults (service `telegram`): `unavailable` (502 Bad Gateway), `refused` (the connection drops),
 * `rate_limited` (429, retry_after 3), `slow`. Admin routes: admin.ts.
 */
import type { EmulatorContext } from "../context.ts";
import { droppedConnection, jsonResponse } from "../context.ts";
import { slowDown } from "../faults/fault-book.ts";
import { isBodyTooLargeError, readBoundedText } from "../../shared/http/bounded-body.ts";
import { readCappedStream } from "../../shared/http/capped-stream.ts";
import { parseMarkdownV2 } from "./markdown-v2.ts";
import { chatType, sha256Hex, type StoredMessage } from "./state.ts";
import { handleTelegramAdmin, telegramFor } from "./admin.ts";

const BOT_ROUTE = /^\/bot([^/]+)\/([A-Za-z]+)$/;
const TOKEN = /^(\d{1,20}):[A-Za-z0-9_-]{20,100}$/;
const MAX_JSON_BYTES = 64 * 1024;
/** Telegram takes photos up to 10 MB by multipart upload. */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const MAX_TEXT = 4096;
const MAX_CAPTION = 1024;

const failure = (code: number, description: string, parameters?: Record<string, unknown>) =>
  jsonResponse({ ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) }, code);
const badRequest = (what: string) => failure(400, `Bad Request: ${what}`);

type Params = Map<string, string | File>;

async function readParams(req: Request, url: URL): Promise<Params | Response> {
  const params: Params = new Map(url.searchParams);
  if (req.method === "GET") return params;
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  try {
    if (type.startsWith("multipart/form-data")) {
      const declared = Number(req.headers.get("content-length") ?? "0");
      if (declared > MAX_UPLOAD_BYTES + 64 * 1024) return failure(413, "Request Entity Too Large");
      const bytes = await readCappedStream(req.body, MAX_UPLOAD_BYTES + 64 * 1024, () => new Error("too large"));
      const form = await new Response(bytes, { headers: { "content-type": req.headers.get("content-type")! } }).formData();
      for (const [key, value] of form.entries()) params.set(key, value as string | File);
      return params;
    }
    const text = await readBoundedText(req, MAX_JSON_BYTES);
    if (text.trim() === "") return params;
    if (type.startsWith("application/json")) {
      const body = JSON.parse(text) as unknown;
      if (body === null || typeof body !== "object" || Array.isArray(body)) return badRequest("parameters must be a JSON object");
      for (const [key, value] of Object.entries(body)) params.set(key, typeof value === "string" ? value : JSON.stringify(value));
      return params;
    }
    if (type.startsWith("application/x-www-form-urlencoded")) {
      for (const [key, value] of new URLSearchParams(text)) params.set(key, value);
      return params;
    }
    return badRequest("unsupported content type");
  } catch (error) {
    if (isBodyTooLargeError(error) || (error instanceof Error && error.message === "too large")) return failure(413, "Request Entity Too Large");
    return badRequest("can't parse request body");
  }
}

function text(params: Params, key: string): string | undefined {
  const value = params.get(key);
  return typeof value === "string" ? value : undefined;
}

export async function handleTelegram(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname.startsWith("/_emulator/telegram/")) return await handleTelegramAdmin(req, url, ctx);
  const route = BOT_ROUTE.exec(url.pathname);
  if (!route) return undefined;
  const state = telegramFor(ctx);
  const token = decodeURIComponent(route[1]!);
  const method = route[2]!;
  const issued = ctx.telegramBotToken;
  if (!TOKEN.test(token) || (issued !== undefined && token !== issued)) return failure(401, "Unauthorized");
  if (req.method !== "GET" && req.method !== "POST") return failure(405, "Method Not Allowed");
  await slowDown(ctx.faults, "telegram");
  const fault = ctx.faults.take("telegram");
  if (fault?.kind === "refused") return droppedConnection();
  if (fault?.kind === "unavailable") return failure(502, "Bad Gateway");
  if (fault?.kind === "rate_limited") return failure(429, "Too Many Requests: retry after 3", { retry_after: 3 });

  const params = await readParams(req, url);
  if (params instanceof Response) return params;
  const botId = Number(TOKEN.exec(token)![1]);
  if (method === "getMe") {
    return jsonResponse({
      ok: true,
      result: {
        id: botId,
        is_bot: true,
        first_name: "MD-AME emulated bot",
        username: "mdame_emulated_bot",
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      },
    });
  }
  if (method !== "sendMessage" && method !== "sendPhoto") return failure(404, "Not Found");

  const chat = text(params, "chat_id");
  if (chat === undefined || chat === "") return badRequest("chat_id is empty");
  if (!state.chats.has(chat)) return badRequest("chat not found");
  const parseMode = text(params, "parse_mode") ?? null;
  if (parseMode !== null && parseMode !== "MarkdownV2" && parseMode !== "") return badRequest(`unsupported parse_mode ${parseMode.slice(0, 40)}`);
  const raw = method === "sendMessage" ? text(params, "text") ?? "" : text(params, "caption") ?? "";
  if (method === "sendMessage" && raw.trim() === "") return badRequest("message text is empty");
  let plain = raw;
  if (parseMode === "MarkdownV2") {
    const parsed = parseMarkdownV2(raw);
    if (!parsed.ok) return failure(400, parsed.error);
    plain = parsed.text;
  }
  if (method === "sendMessage" && plain.length > MAX_TEXT) return badRequest("message is too long");
  if (method === "sendPhoto" && plain.length > MAX_CAPTION) return badRequest("message caption is too long");

  let photo: StoredMessage["photo"];
  if (method === "sendPhoto") {
    const file = params.get("photo");
    if (!(file instanceof File)) return badRequest("there is no photo in the request");
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (bytes.length === 0) return badRequest("file must be non-empty");
    photo = { filename: file.name, content_type: file.type, size_bytes: bytes.length, sha256: sha256Hex(bytes) };
  }

  const now = Date.now();
  const wait = state.retryAfter(chat, now);
  if (wait > 0) return failure(429, `Too Many Requests: retry after ${wait}`, { retry_after: wait });
  const date = Math.floor(ctx.clock.now() / 1000);
  const stored = state.record({ chat_id: chat, method, date, raw, text: plain, parse_mode: parseMode, photo }, now);
  ctx.log({ ts: new Date().toISOString(), service: "telegram", event: method, chat_id: chat, message_id: stored.message_id, chars: plain.length });
  const chatObject = { id: /^-?\d+$/.test(chat) ? Number(chat) : -1000000000000 - state.chats.size, type: chatType(chat) };
  const result: Record<string, unknown> = {
    message_id: stored.message_id,
    date,
    chat: chatObject,
    from: { id: botId, is_bot: true, first_name: "MD-AME emulated bot", username: "mdame_emulated_bot" },
  };
  if (method === "sendMessage") result.text = plain;
  else {
    result.photo = [{
      file_id: `photo-${stored.photo!.sha256.slice(0, 16)}`,
      file_unique_id: stored.photo!.sha256.slice(0, 12),
      width: 1,
      height: 1,
      file_size: stored.photo!.size_bytes,
    }];
    if (plain !== "") result.caption = plain;
  }
  return jsonResponse({ ok: true, result });
}
