/**
 * The notifier: after the stage tasks, the tick delivers the alerts that are due (docs/reference/alerts.md).
 * Each alert is claimed (claim_alerts: skip locked, leased), formatted, sent to its chat (the
 * dimension's, else TELEGRAM_CHAT_ID) and recorded: sent with its message ids, or the attempt. A
 * 429 waits Telegram's retry_after; a 400/403 refusal fails the alert with Telegram's words; any
 * other failure keeps it pending with a capped backoff, so an outage loses nothing. Sends to one
 * chat are paced (about one message a second), as Telegram asks of bots.
 */
import type { ClaimedAlert } from "../../../shared/contracts/alerts.ts";
import { claimAlerts, recordAlertAttempt, recordAlertSent } from "../../../shared/db/rpc/alerts.ts";
import { coerceError } from "../../../shared/errors.ts";
import {
  createTelegramClient,
  scrubToken,
  type TelegramClient,
  TelegramRateLimitedError,
  TelegramRejectedError,
} from "../../../shared/providers/telegram/bot-api.ts";
import { readAssetBytes } from "../../../shared/storage/asset-bytes.ts";
import type { PipelineDeps } from "../deps.ts";
import { alertMessages, formatAlert } from "./format.ts";

/** Least time between two messages to one chat. */
const CHAT_PACE_MS = 1100;
const LEASE_S = 120;

/** When each chat last got a message from this process (the pace holds across ticks). */
const lastSentAt = new Map<string, number>();

interface DeliveryResult {
  configured: boolean;
  sent: number;
  retried: number;
  failed: number;
}

type Env = PipelineDeps["env"] & { TELEGRAM_BOT_TOKEN?: string; TELEGRAM_API_BASE_URL?: string; TELEGRAM_CHAT_ID?: string };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function paced(chat: string, deadline: number): Promise<boolean> {
  const wait = (lastSentAt.get(chat) ?? 0) + CHAT_PACE_MS - Date.now();
  if (wait > 0) {
    if (Date.now() + wait > deadline) return false;
    await sleep(wait);
  }
  return true;
}

async function send(deps: PipelineDeps, client: TelegramClient, alert: ClaimedAlert, chat: string, secrets: string[]): Promise<number[]> {
  const text = formatAlert(alert, secrets);
  const { caption, texts } = alertMessages(text, alert.photo_key !== null);
  const ids: number[] = [];
  if (alert.photo_key !== null) {
    const photo = await readAssetBytes(deps.store, alert.photo_key, "alert");
    const filename = alert.photo_key.split("/").at(-1) || "chart.png";
    ids.push(
      (await client.sendPhoto({ chatId: chat, photo, filename, contentType: filename.endsWith(".png") ? "image/png" : "image/jpeg", caption })).message_id,
    );
    lastSentAt.set(chat, Date.now());
  }
  for (const piece of texts) {
    if (ids.length > 0) await sleep(Math.max(0, (lastSentAt.get(chat) ?? 0) + CHAT_PACE_MS - Date.now()));
    ids.push((await client.sendMessage({ chatId: chat, text: piece })).message_id);
    lastSentAt.set(chat, Date.now());
  }
  return ids;
}

/**
 * Delivers due alerts until none is due or `budgetMs` has passed. Without a bot token, nothing is
 * claimed. A failure of the delivery itself (the database gone mid-pass) is logged, not thrown: the
 * tick's stage work is done, and a claimed alert is due again when its lease ends.
 */
export async function deliverDueAlerts(deps: PipelineDeps, options: { budgetMs: number }): Promise<DeliveryResult> {
  try {
    return await deliver(deps, options);
  } catch (thrown) {
    const env = deps.env as Env;
    const message = env.TELEGRAM_BOT_TOKEN ? scrubToken(coerceError(thrown).message, env.TELEGRAM_BOT_TOKEN) : coerceError(thrown).message;
    deps.logger.error({ stage: "alerts", status: "error", error: message.slice(0, 1000) }, "alert delivery stopped");
    return { configured: true, sent: 0, retried: 0, failed: 0 };
  }
}

async function deliver(deps: PipelineDeps, options: { budgetMs: number }): Promise<DeliveryResult> {
  const env = deps.env as Env;
  const result: DeliveryResult = { configured: Boolean(env.TELEGRAM_BOT_TOKEN), sent: 0, retried: 0, failed: 0 };
  if (!env.TELEGRAM_BOT_TOKEN) return result;
  const token = env.TELEGRAM_BOT_TOKEN;
  const client = createTelegramClient({ token, baseUrl: env.TELEGRAM_API_BASE_URL, attempts: 2 });
  const secrets = [
    token,
    env.SERVICE_ROLE_KEY,
    env.CREDENTIALS_KEY,
    env.GEMINI_API_KEY,
    env.GOOGLE_OAUTH_CLIENT_SECRET,
    env.TIKTOK_CLIENT_SECRET,
    env.OPENAI_COMPAT_API_KEY,
    env.REDDIT_CLIENT_SECRET,
    env.SUPABASE_SERVICE_ROLE_KEY,
  ].filter((s): s is string => typeof s === "string");
  const deadline = Date.now() + options.budgetMs;
  /** Chats that answered 429 in this pass, and until when: their alerts wait that long. */
  const limited = new Map<string, number>();
  while (Date.now() < deadline) {
    const [alert] = await claimAlerts(deps.sql, 1, LEASE_S);
    if (!alert) break;
    const claim = { id: alert.id, claimToken: alert.claim_token };
    const chat = alert.chat_id ?? env.TELEGRAM_CHAT_ID;
    const runId = typeof alert.details.run_id === "string" ? alert.details.run_id : undefined;
    const log = { execution_id: runId, alert_id: alert.id, kind: alert.kind, dimension_id: alert.dimension_id, stage: "alerts", attempt: alert.attempts };
    if (!chat) {
      await recordAlertAttempt(deps.sql, claim, { error: "no chat: set TELEGRAM_CHAT_ID or the dimension's alerts.telegram_chat_id", permanent: false });
      deps.logger.warn({ ...log, status: "no_chat" }, "alert not delivered: no chat configured");
      result.retried += 1;
      continue;
    }
    if (limited.has(chat) || !(await paced(chat, deadline))) {
      const waitS = Math.max(1, Math.ceil(((limited.get(chat) ?? (lastSentAt.get(chat) ?? 0) + CHAT_PACE_MS) - Date.now()) / 1000));
      await recordAlertAttempt(deps.sql, claim, { error: "waiting for the chat's rate limit", permanent: false, retryAfterS: waitS });
      result.retried += 1;
      if (!limited.has(chat)) break;
      continue;
    }
    try {
      const ids = await send(deps, client, alert, chat, secrets);
      await recordAlertSent(deps.sql, claim, chat, ids);
      deps.logger.info({ ...log, status: "sent", message_ids: ids }, "alert sent");
      result.sent += 1;
    } catch (thrown) {
      const error = coerceError(thrown);
      const message = scrubToken(error.message, token).slice(0, 1000);
      if (error instanceof TelegramRateLimitedError) {
        limited.set(chat, Date.now() + error.retryAfterS * 1000);
        lastSentAt.set(chat, Date.now() + error.retryAfterS * 1000 - CHAT_PACE_MS);
        await recordAlertAttempt(deps.sql, claim, { error: message, permanent: false, retryAfterS: error.retryAfterS });
        deps.logger.warn({ ...log, status: "rate_limited", retry_after_s: error.retryAfterS }, "alert delivery rate-limited");
        result.retried += 1;
      } else if (error instanceof TelegramRejectedError && (error.status === 400 || error.status === 403)) {
        await recordAlertAttempt(deps.sql, claim, { error: message, permanent: true });
        deps.logger.error({ ...log, status: "failed", error: message }, "alert refused by Telegram");
        result.failed += 1;
      } else {
        await recordAlertAttempt(deps.sql, claim, { error: message, permanent: false });
        deps.logger.warn({ ...log, status: "retry", error: message }, "alert delivery failed; it stays pending");
        result.retried += 1;
      }
    }
  }
  return result;
}
