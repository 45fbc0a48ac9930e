/**
 * A small Telegram Bot API client (core.telegram.org/bots/api): getMe, sendMessage, sendPhoto.
 * Answers are read with a cap and checked with Zod. 429 answers carry Telegram's
 * `parameters.retry_after`; a short one is waited out here, a longer one is thrown as
 * TelegramRateLimitedError so the caller reschedules. 5xx answers and network errors are retried a
 * few times, then thrown as TelegramUnavailableError. Other answers are refusals
 * (TelegramRejectedError) with Telegram's description.
 *
 * The bot token is part of every request's path (`/bot<token>/<method>`): no error message this
 * client makes names the URL, and any text that came from the network stack is scrubbed of the
 * token before it is used.
 */
import { z } from "zod";
import { readCappedStream } from "../../http/capped-stream.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";

export const DEFAULT_TELEGRAM_API_BASE_URL = "https://api.telegram.org";
const PROVIDER = "telegram";
const MAX_ANSWER_BYTES = 256 * 1024;
/** A 429 asking for at most this many seconds is waited out inside the call. */
const MAX_INLINE_RETRY_AFTER_S = 3;

/** A bot token as BotFather issues it: `<bot id>:<secret>`. */
const TelegramBotToken = z.string().regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, "TELEGRAM_BOT_TOKEN must look like <bot id>:<secret>");

const TelegramUser = z.object({
  id: z.number().int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  username: z.string().optional(),
}).passthrough();
type TelegramUser = z.infer<typeof TelegramUser>;

const TelegramMessage = z.object({
  message_id: z.number().int(),
  date: z.number().int(),
  chat: z.object({ id: z.number().int(), type: z.string() }).passthrough(),
  text: z.string().optional(),
  caption: z.string().optional(),
}).passthrough();
type TelegramMessage = z.infer<typeof TelegramMessage>;

const Failure = z.object({
  ok: z.literal(false),
  error_code: z.number().int(),
  description: z.string(),
  parameters: z.object({ retry_after: z.number().int().optional(), migrate_to_chat_id: z.number().int().optional() }).passthrough().optional(),
}).passthrough();

function answerOf<T extends z.ZodTypeAny>(result: T) {
  return z.union([z.object({ ok: z.literal(true), result }).passthrough(), Failure]);
}

/** Telegram refused the request (400 Bad Request, 401, 403...): the same request fails the same way. */
export class TelegramRejectedError extends ProviderRejectedError {
  constructor(readonly method: string, status: number, readonly description: string) {
    super(PROVIDER, `${method}: ${status} ${description}`, { status });
    this.name = "TelegramRejectedError";
  }
}

/** Telegram answered 429: not before `retryAfterS` seconds. */
export class TelegramRateLimitedError extends ProviderUnavailableError {
  constructor(readonly method: string, readonly retryAfterS: number, description: string) {
    super(PROVIDER, `${method}: 429 ${description} (retry after ${retryAfterS} s)`, { status: 429 });
    this.name = "TelegramRateLimitedError";
  }
}

/** Telegram could not be reached or answered 5xx (or something that is not a Bot API answer). */
export class TelegramUnavailableError extends ProviderUnavailableError {
  constructor(readonly method: string, message: string, status?: number) {
    super(PROVIDER, `${method}: ${message}`, { status });
    this.name = "TelegramUnavailableError";
  }
}

interface TelegramClientOptions {
  token: string;
  /** Default https://api.telegram.org; the emulator's URL on the local stack. */
  baseUrl?: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Tries of a call that meets a 5xx or network error (default 3). */
  attempts?: number;
}

interface SendMessageRequest {
  chatId: string;
  /** MarkdownV2 text, already escaped (markdown-v2.ts), at most 4096 characters. */
  text: string;
  disableNotification?: boolean;
}

interface SendPhotoRequest {
  chatId: string;
  photo: Uint8Array;
  filename: string;
  contentType: string;
  /** MarkdownV2 caption, already escaped, at most 1024 characters. */
  caption?: string;
}

/** One Bot API call: its method, its body (made again for every try), whether that body is JSON, and the schema of its result. */
interface BotRequest<T extends z.ZodTypeAny> {
  method: string;
  body: () => RequestInit["body"];
  json: boolean;
  result: T;
}

export interface TelegramClient {
  getMe(signal?: AbortSignal): Promise<TelegramUser>;
  sendMessage(request: SendMessageRequest, signal?: AbortSignal): Promise<TelegramMessage>;
  sendPhoto(request: SendPhotoRequest, signal?: AbortSignal): Promise<TelegramMessage>;
}

/** `text` with every occurrence of the token (and its secret half) replaced. */
export function scrubToken(text: string, token: string): string {
  let out = text;
  const secret = token.slice(token.indexOf(":") + 1);
  for (const value of [token, encodeURIComponent(token), secret]) {
    if (value.length >= 8) out = out.split(value).join("<redacted>");
  }
  return out;
}

export function createTelegramClient(options: TelegramClientOptions): TelegramClient {
  const token = TelegramBotToken.parse(options.token);
  const base = (options.baseUrl ?? DEFAULT_TELEGRAM_API_BASE_URL).replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const attempts = options.attempts ?? 3;

  async function once<T extends z.ZodTypeAny>({ method, body, json, result }: BotRequest<T>, signal?: AbortSignal): Promise<z.infer<T>> {
    let response: Response;
    try {
      response = await doFetch(`${base}/bot${token}/${method}`, {
        method: "POST",
        body: body(),
        headers: json ? { "content-type": "application/json" } : undefined,
        redirect: "manual",
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw new TelegramUnavailableError(method, "aborted");
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      // Runtimes name the URL in a fetch error: the token is taken out of the text, and the error itself is not kept.
      throw new TelegramUnavailableError(method, `connection failed: ${scrubToken(detail, token).slice(0, 300)}`);
    }
    let text: string;
    try {
      text = new TextDecoder().decode(await readCappedStream(response.body, MAX_ANSWER_BYTES, () => new Error("too large")));
    } catch {
      throw new TelegramUnavailableError(method, `the answer (${response.status}) was unreadable or over ${MAX_ANSWER_BYTES} bytes`, response.status);
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(text);
    } catch {
      decoded = undefined;
    }
    const parsed = answerOf(result).safeParse(decoded);
    if (!parsed.success) {
      if (response.status >= 500 || response.status === 429) throw new TelegramUnavailableError(method, `HTTP ${response.status}`, response.status);
      throw new TelegramUnavailableError(method, `HTTP ${response.status}: not a Bot API answer`, response.status);
    }
    const answer = parsed.data as { ok: true; result: z.infer<T> } | z.infer<typeof Failure>;
    if (answer.ok) return answer.result;
    const description = scrubToken(answer.description, token).slice(0, 500);
    if (answer.error_code === 429 || response.status === 429) {
      throw new TelegramRateLimitedError(method, Math.max(1, answer.parameters?.retry_after ?? 1), description);
    }
    if (answer.error_code >= 500 || response.status >= 500) {
      throw new TelegramUnavailableError(method, `${answer.error_code} ${description}`, answer.error_code);
    }
    throw new TelegramRejectedError(method, answer.error_code, description);
  }

  async function call<T extends z.ZodTypeAny>(request: BotRequest<T>, signal?: AbortSignal): Promise<z.infer<T>> {
    for (let attempt = 1;; attempt += 1) {
      try {
        return await once(request, signal);
      } catch (error) {
        if (signal?.aborted || attempt >= attempts) throw error;
        if (error instanceof TelegramRateLimitedError && error.retryAfterS <= MAX_INLINE_RETRY_AFTER_S) {
          await sleep(error.retryAfterS * 1000);
          continue;
        }
        if (error instanceof TelegramUnavailableError) {
          await sleep(250 * 2 ** (attempt - 1));
          continue;
        }
        throw error;
      }
    }
  }

  return {
    getMe: (signal) => call({ method: "getMe", body: () => undefined, json: false, result: TelegramUser }, signal),
    sendMessage: ({ chatId, text, disableNotification }, signal) =>
      call({
        method: "sendMessage",
        body: () =>
          JSON.stringify({
            chat_id: chatId,
            text,
            parse_mode: "MarkdownV2",
            link_preview_options: { is_disabled: true },
            ...(disableNotification ? { disable_notification: true } : {}),
          }),
        json: true,
        result: TelegramMessage,
      }, signal),
    sendPhoto: ({ chatId, photo, filename, contentType, caption }, signal) =>
      call({
        method: "sendPhoto",
        body: () => {
          const form = new FormData();
          form.set("chat_id", chatId);
          form.set("photo", new Blob([photo as Uint8Array<ArrayBuffer>], { type: contentType }), filename);
          if (caption !== undefined) {
            form.set("caption", caption);
            form.set("parse_mode", "MarkdownV2");
          }
          return form;
        },
        json: false,
        result: TelegramMessage,
      }, signal),
  };
}
