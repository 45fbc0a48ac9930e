import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import {
  CredentialsFormatError,
  CredentialsKeyMissingError,
  CredentialsTamperedError,
  decryptCredentials,
  encryptCredentials,
  generateCredentialsKey,
  isSealedWithCurrentKey,
  sealedKeyId,
} from "../../shared/crypto/credentials.ts";

const ACCOUNT = "3f0c6a52-7d7e-4c0e-9d55-2f1b7b1c9a10";
const ringOf = (current: string, ...previous: string[]) =>
  credentialKeyRing({ CREDENTIALS_KEY: current, CREDENTIALS_KEYS_PREVIOUS: previous.length > 0 ? previous.join(",") : undefined });

/** A value in the first format, `v1.<iv>.<ciphertext>`, as deployments before the key ring sealed it. */
async function sealV1(keyB64: string, refreshToken: string, accountId: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await crypto.subtle.importKey("raw", Buffer.from(keyB64, "base64"), "AES-GCM", false, ["encrypt"]);
  const body = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(accountId) },
    key,
    new TextEncoder().encode(JSON.stringify({ refresh_token: refreshToken })),
  );
  return `v1.${Buffer.from(iv).toString("base64")}.${Buffer.from(body).toString("base64")}`;
}

describe("sealed account credentials", () => {
  test("what is sealed for an account opens for that account only, and names the key that sealed it", async () => {
    const key = generateCredentialsKey();
    const ring = ringOf(key);
    const sealed = await encryptCredentials(ring, { refresh_token: "rt-1" }, ACCOUNT);
    const kid = createHash("sha256").update("mdame-credentials-kid:").update(Buffer.from(key, "base64")).digest("hex").slice(0, 8);
    expect(sealed).toMatch(new RegExp(`^v2\\.${kid}\\.[A-Za-z0-9+/]{16}\\.[A-Za-z0-9+/=]+$`));
    expect(sealedKeyId(sealed)).toBe(kid);
    expect(await decryptCredentials(ring, sealed, ACCOUNT)).toEqual({ refresh_token: "rt-1" });
    await expect(decryptCredentials(ring, sealed, "another-account")).rejects.toBeInstanceOf(CredentialsTamperedError);
  });

  test("sealing uses the current key; opening picks the key the value names", async () => {
    const [oldKey, newKey] = [generateCredentialsKey(), generateCredentialsKey()];
    const before = await encryptCredentials(ringOf(oldKey), { refresh_token: "rt-old" }, ACCOUNT);
    const rotated = ringOf(newKey, oldKey);
    const after = await encryptCredentials(rotated, { refresh_token: "rt-new" }, ACCOUNT);
    expect(sealedKeyId(after)).toBe(rotated.current.kid);
    expect(sealedKeyId(before)).toBe(rotated.previous[0]!.kid);
    expect(await decryptCredentials(rotated, before, ACCOUNT)).toEqual({ refresh_token: "rt-old" });
    expect(await decryptCredentials(rotated, after, ACCOUNT)).toEqual({ refresh_token: "rt-new" });
    expect(isSealedWithCurrentKey(rotated, after)).toBe(true);
    expect(isSealedWithCurrentKey(rotated, before)).toBe(false);
  });

  test("v1 values (no kid) still open with whichever key of the ring sealed them", async () => {
    const [oldKey, newKey] = [generateCredentialsKey(), generateCredentialsKey()];
    const legacy = await sealV1(oldKey, "rt-legacy", ACCOUNT);
    expect(sealedKeyId(legacy)).toBeNull();
    // An existing deployment: CREDENTIALS_KEY alone, unchanged.
    expect(await decryptCredentials(ringOf(oldKey), legacy, ACCOUNT)).toEqual({ refresh_token: "rt-legacy" });
    // After a new key: the old one as previous.
    expect(await decryptCredentials(ringOf(newKey, oldKey), legacy, ACCOUNT)).toEqual({ refresh_token: "rt-legacy" });
    expect(isSealedWithCurrentKey(ringOf(oldKey), legacy)).toBe(false);
    const missing = await decryptCredentials(ringOf(newKey), legacy, ACCOUNT).catch((error) => error);
    expect(missing).toBeInstanceOf(CredentialsKeyMissingError);
    expect(missing.message).toContain("sealed in the v1 format (no key id) and no key of the ring");
  });

  test("a value sealed with a key no longer in the ring is refused naming its kid and what to do, not as tampered", async () => {
    const [oldKey, newKey] = [generateCredentialsKey(), generateCredentialsKey()];
    const ringBefore = ringOf(oldKey);
    const sealed = await encryptCredentials(ringBefore, { refresh_token: "rt-1" }, ACCOUNT);
    const error = await decryptCredentials(ringOf(newKey), sealed, ACCOUNT).catch((e) => e);
    expect(error).toBeInstanceOf(CredentialsKeyMissingError);
    expect(error.kid).toBe(ringBefore.current.kid);
    expect(error.message).toContain(`are sealed with key ${ringBefore.current.kid}, which is not in the key ring (${ringOf(newKey).current.kid})`);
    expect(error.message).toContain("CREDENTIALS_KEYS_PREVIOUS");
    expect(error.message).toContain("mdame account connect");
    expect(error.message).not.toContain("tampered");
  });

  test("a value whose ciphertext was altered is refused as such", async () => {
    const ring = ringOf(generateCredentialsKey());
    const sealed = await encryptCredentials(ring, { refresh_token: "rt-1" }, ACCOUNT);
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64");
    body[0]! ^= 1;
    const altered = [...parts.slice(0, 3), body.toString("base64")].join(".");
    await expect(decryptCredentials(ring, altered, ACCOUNT)).rejects.toThrow("do not open with their key");
  });

  test("exactly two formats: extra segments, whitespace, a bad kid or a wrong iv size are refused before decryption", async () => {
    const ring = ringOf(generateCredentialsKey());
    const sealed = await encryptCredentials(ring, { refresh_token: "rt-1" }, ACCOUNT);
    const [, kid, iv, body] = sealed.split(".");
    for (
      const variant of [
        `${sealed}.extra`,
        `${sealed}.`,
        `v2.${iv}.${body}`,
        `v1.${kid}.${iv}.${body}`,
        `v3.${kid}.${iv}.${body}`,
        // An upper-case letter whatever the random kid is (one of all digits has no case to change).
        `v2.A${kid!.slice(1)}.${iv}.${body}`,
        `v2.${kid}0.${iv}.${body}`,
        `v2.${kid}.${iv}`,
        `v2.${kid}.${iv!.slice(0, 8)} ${iv!.slice(8)}.${body}`,
        `v2.${kid}.${btoa("0123456789abcdef")}.${body}`,
        `v2.${kid}.${iv}.${body!.replace(/=+$/, "")}`,
      ]
    ) {
      await expect(decryptCredentials(ring, variant, ACCOUNT)).rejects.toBeInstanceOf(CredentialsFormatError);
    }
    expect(() => sealedKeyId("v1.abc")).toThrow("credentials: unknown format");
    expect(isSealedWithCurrentKey(ring, "not sealed")).toBe(false);
  });
});
