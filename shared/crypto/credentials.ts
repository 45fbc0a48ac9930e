import { z } from "zod";

/**
 * Account credentials at rest: AES-256-GCM, `v1.<base64 iv>.<base64 ciphertext+tag>`.
 * Decrypted in memory only, at the moment of use; the key never enters the database.
 */
export const AccountCredentials = z.object({
  refresh_token: z.string().min(1).max(4096),
}).strict();
export type AccountCredentials = z.infer<typeof AccountCredentials>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** Canonical padded base64 only: atob alone also takes whitespace and missing padding. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function unb64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64.test(text)) return null;
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

const IV_BYTES = 12;
/** AES-GCM's tag alone is 16 bytes; a shorter body cannot be a sealed value. */
const MIN_SEALED_BYTES = 16;

async function importKey(keyB64: string): Promise<CryptoKey> {
  const raw = unb64(keyB64);
  if (raw === null) throw new Error("CREDENTIALS_KEY is not base64 (generate one with: openssl rand -base64 32)");
  if (raw.length !== 32) throw new Error(`CREDENTIALS_KEY must decode to 32 bytes, it decodes to ${raw.length}`);
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A fresh base64 key for CREDENTIALS_KEY. */
export function generateCredentialsKey(): string {
  return b64(crypto.getRandomValues(new Uint8Array(32)));
}

export async function encryptCredentials(keyB64: string, credentials: AccountCredentials, accountId: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plain = encoder.encode(JSON.stringify(AccountCredentials.parse(credentials)));
  // The account id is bound as additional data, so a ciphertext copied to another account fails.
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(accountId) }, await importKey(keyB64), plain);
  return `v1.${b64(iv)}.${b64(new Uint8Array(sealed))}`;
}

/**
 * Opens a sealed value of exactly the one format encryptCredentials writes,
 * `v1.<base64 12-byte iv>.<base64 ciphertext+tag>`: any other shape (extra segments, bad base64,
 * another iv size) is refused before decryption is tried.
 */
export async function decryptCredentials(keyB64: string, sealed: string, accountId: string): Promise<AccountCredentials> {
  const parts = sealed.split(".");
  const [version, ivText, bodyText] = parts;
  const iv = parts.length === 3 && version === "v1" ? unb64(ivText!) : null;
  const body = iv ? unb64(bodyText!) : null;
  if (!iv || !body || iv.length !== IV_BYTES || body.length < MIN_SEALED_BYTES) {
    throw new Error("credentials: unknown format (expected v1.<base64 12-byte iv>.<base64 ciphertext>)");
  }
  const key = await importKey(keyB64);
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(accountId) }, key, body);
  } catch {
    throw new Error(`credentials: cannot decrypt for account ${accountId} (wrong key or tampered)`);
  }
  return AccountCredentials.parse(JSON.parse(decoder.decode(plain)));
}
