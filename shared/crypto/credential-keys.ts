/**
 * The key ring that seals account credentials: the current key, which seals everything new, and
 * the previous keys, which only open what they sealed until `mdame credentials rotate` has
 * re-sealed it with the current one (docs/guides/rotation.md).
 *
 * Each key is known by its key id (kid), derived from the key itself, so it never needs
 * configuring: the first 8 hex digits of SHA-256("mdame-credentials-kid:" || the 32 key bytes).
 * A sealed value names the kid of its key (`v2.<kid>.<iv>.<ciphertext>`); the kid says which key
 * to use without trying them all, and tells the operator which key a value needs when it is gone.
 */
import { createHash } from "node:crypto";

export const KEY_BYTES = 32;
const KID_DOMAIN = "mdame-credentials-kid:";

/** Key ids as sealed values carry them: 8 lower-case hex digits. */
export const KID = /^[0-9a-f]{8}$/;

/** One key of the ring, as raw bytes and its id. */
export interface CredentialKey {
  kid: string;
  raw: Uint8Array<ArrayBuffer>;
}

/** The current key first, then the previous keys in the order given; kids unique. */
export interface CredentialKeyRing {
  current: CredentialKey;
  previous: readonly CredentialKey[];
}

/** A ring that cannot be built from its configuration; the message names the variable and the entry. */
export class CredentialKeyRingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CredentialKeyRingError";
  }
}

/** Canonical padded base64 only: atob alone also takes whitespace and missing padding. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decoded bytes of canonical base64, or null. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64.test(text)) return null;
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** The kid of a key's raw bytes. */
export function keyIdOf(raw: Uint8Array): string {
  return createHash("sha256").update(KID_DOMAIN).update(raw).digest("hex").slice(0, 8);
}

/** Why a base64 key is not usable, or null when it is; `name` says where it came from. */
function credentialKeyProblem(name: string, keyB64: string): string | null {
  const raw = fromBase64(keyB64);
  if (raw === null) return `${name} is not base64 (generate a key with: openssl rand -base64 32)`;
  if (raw.length !== KEY_BYTES) return `${name} must decode to ${KEY_BYTES} bytes, it decodes to ${raw.length}`;
  return null;
}

function keyOf(name: string, keyB64: string): CredentialKey {
  const problem = credentialKeyProblem(name, keyB64);
  if (problem !== null) throw new CredentialKeyRingError(problem);
  const raw = fromBase64(keyB64)!;
  return { kid: keyIdOf(raw), raw };
}

/** The entries of a comma-separated list of keys; blanks around commas are ignored. */
function splitKeyList(text: string | undefined): string[] {
  if (text === undefined || text.trim() === "") return [];
  return text.split(",").map((entry) => entry.trim());
}

/**
 * Builds the ring from `CREDENTIALS_KEY` (current) and `CREDENTIALS_KEYS_PREVIOUS` (a
 * comma-separated list, may be unset). Throws CredentialKeyRingError on a bad entry (named by its
 * position), an empty entry, or a key given twice (the current key among the previous ones too).
 */
export function credentialKeyRing(config: { CREDENTIALS_KEY: string; CREDENTIALS_KEYS_PREVIOUS?: string | undefined }): CredentialKeyRing {
  const current = keyOf("CREDENTIALS_KEY", config.CREDENTIALS_KEY);
  const seen = new Map<string, string>([[current.kid, "CREDENTIALS_KEY"]]);
  const previous = splitKeyList(config.CREDENTIALS_KEYS_PREVIOUS).map((entry, i) => {
    const name = `CREDENTIALS_KEYS_PREVIOUS entry ${i + 1}`;
    if (entry === "") throw new CredentialKeyRingError(`${name} is empty (a stray comma?)`);
    const key = keyOf(name, entry);
    const earlier = seen.get(key.kid);
    if (earlier !== undefined) throw new CredentialKeyRingError(`${name} is the same key as ${earlier} (kid ${key.kid}): list each key once`);
    seen.set(key.kid, name);
    return key;
  });
  return { current, previous };
}

/** The ring's keys, current first. */
export function ringKeys(ring: CredentialKeyRing): CredentialKey[] {
  return [ring.current, ...ring.previous];
}

/** The ring's key with this kid, or undefined. */
export function ringKey(ring: CredentialKeyRing, kid: string): CredentialKey | undefined {
  return ringKeys(ring).find((key) => key.kid === kid);
}

/** The kids of a ring, for logs and answers: `{ current, previous }` (never the keys). */
export function ringKids(ring: CredentialKeyRing): { current: string; previous: string[] } {
  return { current: ring.current.kid, previous: ring.previous.map((key) => key.kid) };
}
