import { type WorkerCallback, WorkerCallbackAnswer } from "../contracts/callbacks.ts";
import type { Logger } from "../logging/logger.ts";
import { signWebhook } from "../webhooks/standard-webhooks.ts";

/** One callback to deliver; `webhookId` stays the same across the retries of this delivery. */
export interface CallbackDelivery {
  webhookId: string;
  body: WorkerCallback;
}

/** The result of one delivery attempt. */
export type CallbackAttempt =
  | { ok: true; status: number }
  | { ok: false; retriable: boolean; status: number | null; message: string };

/** Sends one attempt of a worker -> `worker-callback` delivery. Never throws for HTTP or network errors. */
export interface CallbackSender {
  send(delivery: CallbackDelivery): Promise<CallbackAttempt>;
}

/**
 * `webhook-id` of a delivery: one per (queue, msg_id, read_ct, kind), so retries of one delivery
 * share it (the receiver refuses replays by it), while a redo after the message came back
 * (read_ct + 1) is a new delivery.
 */
export function callbackWebhookId(queue: string, msgId: number, readCt: number, kind: WorkerCallback["kind"]): string {
  return `mdame:${queue}:${msgId}:${readCt}:${kind}`;
}

interface HttpCallbackSenderOptions {
  /** `${FUNCTIONS_URL}/worker-callback`. */
  url: string;
  serviceRoleKey: string;
  webhookSecret: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** POSTs the callback as JSON, signed with Standard Webhooks, with the service-role bearer token. */
export class HttpCallbackSender implements CallbackSender {
  readonly #options: Required<Omit<HttpCallbackSenderOptions, "fetch">> & { fetch: typeof fetch };

  constructor(options: HttpCallbackSenderOptions) {
    this.#options = { timeoutMs: 10_000, fetch: globalThis.fetch.bind(globalThis), ...options };
  }

  async send(delivery: CallbackDelivery): Promise<CallbackAttempt> {
    const { url, serviceRoleKey, webhookSecret, timeoutMs } = this.#options;
    const body = JSON.stringify(delivery.body);
    // Signed per attempt: the timestamp must stay within the receiver's tolerance on late retries.
    const signed = await signWebhook(webhookSecret, delivery.webhookId, body);
    try {
      const response = await this.#options.fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${serviceRoleKey}`,
          ...signed,
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text().catch(() => "");
      if (response.ok) {
        // The receiver answers through its contract; anything else is not a delivery this worker understands.
        const answer = WorkerCallbackAnswer.safeParse(parseJson(text));
        if (answer.success) return { ok: true, status: response.status };
        return { ok: false, retriable: false, status: response.status, message: `the answer broke its contract: ${text.slice(0, 500)}` };
      }
      const retriable = response.status >= 500 || response.status === 408 || response.status === 429;
      return { ok: false, retriable, status: response.status, message: text.slice(0, 500) || response.statusText || `HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, retriable: true, status: null, message: error instanceof Error ? error.message : String(error) };
    }
  }
}

/**
 * 5 attempts over ~15 s: the retries must end while the job's 30-s lease (a third of it already
 * used by the last heartbeat interval) still holds, or the job is picked up again meanwhile.
 */
export const DEFAULT_CALLBACK_RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000];

export type DeliveryOutcome = "delivered" | "rejected" | "gave_up" | "aborted";

interface DeliverOptions {
  /** Waits between attempts; attempts = delays + 1. */
  retryDelaysMs?: readonly number[];
  logger: Logger;
  /** Stops retrying (the message comes back after its visibility timeout). */
  signal?: AbortSignal;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Delivers a callback with bounded retries: network errors and 5xx are retried with the given
 * delays, a 4xx is final. Never throws; the outcome is logged and returned.
 */
export async function deliverCallback(sender: CallbackSender, delivery: CallbackDelivery, options: DeliverOptions): Promise<DeliveryOutcome> {
  const delays = options.retryDelaysMs ?? DEFAULT_CALLBACK_RETRY_DELAYS_MS;
  const log = options.logger.child({ webhook_id: delivery.webhookId, callback_kind: delivery.body.kind });
  for (let attempt = 1; attempt <= delays.length + 1; attempt++) {
    if (options.signal?.aborted) {
      log.warn({ attempt, status: "retrying" }, "callback delivery aborted; the message will be redone after its visibility timeout");
      return "aborted";
    }
    let result: CallbackAttempt;
    try {
      result = await sender.send(delivery);
    } catch (error) {
      result = { ok: false, retriable: true, status: null, message: error instanceof Error ? error.message : String(error) };
    }
    if (result.ok) {
      log.info({ attempt, http_status: result.status, status: "succeeded" }, "callback delivered");
      return "delivered";
    }
    if (!result.retriable) {
      log.error({ attempt, http_status: result.status, response: result.message, status: "failed" }, "callback rejected; not retrying");
      return "rejected";
    }
    const wait = delays[attempt - 1];
    if (wait === undefined) {
      log.error(
        { attempt, http_status: result.status, error: result.message, status: "failed" },
        "callback delivery gave up; the message will be redone after its visibility timeout",
      );
      return "gave_up";
    }
    log.warn({ attempt, http_status: result.status, error: result.message, retry_in_ms: wait, status: "retrying" }, "callback attempt failed; retrying");
    await sleep(wait, options.signal);
  }
  return "gave_up";
}
