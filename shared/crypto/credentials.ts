import { z } from "zod";

/**
 * Account credentials at rest: AES-256-GCM, `v1.<base64 iv>.<base64 ciphertext+tag>`.
 * Decrypted in memory only, at the moment of use; the key never enters the database.
 */
export const AccountCredentials = z.object({
  refresh_token: z.string().min(1),
}).strict();
export type AccountCredentials = z.infer<typeof AccountCredentials>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unb64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

async function importKey(keyB64: string): Promise<CryptoKey> {
  const raw = unb64(keyB64);
  if (raw.length !== 32) throw new Error("CREDENTIALS_KEY must decode to 32 bytes");
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A fresh base64 key for CREDENTIALS_KEY. */
export function generateCredentialsKey(): string {
  return b64(crypto.getRandomValues(new Uint8Array(32)));
}

export async function encryptCredentials(keyB64: string, credentials: AccountCredentials, accountId: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = encoder.encode(JSON.stringify(AccountCredentials.parse(credentials)));
  // The account id is bound as additional data, so a ciphertext copied to another account fails.
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(accountId) }, await importKey(keyB64), plain);
  return `v1.${b64(iv)}.${b64(new Uint8Array(sealed))}`;
}

export async function decryptCredentials(keyB64: string, sealed: string, accountId: string): Promise<AccountCredentials> {
  const [version, iv, body] = sealed.split(".");
  if (version !== "v1" || !iv || !body) throw new Error("credentials: unknown format");
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(iv), additionalData: encoder.encode(accountId) }, await importKey(keyB64), unb64(body));
  } catch {
    throw new Error(`credentials: cannot decrypt for account ${accountId} (wrong key or tampered)`);
  }
  return AccountCredentials.parse(JSON.parse(decoder.decode(plain)));
}
