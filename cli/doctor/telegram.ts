/** Telegram alerts (docs/reference/alerts.md): the bot token answers getMe at the configured API, and a chat is set. */
import { createTelegramClient, DEFAULT_TELEGRAM_API_BASE_URL, scrubToken } from "../../shared/providers/telegram/bot-api.ts";
import { type CheckResult, describeError, fail, isUnreachable, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "providers";
const NAME = "telegram";

export async function checkTelegram(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const token = config.env.TELEGRAM_BOT_TOKEN;
  const base = config.env.TELEGRAM_API_BASE_URL || DEFAULT_TELEGRAM_API_BASE_URL;
  if (!token) {
    return warn(
      FAMILY,
      NAME,
      "alert delivery is off: no TELEGRAM_BOT_TOKEN (alerts are recorded; `mdame alerts` lists them)",
      `set TELEGRAM_BOT_TOKEN: ${hintFor("TELEGRAM_BOT_TOKEN")}`,
    );
  }
  try {
    const bot = await withTimeout(timeoutMs, (signal) => createTelegramClient({ token, baseUrl: base, attempts: 1 }).getMe(signal));
    const name = bot.username ? `@${bot.username}` : bot.first_name;
    if (!config.env.TELEGRAM_CHAT_ID) {
      return warn(
        FAMILY,
        NAME,
        `bot ${name} answers at ${base}, but no TELEGRAM_CHAT_ID: only dimensions with alerts.telegram_chat_id get alerts`,
        `set TELEGRAM_CHAT_ID: ${hintFor("TELEGRAM_CHAT_ID")}`,
      );
    }
    return ok(FAMILY, NAME, `bot ${name} answers at ${base}; alerts go to chat ${config.env.TELEGRAM_CHAT_ID}`);
  } catch (error) {
    const what = isUnreachable(error) ? `cannot reach ${base}` : `getMe at ${base} failed`;
    return fail(
      FAMILY,
      NAME,
      `${what}: ${scrubToken(describeError(error), token)}`,
      `check TELEGRAM_BOT_TOKEN and TELEGRAM_API_BASE_URL: ${hintFor("TELEGRAM_BOT_TOKEN")}`,
    );
  }
}
