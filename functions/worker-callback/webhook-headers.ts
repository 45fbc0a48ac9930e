import { HTTPException } from "hono/http-exception";
import { WEBHOOK_MAX_ID_LENGTH, WEBHOOK_MAX_SIGNATURE_LENGTH, WEBHOOK_TOLERANCE_S } from "../../shared/webhooks/standard-webhooks.ts";

const SIGNATURE_ENTRY = /^v[0-9]{1,3},[A-Za-z0-9+/]{1,200}={0,2}$/;

const refused = (why: string) => new HTTPException(401, { message: `webhook refused: ${why}` });

/**
 * Checks the Standard Webhooks headers before a single byte of the body is read: an unsigned,
 * malformed or stale delivery is refused (401) at the cost of its headers only. The signature itself
 * needs the body and is verified after the bounded read.
 */
export function refuseMalformedWebhookHeaders(get: (name: string) => string | undefined, nowS = Math.floor(Date.now() / 1000)): void {
  const id = get("webhook-id");
  const timestamp = get("webhook-timestamp");
  const signature = get("webhook-signature");
  if (!id || !timestamp || !signature) throw refused("missing webhook-id, webhook-timestamp or webhook-signature");
  // The id is recorded to refuse replays: a bounded, printable key.
  if (id.length > WEBHOOK_MAX_ID_LENGTH || !/^[\x21-\x7e]+$/.test(id)) {
    throw refused(`webhook-id must be 1-${WEBHOOK_MAX_ID_LENGTH} printable characters without spaces`);
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw refused("webhook-timestamp is not a whole number of seconds");
  if (Math.abs(nowS - Number(timestamp)) > WEBHOOK_TOLERANCE_S) throw refused("webhook-timestamp outside the tolerance");
  const entries = signature.length <= WEBHOOK_MAX_SIGNATURE_LENGTH ? signature.split(" ") : [];
  if (!entries.every((entry) => SIGNATURE_ENTRY.test(entry)) || !entries.some((entry) => entry.startsWith("v1,"))) {
    throw refused("webhook-signature is not a list of v1,<base64> signatures");
  }
}
