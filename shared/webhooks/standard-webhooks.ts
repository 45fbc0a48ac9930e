/**
 * Standard Webhooks v1 signing and verification (worker -> edge callbacks).
 * Signature: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, secret `whsec_<base64 key>`.
 *
 * Rotation without an outage: workers sign with the newest secret (WEBHOOK_SECRET); the verifier
 * holds it and the secrets rotated out of it (WEBHOOK_SECRETS_PREVIOUS) and accepts a delivery
 * that any one of them signed, until the old one is removed (docs/guides/rotation.md).
 */

import { constantTimeEqual } from "../crypto/constant-time.ts";

const encoder = new TextEncoder();

export const WEBHOOK_TOLERANCE_S = 5 * 60;
/** The longest webhook-id and webhook-signature header a delivery may carry (the id is recorded to refuse replays). */
export const WEBHOOK_MAX_ID_LENGTH = 256;
export const WEBHOOK_MAX_SIGNATURE_LENGTH = 1024;
export const WEBHOOK_MAX_BODY_BYTES = 256 * 1024;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith("whsec_")) throw new WebhookVerificationError("webhook secret must start with whsec_");
  let raw: string;
  try {
    raw = atob(secret.slice("whsec_".length));
  } catch {
    throw new WebhookVerificationError("webhook secret is not valid base64");
  }
  const bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
  if (bytes.length < 24) throw new WebhookVerificationError("webhook secret is shorter than 24 bytes");
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

async function hmac(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", secretBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(content))));
}

/**
 * The secrets the verifier accepts, newest first: `WEBHOOK_SECRET` and the comma- or
 * space-separated `WEBHOOK_SECRETS_PREVIOUS` (may be unset). Throws WebhookVerificationError
 * naming the entry that is not a usable secret, or one given twice.
 */
export function webhookSecrets(config: { WEBHOOK_SECRET: string; WEBHOOK_SECRETS_PREVIOUS?: string | undefined }): string[] {
  const named = (name: string, secret: string) => {
    try {
      secretBytes(secret);
    } catch (error) {
      throw new WebhookVerificationError(`${name}: ${(error as Error).message}`);
    }
    return secret;
  };
  const secrets = [named("WEBHOOK_SECRET", config.WEBHOOK_SECRET)];
  const previous = (config.WEBHOOK_SECRETS_PREVIOUS ?? "").split(/[\s,]+/).filter((entry) => entry !== "");
  previous.forEach((entry, i) => {
    const name = `WEBHOOK_SECRETS_PREVIOUS entry ${i + 1}`;
    named(name, entry);
    const earlier = secrets.indexOf(entry);
    if (earlier !== -1) throw new WebhookVerificationError(`${name} repeats ${earlier === 0 ? "WEBHOOK_SECRET" : `entry ${earlier}`}: list each secret once`);
    secrets.push(entry);
  });
  return secrets;
}

/** A fresh `whsec_` secret with 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** Headers for one delivery. `id` must stay the same across retries of the same event. */
export async function signWebhook(secret: string, id: string, body: string, nowS = Math.floor(Date.now() / 1000)): Promise<SignedHeaders> {
  const timestamp = String(nowS);
  return {
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${await hmac(secret, `${id}.${timestamp}.${body}`)}`,
  };
}

/**
 * Verifies one delivery against one secret or several (the accepted secrets, newest first): one
 * `v1` signature made with any of them is enough. Throws WebhookVerificationError when anything is
 * off. Replay refusal (recording `webhook-id`) is the caller's job, in the same transaction as the effect.
 */
export async function verifyWebhook(
  secrets: string | readonly string[],
  headers: { get(name: string): string | null },
  body: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<{ id: string; timestamp: number }> {
  const id = headers.get("webhook-id");
  const ts = headers.get("webhook-timestamp");
  const sig = headers.get("webhook-signature");
  if (!id || !ts || !sig) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  if (encoder.encode(body).length > WEBHOOK_MAX_BODY_BYTES) throw new WebhookVerificationError("body too large");
  if (!/^\d{1,12}$/.test(ts)) throw new WebhookVerificationError("webhook-timestamp is not a whole number of seconds");
  const timestamp = Number(ts);
  if (Math.abs(nowS - timestamp) > WEBHOOK_TOLERANCE_S) throw new WebhookVerificationError("webhook-timestamp outside the tolerance");
  const accepted = typeof secrets === "string" ? [secrets] : secrets;
  if (accepted.length === 0) throw new WebhookVerificationError("no webhook secret is configured");
  const signatures = sig.split(" ").flatMap((part) => {
    const [version, value] = part.split(",", 2);
    return version === "v1" && value !== undefined ? [value] : [];
  });
  // Every secret against every signature, without stopping at the first match: the time taken
  // says nothing about which secret signed.
  let ok = false;
  for (const secret of accepted) {
    const expected = await hmac(secret, `${id}.${ts}.${body}`);
    for (const value of signatures) if (constantTimeEqual(value, expected)) ok = true;
  }
  if (!ok) {
    const held = accepted.length === 1 ? "the accepted secret" : `any of the ${accepted.length} accepted secrets`;
    throw new WebhookVerificationError(`no matching signature for ${held} (a worker still signing with a retired secret needs the current WEBHOOK_SECRET)`);
  }
  return { id, timestamp };
}
