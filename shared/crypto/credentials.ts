import { z } from "zod";
import { type CredentialKey, type CredentialKeyRing, fromBase64, KEY_BYTES, KID, ringKey, ringKeys } from "./credential-keys.ts";

/**
 * Account credentials at rest: AES-256-GCM under the current key of the ring
 * (shared/crypto/credential-keys.ts), written `v2.<kid>.<base64 iv>.<base64 ciphertext+tag>`, with
 * the account id bound as additional data. Values of the first format, `v1.<iv>.<ciphertext>`
 * (no kid), still open with whichever key of the ring sealed them, until rotation re-seals them.
 * Decrypted in memory only, at the moment of use; the keys never enter the database.
 */
const AccountCredentials = z.object({
  refresh_token: z.string().min(1).max(4096),
}).strict();
type AccountCredentials = z.infer<typeof AccountCredentials>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

const IV_BYTES = 12;
/** AES-GCM's tag alone is 16 bytes; a shorter body cannot be a sealed value. */
const MIN_SEALED_BYTES = 16;

/** Not a sealed value of either format: refused before any decryption is tried. */
export class CredentialsFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CredentialsFormatError";
  }
}

/** The value names a key the ring no longer holds: the operator adds it back or reconnects the account. */
export class CredentialsKeyMissingError extends Error {
  constructor(readonly kid: string | null, readonly accountId: string, ring: CredentialKeyRing) {
    const held = ringKeys(ring).map((key) => key.kid).join(", ");
    const what = kid === null
      ? `are sealed in the v1 format (no key id) and no key of the ring (${held}) opens them`
      : `are sealed with key ${kid}, which is not in the key ring (${held})`;
    super(
      `credentials of account ${accountId} ${what}: put the key that sealed them back in CREDENTIALS_KEYS_PREVIOUS and run \`mdame credentials rotate\`, or reconnect the account (mdame account connect)`,
    );
    this.name = "CredentialsKeyMissingError";
  }
}

/** The ring holds the value's key, but it does not open: the value was altered or copied from another account. */
export class CredentialsTamperedError extends Error {
  constructor(readonly kid: string, readonly accountId: string) {
    super(`credentials of account ${accountId} do not open with their key ${kid}: they were altered or belong to another account; reconnect the account`);
    this.name = "CredentialsTamperedError";
  }
}

/** What a sealed value says of itself, read without any key. */
type SealedShape =
  | { format: "v1"; iv: Uint8Array<ArrayBuffer>; body: Uint8Array<ArrayBuffer> }
  | { format: "v2"; kid: string; iv: Uint8Array<ArrayBuffer>; body: Uint8Array<ArrayBuffer> };

/**
 * Parses exactly the two formats: `v1.<base64 12-byte iv>.<base64 ciphertext>` and
 * `v2.<kid>.<base64 12-byte iv>.<base64 ciphertext>`; any other shape (extra segments, bad base64,
 * another iv size) throws CredentialsFormatError.
 */
export function parseSealed(sealed: string): SealedShape {
  const parts = sealed.split(".");
  const [version] = parts;
  const kid = version === "v2" && parts.length === 4 ? parts[1]! : null;
  const fields = version === "v1" && parts.length === 3 ? parts.slice(1) : kid !== null && KID.test(kid) ? parts.slice(2) : null;
  const iv = fields ? fromBase64(fields[0]!) : null;
  const body = iv ? fromBase64(fields![1]!) : null;
  if (!iv || !body || iv.length !== IV_BYTES || body.length < MIN_SEALED_BYTES) {
    throw new CredentialsFormatError(
      "credentials: unknown format (expected v2.<8 hex kid>.<base64 12-byte iv>.<base64 ciphertext>, or v1.<base64 12-byte iv>.<base64 ciphertext>)",
    );
  }
  return kid === null ? { format: "v1", iv, body } : { format: "v2", kid, iv, body };
}

/** The kid a sealed value names; null for the v1 format. Throws CredentialsFormatError on another shape. */
export function sealedKeyId(sealed: string): string | null {
  const shape = parseSealed(sealed);
  return shape.format === "v2" ? shape.kid : null;
}

/** True when the value is sealed in the current format with the ring's current key: rotation leaves it alone. */
export function isSealedWithCurrentKey(ring: CredentialKeyRing, sealed: string): boolean {
  try {
    return sealedKeyId(sealed) === ring.current.kid;
  } catch {
    return false;
  }
}

function importKey(key: CredentialKey): Promise<CryptoKey> {
  if (key.raw.length !== KEY_BYTES) throw new Error(`credentials key ${key.kid} holds ${key.raw.length} bytes, not ${KEY_BYTES}`);
  return crypto.subtle.importKey("raw", key.raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A fresh base64 key for CREDENTIALS_KEY. */
export function generateCredentialsKey(): string {
  return b64(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
}

/**
 * Seals any text with the ring's current key, bound to `additionalData` (the value opens only with
 * the same): `v2.<kid>.<iv>.<ciphertext>`. Account credentials bind the account id; other sealed
 * values (a Google project's client secret) bind an id of their own kind.
 */
export async function sealText(ring: CredentialKeyRing, plain: string, additionalData: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(additionalData) },
    await importKey(ring.current),
    encoder.encode(plain),
  );
  return `v2.${ring.current.kid}.${b64(iv)}.${b64(new Uint8Array(sealed))}`;
}

/** Seals credentials for one account with the ring's current key: `v2.<kid>.<iv>.<ciphertext>`. */
export function encryptCredentials(ring: CredentialKeyRing, credentials: AccountCredentials, accountId: string): Promise<string> {
  // The account id is bound as additional data, so a ciphertext copied to another account fails.
  return sealText(ring, JSON.stringify(AccountCredentials.parse(credentials)), accountId);
}

async function open(key: CredentialKey, shape: SealedShape, additionalData: string): Promise<string | null> {
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: shape.iv, additionalData: encoder.encode(additionalData) }, await importKey(key), shape.body);
  } catch {
    return null;
  }
  return decoder.decode(plain);
}

/** What opening a sealed value found: its text, or which key it needs and whether the ring lacks it or it does not open. */
type OpenedText = { text: string } | { missing: string | null } | { tampered: string };

/**
 * Opens a sealed value bound to `additionalData` with the key it names (v2), or with each key of
 * the ring in turn (v1). Throws CredentialsFormatError on another shape.
 */
export async function openSealedText(ring: CredentialKeyRing, sealed: string, additionalData: string): Promise<OpenedText> {
  const shape = parseSealed(sealed);
  if (shape.format === "v1") {
    for (const key of ringKeys(ring)) {
      const text = await open(key, shape, additionalData);
      if (text !== null) return { text };
    }
    return { missing: null };
  }
  const key = ringKey(ring, shape.kid);
  if (key === undefined) return { missing: shape.kid };
  const text = await open(key, shape, additionalData);
  return text === null ? { tampered: shape.kid } : { text };
}

/**
 * Opens a sealed value with the key it names (v2), or with each key of the ring in turn (v1, which
 * names none). Throws CredentialsFormatError on another shape, CredentialsKeyMissingError when the
 * ring lacks the key, CredentialsTamperedError when the named key is there but does not open it.
 */
export async function decryptCredentials(ring: CredentialKeyRing, sealed: string, accountId: string): Promise<AccountCredentials> {
  const opened = await openSealedText(ring, sealed, accountId);
  if ("missing" in opened) throw new CredentialsKeyMissingError(opened.missing, accountId, ring);
  if ("tampered" in opened) throw new CredentialsTamperedError(opened.tampered, accountId);
  return AccountCredentials.parse(JSON.parse(opened.text));
}
